import ArgumentParser
import BeaconFleet
import FleetManifest
import HCI
import HCITransports
import Logging

/// `calibrate`'s controllers: scans on `--hci` (recorded into `--snoop`'s capture, opened
/// here so that a bad path fails before the controller is touched), and with
/// `--advertise-hci` the controller advertising the beacon meanwhile. `close()` closes the
/// capture.
struct CalibrationControllers: ScanOpening {
    let options: HCIOptions
    let spec: HCITransportSpec
    let capture: BTSnoopWriter?
    let logger: Logger
    let advertiser: LiveCalibrationRun.Advertiser?

    var controller: String { spec.description }

    init(_ options: HCIOptions, advertiseHci: String?, target: ResolvedBeacon, logger: Logger) throws {
        self.options = options
        self.logger = logger
        spec = try options.transportSpec(environment: Console.current.environment)
        if let advertiseHci {
            let advertiserSpec = try HCITransportSpec(parsing: advertiseHci)
            guard advertiserSpec != spec else {
                throw CommandFailure(.usageOrInput, "--advertise-hci and --hci name the same controller (\(spec)); a controller does not hear its own advertising: use two")
            }
            do {
                advertiser = LiveCalibrationRun.Advertiser(
                    connection: options.connection(advertiserSpec, capture: nil), request: try AdvertisingRequest(target))
            } catch {
                throw CommandFailure(.usageOrInput, "\(error)")
            }
        } else {
            advertiser = nil
        }
        capture = try options.openCapture()
    }

    /// `--advertise-hci`'s check at parse time.
    static func validate(advertiseHci: String) throws {
        do {
            _ = try HCITransportSpec(parsing: advertiseHci)
        } catch {
            throw ValidationError("--advertise-hci \(advertiseHci): \(error.advisedMessage)")
        }
    }

    /// The live calibration of `target` on these controllers, `seconds` a scan.
    func calibration(of target: ResolvedBeacon, seconds: Double) -> LiveCalibrationRun {
        LiveCalibrationRun(identity: target.identity, seconds: seconds, advertiser: advertiser, logger: logger)
    }

    func close() {
        capture?.close()
    }

    func scanning<Value>(_ body: (LiveScan) async throws -> Value) async throws -> Value {
        try await options.scanning(spec, capture: capture, logger: logger, body)
    }
}
