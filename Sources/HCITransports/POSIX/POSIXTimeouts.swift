import HCI
extension Duration {
    /// The duration as a `poll` timeout: whole milliseconds, rounded up so that a wait never
    /// ends before its deadline; negative durations are 0, very long ones `Int32.max`.
    package var pollTimeoutMilliseconds: Int32 {
        let (seconds, attoseconds) = components
        guard seconds >= 0, attoseconds >= 0 || seconds > 0 else { return 0 }
        let attosecondsPerMillisecond: Int64 = 1_000_000_000_000_000
        let (wholeMilliseconds, leftover) = attoseconds.quotientAndRemainder(
            dividingBy: attosecondsPerMillisecond)
        let (fromSeconds, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        guard !overflow else { return .max }
        return Int32(clamping: fromSeconds + wholeMilliseconds + (leftover > 0 ? 1 : 0))
    }

    /// "5 s" or "250 ms", for messages.
    package var spokenForMessages: String {
        let milliseconds = pollTimeoutMilliseconds
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(milliseconds) ms"
    }
}
