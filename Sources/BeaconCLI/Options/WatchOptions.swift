import ArgumentParser
import BeaconCore
import BeaconFleet

/// `verify --watch` and the options that apply only with it (docs/verify.md, "--watch").
///
/// Checked by `VerifyCommand.validate()` through the `check…` methods, not by a `validate()`
/// of its own: ArgumentParser validates a group before its command, and verify's own checks
/// (a manifest named, `--input` beside `--hci`) come first, whatever else is wrong.
struct WatchOptions: ParsableArguments {
    @Flag(help: "Audit continuously: report every change of a beacon's state until SIGINT/SIGTERM or the end of --input.")
    var watch = false

    @Option(help: ArgumentHelp(
        "With --watch: seconds without a reception before a beacon is missing, and in which two devices make a duplicate (default: 30).",
        valueName: "seconds"))
    var silence: Double?

    @Option(help: ArgumentHelp(
        "With --watch on a pipe (--input - or a FIFO): seconds without any sighting from it after which the pipe counts as stalled "
            + "(input-lost: nothing is judged by silence until a sighting comes again). Off by default: a pipe's silence is the beacons'.",
        valueName: "seconds"))
    var stallAfter: Double?

    /// With --watch: a program run on every change.
    @OptionGroup var execHook: ExecHookOption
    var exec: String? { execHook.command }

    /// With --watch: the broker every change is also published to (PREFIX/audit/…).
    @OptionGroup var publishing: MQTTPublishOption
    var mqtt: String? { publishing.url }

    @Flag(
        name: .customLong("home-assistant"),
        help: "With --watch --mqtt: announce every beacon to Home Assistant's MQTT discovery (a presence and a last-seen per beacon; docs/mqtt.md).")
    var homeAssistant = false

    @Option(
        name: .customLong("state"),
        help: ArgumentHelp(
            "With --watch: keep every beacon's state in this file and start from it when restarted (only changes from it are reported).",
            valueName: "file"))
    var stateFile: String?

    @Option(
        name: .customLong("discovery-prefix"),
        help: ArgumentHelp("With --home-assistant: Home Assistant's discovery prefix (default: homeassistant).", valueName: "prefix"))
    var discoveryPrefix: String?

    @Flag(help: """
        With --watch: print the template unit beaconctl-watch@.service, whose instance NAME audits /etc/beaconctl/NAME.yaml \
        with the settings of /etc/beaconctl/NAME.env, and exit.
        """)
    var printSystemdTemplate = false

    @OptionGroup(title: "Metrics (with --watch)") var metrics: MetricsOptions

    /// Seconds without a reception before a beacon is missing, as given or by default.
    var silenceOrDefault: Double { silence ?? ContinuousAudit.Configuration.defaultSilence.secondsValue }

    /// With --watch: the options that only make sense for a pass that decides once are
    /// refused, and the watch's own must agree with each other and with the input.
    func checkWatch(timeout: Double?, requiredSightings: Int?, reports: VerifyReportOptions, input: SightingInputOptions) throws {
        try SecondsFlag.check(silence, "--silence")
        try SecondsFlag.check(stallAfter, "--stall-after")
        if let stallAfter, stallAfter >= silenceOrDefault {
            throw ValidationError(
                "--stall-after \(NumberText.plain(stallAfter)) must be shorter than --silence "
                    + "(\(NumberText.plain(silenceOrDefault)) s): a pipe noticed stalled after "
                    + "its beacons were judged missing would not have kept them from it.")
        }
        if stallAfter != nil, input.input == nil || input.inputIsBroker {
            throw ValidationError(
                "--stall-after is for a pipe (--input - or a FIFO), which cannot say whether it delivers; a controller (--hci) "
                    + "and a broker (mqtt://) say so themselves: leave it out.")
        }
        if timeout != nil {
            throw ValidationError("--timeout ends a one-shot pass; --watch runs until SIGINT/SIGTERM or the end of --input: leave --timeout out.")
        }
        if requiredSightings != nil {
            throw ValidationError("--required-sightings is how a one-shot pass decides; --watch judges every reception as it comes: leave it out.")
        }
        if !reports.reportFiles.isEmpty || !reports.reportFormats.isEmpty {
            throw ValidationError("--report writes the report of a one-shot pass; --watch streams changes to standard output and --exec: leave --report out.")
        }
        if let format = reports.format, format != .text, format != .jsonl {
            throw ValidationError("--format \(format.rawValue) is a one-shot report; --watch writes text or jsonl.")
        }
        if homeAssistant && mqtt == nil {
            throw ValidationError("--home-assistant announces the beacons on the broker the changes go to: add --mqtt mqtt://HOST[:PORT]/PREFIX.")
        }
        if discoveryPrefix != nil && !homeAssistant {
            throw ValidationError("--discovery-prefix applies with --home-assistant; add it or leave --discovery-prefix out.")
        }
        if let discoveryPrefix {
            let levels = discoveryPrefix.split(separator: "/", omittingEmptySubsequences: false)
            if levels.contains(where: \.isEmpty) || discoveryPrefix.contains(where: { "+#".contains($0) || $0.isNewline }) {
                throw ValidationError("--discovery-prefix \(discoveryPrefix): topic levels separated by `/`, none empty, no `+` or `#`.")
            }
        }
    }

    /// Without --watch: every option of the watch is refused, all named at once.
    func checkWithoutWatch() throws {
        let watchOnly = [
            silence.map { _ in "--silence" }, exec.map { _ in "--exec" }, mqtt.map { _ in "--mqtt" },
            homeAssistant ? "--home-assistant" : nil, discoveryPrefix.map { _ in "--discovery-prefix" },
            stateFile.map { _ in "--state" }, metrics.metrics.map { _ in "--metrics" }, stallAfter.map { _ in "--stall-after" },
        ].compactMap { $0 }
        if !watchOnly.isEmpty {
            throw ValidationError("\(watchOnly.joined(separator: " and ")) only appl\(watchOnly.count == 1 ? "ies" : "y") with --watch; add --watch or leave \(watchOnly.count == 1 ? "it" : "them") out.")
        }
    }

    /// `--print-systemd-template` prints the watch's unit, which names its own manifest, state
    /// and input (`WatchSystemdUnit`): every other option goes in the instance's environment
    /// file, so one given here would be lost. `otherFlags`: the command's own options given,
    /// named before the watch's.
    func checkSystemdTemplate(otherFlags: [String]) throws {
        guard watch else {
            throw ValidationError(
                "--print-systemd-template prints the unit of the continuous audit (beaconctl-watch@.service): "
                    + "add --watch, as in `beaconctl verify --watch --print-systemd-template`.")
        }
        let given = otherFlags + [
            silence.map { _ in "--silence" }, exec.map { _ in "--exec" }, mqtt.map { _ in "--mqtt" },
            homeAssistant ? "--home-assistant" : nil, stateFile.map { _ in "--state" },
            discoveryPrefix.map { _ in "--discovery-prefix" }, metrics.metrics.map { _ in "--metrics" },
        ].compactMap { $0 }
        if !given.isEmpty {
            throw ValidationError(
                "--print-systemd-template prints a unit whose instance NAME audits /etc/beaconctl/NAME.yaml with the input "
                    + "and options of /etc/beaconctl/NAME.env (\(WatchSystemdUnit.inputVariable), \(WatchSystemdUnit.optionsVariable)): "
                    + "leave out \(given.joined(separator: ", ")) and put the options in that file.")
        }
    }

    /// What the watch is asked for beside its input, `venueNames` naming Home Assistant's areas.
    func settings(venueNames: [String: String], environment: [String: String]) -> AuditWatchService.Settings {
        var settings = AuditWatchService.Settings()
        settings.silence = silence.flatMap(SecondsFlag.duration) ?? settings.silence
        settings.stateFile = stateFile
        settings.publishTo = mqtt
        settings.homeAssistantPrefix = homeAssistant ? discoveryPrefix ?? HomeAssistantDiscovery.defaultPrefix : nil
        settings.venueNames = venueNames
        settings.environment = environment
        return settings
    }
}
