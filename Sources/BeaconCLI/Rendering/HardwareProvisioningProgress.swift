import BeaconCore
import BeaconFleet
import FleetManifest
import Foundation

/// What `provision --hardware` says while it runs, on standard error, and the question
/// `--assign nearest` asks on the terminal.
enum HardwareProvisioningProgress {
    /// Asks on the terminal whether `peripheral` becomes `beacon`; anything but y/yes declines.
    static func ask(_ beacon: ResolvedBeacon, _ peripheral: DiscoveredPeripheral, console: Console) async -> Bool {
        let strength = peripheral.strongestRSSI.map { ", \($0) dBm" } ?? ""
        let kind = peripheral.advertisedProfile.map { ", \($0)" } ?? ""
        console.writeToError("provision: make \(peripheral.address)\(kind)\(strength) the beacon `\(beacon.id)`? [y/N] ")
        let answer = await TerminalLine.read()?.trimmingCharacters(in: .whitespaces).lowercased()
        return answer == "y" || answer == "yes"
    }

    /// Progress on standard error, one line per step.
    static func show(_ event: HardwareProvisioningEvent, console: Console, style: Style) {
        switch event {
        case .discovering(let seconds):
            console.errorLine("provision: listening \(ScanTable.decimal(seconds, places: 0)) s for connectable beacons")
        case .heard(let connectable, let total):
            console.errorLine("provision: heard \(NumberText.count(total, "advertiser")), \(connectable) connectable")
        case .connecting(let beaconID, let address):
            console.errorLine("provision: \(beaconID): connecting to \(address)")
        case .finished(let result):
            let status = result.status.succeeded ? result.status.rawValue : style.warning(result.status.rawValue)
            console.errorLine("provision: \(result.beaconID): \(status)")
        case .verifying(let count):
            console.errorLine("provision: listening for \(NumberText.count(count, "beacon")) on the air")
        }
    }

    /// The result: a table, or JSON with `--format json`.
    static func printResult(_ result: HardwareProvisioningResult, json: Bool, console: Console, style: Style) throws {
        if json {
            console.line(try HardwareProvisioningOutput.json(result))
        } else {
            console.line(HardwareProvisioningOutput.table(result, style: style))
        }
    }
}
