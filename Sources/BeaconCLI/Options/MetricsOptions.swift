import ArgumentParser
import MetricsExposition

/// `--metrics [ADDRESS:]PORT`, shared by the commands that run for long (`verify --watch`,
/// `scan`, `monitor`, `advertise`): Prometheus metrics on `http://ADDRESS:PORT/metrics`.
struct MetricsOptions: ParsableArguments, Sendable {
    @Option(
        name: .customLong("metrics"),
        help: ArgumentHelp(
            "Serve Prometheus metrics on http://ADDRESS:PORT/metrics while running; a port alone listens on 127.0.0.1, "
                + "port 0 on any free port (said on standard error). Examples: 9464, 0.0.0.0:9464, [::1]:9464.",
            valueName: "[address:]port"))
    var metrics: String?

    init() {}

    func validate() throws {
        _ = try address()
    }

    /// The address to serve, or `nil` without `--metrics`; a bad value is a usage error
    /// naming it.
    func address() throws -> MetricsListenAddress? {
        guard let metrics else { return nil }
        do {
            return try MetricsListenAddress(parsing: metrics)
        } catch {
            throw ValidationError("--metrics \(error)")
        }
    }
}
