import BeaconCore

extension PassTime {
    /// A test's time written in seconds (`.seconds(1.5)`), to the nearest nanosecond as a
    /// time read from outside is. A literal out of a pass's range is the test's own mistake.
    public static func seconds(_ value: Double) -> PassTime {
        guard let time = PassTime(checkedSeconds: value) else { preconditionFailure("\(value) s is no pass time") }
        return time
    }
}

extension Duration {
    /// A test's span written in seconds, to the nearest nanosecond as a pass counts
    /// (`Duration.seconds(_:)` keeps attoseconds, which no pass time carries).
    public static func passSeconds(_ value: Double) -> Duration {
        PassTime.seconds(value).sinceOrigin
    }
}
