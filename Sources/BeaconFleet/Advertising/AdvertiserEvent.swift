/// What `BeaconAdvertiser.run` reports while it runs, in order.
public enum AdvertiserEvent: Equatable, Sendable {
    /// The beacons are on the air, as the controller accepted them. Sent again after each
    /// successful restart.
    case started(AdvertisingSession)
    /// Something the user should know that does not stop advertising.
    case warning(String)
    /// The beacons went off the air. `retryIn` is the wait before the next restart attempt,
    /// or `nil` when the run ends with an error.
    case interrupted(AdvertisingFault, retryIn: Duration?)
    /// A restart attempt failed; another follows after `retryIn`.
    case restartFailed(String, attempt: Int, retryIn: Duration)
    /// The beacons were taken off the air and the controller released.
    case stopped(StopReason)
}

/// How the advertiser comes back after a fault.
public struct RestartPolicy: Hashable, Sendable {
    /// Consecutive failed attempts after which the run gives up.
    public var maximumAttempts: Int
    /// The wait before the first attempt; it doubles with each further one.
    public var initialBackoff: Duration
    public var maximumBackoff: Duration
    /// A session that stayed up this long counts as healthy: the attempt count starts over.
    public var stableAfter: Duration

    public init(
        maximumAttempts: Int = 8, initialBackoff: Duration = .seconds(1), maximumBackoff: Duration = .seconds(30),
        stableAfter: Duration = .seconds(60)
    ) {
        self.maximumAttempts = maximumAttempts
        self.initialBackoff = initialBackoff
        self.maximumBackoff = maximumBackoff
        self.stableAfter = stableAfter
    }

    /// The wait before attempt `attempt` (1 for the first).
    public func backoff(beforeAttempt attempt: Int) -> Duration {
        var delay = initialBackoff
        for _ in 1..<max(1, attempt) {
            delay = delay * 2
            if delay >= maximumBackoff { return maximumBackoff }
        }
        return min(delay, maximumBackoff)
    }
}
