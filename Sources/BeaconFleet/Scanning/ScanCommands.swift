import HCI
import Logging

/// The commands of a scan, in order, for one controller and one family. Every failure
/// becomes a `ScanError` saying what the command was for.
struct ScanCommands: Sendable {
    let host: HostController
    let configuration: ScanConfiguration
    let logger: Logger

    var controller: String { host.name }

    /// Exclusive controllers: Reset, then both event masks, because after Reset some
    /// controllers (RootCanal among them) leave LE Meta masked and report nothing. On the
    /// kernel's RAW channel nothing is changed: the kernel owns the masks.
    func prepare() async throws(ScanError) {
        guard configuration.isExclusive else {
            logger.debug("shared kernel controller: no Reset, the kernel's event masks are kept", metadata: ["hci": "\(controller)"])
            return
        }
        logger.debug("resetting the controller", metadata: ["hci": "\(controller)"])
        do throws(ControllerBringUp.PreparationFailure) {
            try await ControllerBringUp.resetAndUnmask(host, noting: nil)
        } catch {
            throw ScanError(controller: controller, kind: .command(error.error, step: error.step))
        }
    }

    /// Both event masks again, after a Reset by another program.
    func setEventMasks() async throws(ScanError) {
        do throws(ControllerBringUp.PreparationFailure) {
            try await ControllerBringUp.unmask(host)
        } catch {
            throw ScanError(controller: controller, kind: .command(error.error, step: error.step))
        }
    }

    /// Reads LE feature bit 12 and picks the family.
    func chooseFamily() async throws(ScanError) -> ScanFamily {
        let features = try await send(LEReadLocalSupportedFeatures(), "reading the LE features")
        guard let family = configuration.family.family(for: features) else {
            throw ScanError(controller: controller, kind: .extendedScanningUnsupported)
        }
        logger.debug(
            "scanning family chosen",
            metadata: ["hci": "\(controller)", "family": "\(family)", "extended_supported": "\(features.contains(.extendedAdvertising))"])
        return family
    }

    /// Passive scanning, window = interval, duplicate filtering off: every advertisement
    /// is reported, which ranging needs (with filtering a beacon is reported once).
    func startScanning(_ family: ScanFamily) async throws(ScanError) {
        let (interval, window) = try timing()
        do {
            switch family {
            case .legacy:
                let parameters = try LESetScanParameters(type: .passive, interval: interval, window: window)
                try await send(parameters, "setting the scan parameters")
                try await send(LESetScanEnable(true, filterDuplicates: false), "enabling scanning")
            case .extended:
                let phy = try LESetExtendedScanParameters.PHYParameters(type: .passive, interval: interval, window: window)
                try await send(try LESetExtendedScanParameters(le1M: phy), "setting the extended scan parameters")
                let enable = try LESetExtendedScanEnable(true, filterDuplicates: .disabled)
                try await send(enable, "enabling extended scanning")
            }
        } catch let error as ScanError {
            throw error
        } catch let error as HCIParameterError {
            throw ScanError(controller: controller, kind: .invalidParameters(error.message))
        } catch {
            throw ScanError(controller: controller, kind: .invalidParameters("\(error)"))
        }
    }

    /// Enables scanning of `family` with the parameters already set. A controller that is
    /// scanning accepts it (Core v5.4 Vol 4 Part E 7.8.11 and 7.8.65: only the duplicate
    /// filter and duration change); one whose scan was disabled behind our back resumes.
    /// The parameters are not sent again: while scanning they would be refused.
    func enableScanning(_ family: ScanFamily) async throws(ScanError) {
        do {
            switch family {
            case .legacy:
                try await send(LESetScanEnable(true, filterDuplicates: false), "enabling scanning again")
            case .extended:
                try await send(try LESetExtendedScanEnable(true, filterDuplicates: .disabled), "enabling extended scanning again")
            }
        } catch let error as ScanError {
            throw error
        } catch {
            throw ScanError(controller: controller, kind: .invalidParameters("\(error)"))
        }
    }

    /// Disables scanning of `family`.
    func stopScanning(_ family: ScanFamily) async throws(ScanError) {
        switch family {
        case .legacy: try await send(LESetScanEnable(false), "disabling scanning")
        case .extended: try await send(LESetExtendedScanEnable.disable, "disabling extended scanning")
        }
    }

    private func timing() throws(ScanError) -> (interval: ScanInterval, window: ScanInterval) {
        if let interval = configuration.interval {
            return (interval, configuration.window ?? interval)
        }
        do {
            let interval = try ScanInterval(milliseconds: ScanConfiguration.defaultMilliseconds)
            return (interval, configuration.window ?? interval)
        } catch {
            throw ScanError(controller: controller, kind: .invalidParameters(error.message))
        }
    }

    @discardableResult
    private func send<Command: HCICommand>(
        _ command: Command, _ step: String
    ) async throws(ScanError) -> Command.ReturnParameters {
        do {
            return try await host.send(command)
        } catch {
            throw ScanError(controller: controller, kind: .command(error, step: step))
        }
    }
}
