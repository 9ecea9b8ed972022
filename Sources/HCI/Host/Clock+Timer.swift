extension Clock {
    /// A task that sleeps `delay` on this clock and then runs `expire`, unless it is
    /// cancelled first (what was awaited came in time, or the wait was given up): the
    /// deadline of a wait on an injected clock, armed the one way.
    public func timer(after delay: Duration, _ expire: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        Task {
            do {
                try await sleep(for: delay)
            } catch {
                return  // cancelled in time
            }
            await expire()
        }
    }
}
