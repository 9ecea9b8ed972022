/// Time elapsed since a start, on a clock given from outside: the live paths take their
/// clock as `any Clock<Duration>` (`ContinuousClock()` in the tool, a test clock that the
/// test advances by hand in tests), and measure with this, so that they never need to
/// name the clock's own `Instant` type.
public struct Stopwatch: Sendable {
    private let read: @Sendable () -> Duration

    /// Starts now on `clock`.
    public init(on clock: any Clock<Duration>) {
        read = Self.reader(clock)
    }

    private static func reader<C: Clock<Duration>>(_ clock: C) -> @Sendable () -> Duration {
        let start = clock.now
        return { start.duration(to: clock.now) }
    }

    /// The time since the start.
    public var elapsed: Duration { read() }

    /// The time since the start, in seconds.
    public var elapsedSeconds: Double { read().secondsValue }
}
