import HCI
import Logging

/// Prepares a controller for beaconctl and reads what it is.
///
/// - Exclusive transports start with Reset: it clears whatever a previous run left (enabled
///   sets, the advertising family chosen since the last Reset) and any half-sent state.
/// - On exclusive transports both event masks are then set explicitly: after Reset some
///   controllers (RootCanal among them) leave LE Meta masked, and Advertising Set Terminated
///   is off in the LE default mask.
/// - On the kernel's RAW channel neither happens: a Reset would pull the controller from
///   under bluetoothd, and the masks are the kernel's (it already unmasks LE Meta and the LE
///   events it needs; narrowing them would break bluetoothd's connections).
public enum ControllerBringUp {
    /// Reset can take seconds on real hardware (firmware restarts), more than a usual command.
    public static let minimumResetTimeout: Duration = .seconds(5)

    public static func run(
        on host: HostController, access: ControllerAccess, logger: Logger
    ) async throws(HCIError) -> ControllerInfo {
        try await run(on: host, access: access, logger: logger, ledger: nil)
    }

    /// As above, noting each command in `ledger` so that the watchdog knows its answers.
    static func run(
        on host: HostController, access: ControllerAccess, logger: Logger, ledger: CommandLedger?
    ) async throws(HCIError) -> ControllerInfo {
        if access.isExclusive {
            logger.debug("resetting the controller", metadata: ["hci": "\(host.name)"])
            do throws(PreparationFailure) {
                try await resetAndUnmask(host, noting: ledger)
            } catch {
                throw error.error
            }
        } else {
            logger.debug(
                "shared kernel controller: no Reset and the kernel's event masks are kept",
                metadata: ["hci": "\(host.name)"])
        }
        let version = try await host.send(ReadLocalVersionInformation(), noting: ledger)
        let address = try await host.send(ReadBDADDR(), noting: ledger)
        let features = try await host.send(LEReadLocalSupportedFeatures(), noting: ledger)
        let info = ControllerInfo(
            name: host.name, access: access, version: version, address: address, leFeatures: features)
        logger.info(
            "controller ready",
            metadata: [
                "hci": "\(host.name)", "version": "\(version.hciVersion)", "manufacturer": "\(info.manufacturer)",
                "address": "\(address)", "extended_advertising": "\(info.supportsExtendedAdvertising)",
            ])
        return info
    }

    /// Reset and both event masks, for code that drives a controller of its own directly
    /// (simulations, test benches).
    public static func resetAndUnmask(_ host: HostController) async throws(HCIError) {
        do throws(PreparationFailure) {
            try await resetAndUnmask(host, noting: nil)
        } catch {
            throw error.error
        }
    }

    /// One step of preparing an exclusive controller that failed: what it was for (for the
    /// scan's error message) and the controller's answer.
    struct PreparationFailure: Error {
        let error: HCIError
        let step: String
    }

    /// Reset, then both event masks: the one preparation of an exclusive controller, for
    /// advertising and scanning alike (see the type's notes for why both masks are set).
    static func resetAndUnmask(_ host: HostController, noting ledger: CommandLedger?) async throws(PreparationFailure) {
        let resetTimeout = max(await host.defaultTimeout, minimumResetTimeout)
        try await step(Reset(), "resetting the controller", on: host, timeout: resetTimeout, noting: ledger)
        try await unmask(host, noting: ledger)
    }

    /// Set Event Mask with LE Meta, LE Set Event Mask with both advertising report subevents
    /// and Advertising Set Terminated. Also after a Reset by another program, which clears them.
    static func unmask(_ host: HostController, noting ledger: CommandLedger? = nil) async throws(PreparationFailure) {
        try await step(SetEventMask(mask: .beaconHost), "unmasking LE Meta events", on: host, noting: ledger)
        try await step(LESetEventMask(mask: .beaconHost), "unmasking the advertising report events", on: host, noting: ledger)
    }

    private static func step<Command: HCICommand>(
        _ command: Command, _ purpose: String, on host: HostController, timeout: Duration? = nil, noting ledger: CommandLedger?
    ) async throws(PreparationFailure) {
        do {
            _ = try await host.send(command, noting: ledger, timeout: timeout)
        } catch {
            throw PreparationFailure(error: error, step: purpose)
        }
    }
}
