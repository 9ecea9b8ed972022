import ArgumentParser
import BeaconFleet
import Foundation
import HCI
import HCITransports

#if os(Linux)
import HCILinux
#endif

/// `beaconctl controllers`: what controllers there are, and what one of them can do.
struct ControllersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "controllers",
        abstract: "List the kernel's Bluetooth controllers, or show what one controller can do.",
        discussion: """
            Without --hci: the controllers the kernel knows (hci0, hci1, …), with address and state. \
            With --hci SPEC: opens that controller and shows its Bluetooth version, manufacturer, address, \
            LE features, whether it has extended advertising (and how many advertising sets), and its \
            advertising TX power. Exclusive transports are reset first; the kernel's shared hci0 never is. \
            $BEACONCTL_HCI is not consulted here: without --hci the command lists.
            """)

    @OptionGroup var globals: GlobalOptions
    @OptionGroup(title: "Controller") var controller: HCIOptions

    @Option(help: "Output: text (for people) or json (for programs).")
    var format: OutputFormat = .text

    func run() async throws {
        try UnexpectedErrorProbe.reached("controllers")
        guard let hci = controller.hci else {
            try listKernelControllers()
            return
        }
        let spec: HCITransportSpec
        do {
            spec = try HCITransportSpec(parsing: hci)
        } catch {
            throw CommandFailure(.usageOrInput, "--hci: \(error.advisedMessage)")
        }
        let capture = try controller.openCapture()
        defer { capture?.close() }
        let host = try await controller.openHost(spec, capture: capture)
        let report: ControllerReport
        do {
            report = try await ControllerInspector.inspect(host, access: ControllerAccess(spec), logger: globals.makeLogger())
        } catch {
            await host.close()
            throw CommandFailure(.controller, error.advisedMessage)
        }
        await host.close()
        switch format {
        case .text: ControllersOutput.printReport(report, style: globals.style())
        case .json: try ControllersOutput.printJSON(ControllerReportJSON(report))
        }
    }

    private func listKernelControllers() throws {
        #if os(Linux)
        let controllers: [KernelHCIController]
        do {
            controllers = try KernelHCIControllers.list()
        } catch where error.kind == .bluetoothUnsupported {
            switch format {
            case .text: Console.current.line(ControllersOutput.noKernelBluetooth)
            case .json: try ControllersOutput.printJSON(KernelControllerListJSON(controllers: [], note: ControllersOutput.noKernelBluetooth))
            }
            return
        } catch {
            throw CommandFailure(.controller, error.advisedMessage)
        }
        switch format {
        case .text: ControllersOutput.printList(controllers, style: globals.style())
        case .json:
            try ControllersOutput.printJSON(KernelControllerListJSON(controllers: controllers.map(KernelControllerJSON.init), note: nil))
        }
        #else
        Console.current.line(ControllersOutput.noKernelBluetooth)
        #endif
    }
}
