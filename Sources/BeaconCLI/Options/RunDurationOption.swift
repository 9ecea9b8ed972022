import ArgumentParser

/// `--duration SECONDS`, shared by the commands that run until stopped (`scan`, `monitor`,
/// `advertise`): one help text, one check.
struct RunDurationOption: ParsableArguments, Sendable {
    @Option(
        name: .customLong("duration"),
        help: ArgumentHelp(
            "Stop after this many seconds (default: run until SIGINT or SIGTERM); reading a recording, seconds of its own time.",
            valueName: "seconds"))
    var seconds: Double?

    init() {}

    /// The duration given, once `validate` accepted it; `nil`: run until stopped.
    var duration: Duration? { seconds.flatMap(SecondsFlag.duration) }

    func validate() throws {
        try SecondsFlag.check(seconds, "--duration", hint: "Leave it out to run until stopped.")
    }
}
