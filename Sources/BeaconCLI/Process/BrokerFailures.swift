import BeaconFleet
import Logging

/// The broker use cases (`BeaconFleet/Broker`) as the command line words their failures:
/// a client that cannot be set up is a usage or input error (exit 2), a broker that refused
/// a reader for good a broker failure (exit 3).
extension CommandFailure {
    /// `--mqtt` names the URL when it is the URL that is wrong.
    init(_ error: BrokerSetupError) {
        switch error {
        case .url(let failure): self.init(.usageOrInput, "--mqtt \(failure)")
        default: self.init(.usageOrInput, error.description)
        }
    }
}

extension BrokerInput {
    /// The brokers `--input` names, with their `--gateway`s; `nil` when the inputs are not brokers.
    static func open(
        _ options: SightingInputOptions, role: String, environment: [String: String], logger: Logger
    ) throws(CommandFailure) -> BrokerInput? {
        let brokers = try options.brokerInputs()
        do {
            return try open(brokers, role: role, environment: environment, logger: logger)
        } catch {
            // Every broker input's URL is checked at parse time: what is left is the client's.
            throw CommandFailure(.usageOrInput, error.description)
        }
    }

    /// Opens the brokers `--input` names (none when the input is not a broker), runs `body`
    /// with them, and closes them after it, whether `body` returned or threw (a failure to
    /// close, exit 3, is the one reported then).
    static func reading<Value>(
        _ options: SightingInputOptions, role: String, environment: [String: String], logger: Logger,
        _ body: (BrokerInput?) async throws -> Value
    ) async throws -> Value {
        let broker = try open(options, role: role, environment: environment, logger: logger)
        let value: Value
        do {
            value = try await body(broker)
        } catch {
            try await broker?.close()
            throw error
        }
        try await broker?.close()
        return value
    }

    /// Stops reading; a broker that refused the connection, TLS or the subscription for good
    /// (which ended the stream early) is a failure, exit 3.
    func close() async throws(CommandFailure) {
        do {
            try await finish()
        } catch {
            throw CommandFailure(.controller, error.description)
        }
    }
}

extension CommandFailure {
    /// `gateways configure`: a manifest whose beacons a list cannot name is a finding (exit 1),
    /// a broker that took nothing a broker failure (exit 3), the rest usage or input (exit 2).
    init(_ error: GatewayConfiguringError) {
        switch error {
        case .keepList: self.init(.findings, error.description)
        case .setup(let setup): self.init(setup)
        case .notPublished: self.init(.controller, error.description)
        case .noSuchVenue, .unsupported, .client: self.init(.usageOrInput, error.description)
        }
    }
}
