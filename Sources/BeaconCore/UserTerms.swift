/// The settings and commands that library messages point users to ("pass --restart", "`beaconctl
/// controllers` lists them"). Libraries name them as typed values; the front end says how
/// they are spelled, so that no library hard-codes a command line.
///
/// The spelling is a task-local value: the command line sets it once around a command
/// (`UserTerms.$spelling.withValue(.commandLine) { … }`), and every message built by that
/// command's tasks uses it. Outside such a scope, messages use neutral words.
public enum UserSetting: String, Sendable, CaseIterable, CustomStringConvertible {
    case align, all, append, beacon, beacons, exec, family, fleet, format, gap, hci, host, input, major, plan, restart
    case snoop, uuid, write, zones
    case firstMinor = "first-minor"
    case majorPer = "major-per"
    case minorStep = "minor-step"
    case venueName = "venue-name"

    /// As the current front end spells it: `--family` on the command line.
    public var description: String { UserTerms.spelling.setting(self) }
}

/// A command of the front end that a message recommends running.
public enum UserCommand: String, Sendable, CaseIterable, CustomStringConvertible {
    case controllers
    case calibrate
    case fleetValidate = "fleet validate"
    case fleetExport = "fleet export"

    /// As the current front end spells it: `beaconctl controllers` on the command line.
    public var description: String { UserTerms.spelling.command(self) }
}

/// How settings and commands are spelled in messages.
public struct UserTerms: Sendable {
    public var setting: @Sendable (UserSetting) -> String
    public var command: @Sendable (UserCommand) -> String

    public init(setting: @escaping @Sendable (UserSetting) -> String, command: @escaping @Sendable (UserCommand) -> String) {
        self.setting = setting
        self.command = command
    }

    /// Words for library users without a command line: "the family setting", "the controllers command".
    public static let neutral = UserTerms(setting: { "the \($0.rawValue) setting" }, command: { "the \($0.rawValue) command" })

    /// beaconctl's command line: --family, `beaconctl controllers` (commands quoted as code).
    public static let commandLine = UserTerms(setting: { "--" + $0.rawValue }, command: { "`beaconctl \($0.rawValue)`" })

    @TaskLocal public static var spelling: UserTerms = .neutral
}
