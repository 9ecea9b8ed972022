import BeaconFleet
import Foundation
import HCI

/// Text and JSON for `beaconctl controllers`.
enum ControllersOutput {
    static let otherTransports =
        "--hci tcp-client:HOST:PORT (RootCanal, Bumble, HCI proxies), --hci serial:/dev/ttyACM0[,BAUD] (UART dongles) "
        + "or --hci virtual"

    static let noKernelBluetooth =
        "This kernel has no Bluetooth support (AF_BLUETOOTH is not available), so there are no kernel controllers "
        + "(hci0, hci-user:0). Controllers can still be reached with \(otherTransports)."

    /// `controllers` without --hci: the kernel's controllers as a table or JSON, or the note
    /// that this kernel has no Bluetooth.
    static func printListing(_ listing: KernelControllerListing, format: OutputFormat, style: Style) throws {
        switch (listing, format) {
        case (.noKernelBluetooth, .text):
            Console.current.line(noKernelBluetooth)
        case (.noKernelBluetooth, .json):
            try printJSON(KernelControllerListJSON(controllers: [], note: noKernelBluetooth))
        case (.listed(let controllers), .text):
            printList(controllers, style: style)
        case (.listed(let controllers), .json):
            try printJSON(KernelControllerListJSON(controllers: controllers.map(KernelControllerJSON.init), note: nil))
        }
    }

    static func printList(_ controllers: [KernelController], style: Style) {
        let console = Console.current
        guard !controllers.isEmpty else {
            console.line("The kernel lists no Bluetooth controller: plug one in, or reach one with \(otherTransports).")
            return
        }
        let header = ["NAME", "ADDRESS", "STATE", "BUS"]
        let rows = controllers.map { [$0.name, $0.address, $0.isUp ? "up" : "down", $0.bus] }
        let widths = header.indices.map { column in ([header[column]] + rows.map { $0[column] }).map(\.count).max() ?? 0 }
        func render(_ cells: [String]) -> String {
            cells.indices.map { column in
                cells[column].padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  ").replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
        }
        console.line(style.bold(render(header)))
        for row in rows { console.line(render(row)) }
        console.line(style.dim("`beaconctl controllers --hci hciN` shows what one can do; hci-user:N needs it down."))
    }

    static func printReport(_ report: ControllerReport, style: Style) {
        let info = report.info
        var rows: [(String, String)] = [
            ("Bluetooth version", info.version.hciVersion.description),
            ("Manufacturer", info.manufacturer),
            ("Address", info.hasPublicAddress ? "\(info.address) (public)" : "none (the controller reports 00:00:00:00:00:00)"),
            ("Access", info.access.isExclusive ? "exclusive (reset before use)" : "shared with the kernel and bluetoothd (never reset)"),
            ("LE features", info.leFeatures.description),
            ("Extended advertising", info.supportsExtendedAdvertising ? "yes" : "no: one advertisement, several beacons in rotation"),
        ]
        if let sets = report.advertisingSets {
            rows.append(("Advertising sets", "\(sets) (beacons on the air at once)"))
        }
        if let length = report.maximumAdvertisingDataLength {
            rows.append(("Max advertising data", "\(length) bytes"))
        }
        rows.append(("Advertising TX power", report.advertisingTxPower.description))
        let console = Console.current
        console.line(style.bold("Controller \(info.name)"))
        let width = rows.map(\.0.count).max() ?? 0
        for (label, value) in rows {
            console.line("  " + label.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + value)
        }
    }

    static func printJSON(_ value: some Encodable) throws {
        Console.current.line(try JSONOutput.document(value))
    }
}

/// `controllers --hci SPEC --format json`.
struct ControllerReportJSON: Encodable {
    var controller: ControllerJSON
    var leFeatures: [String]
    var advertisingSets: Int?
    var maxAdvertisingDataLength: Int?
    var advertisingTxPower: TxPower

    struct TxPower: Encodable {
        /// `fixed`, `range` or `per-set`.
        var kind: String
        var dBm: Int8?
        var minimumDbm: Int8?
        var maximumDbm: Int8?
    }

    init(_ report: ControllerReport) {
        controller = ControllerJSON(report.info)
        leFeatures = report.info.leFeatures.names
        advertisingSets = report.advertisingSets
        maxAdvertisingDataLength = report.maximumAdvertisingDataLength
        switch report.advertisingTxPower {
        case .fixed(let dBm): advertisingTxPower = TxPower(kind: "fixed", dBm: dBm)
        case .range(let minimum, let maximum): advertisingTxPower = TxPower(kind: "range", minimumDbm: minimum, maximumDbm: maximum)
        case .reportedPerSet: advertisingTxPower = TxPower(kind: "per-set")
        }
    }
}

/// `controllers --format json` without --hci.
struct KernelControllerListJSON: Encodable {
    var controllers: [KernelControllerJSON]
    /// Set when the kernel has no Bluetooth at all.
    var note: String?
}

struct KernelControllerJSON: Encodable {
    var name: String
    var hci: String
    var address: String
    var up: Bool
    var bus: String

    init(_ controller: KernelController) {
        name = controller.name
        hci = controller.transportSpec.description
        address = controller.address
        up = controller.isUp
        bus = controller.bus
    }
}
