import BeaconCore

extension CalibrationSampler {
    /// The samples of `identity` a live scan hears in its first `seconds`. The deadline is
    /// a task of its own, so a silent air ends the collection on time (a loop that looks at
    /// the clock only when a sighting arrives would wait forever). A failed scan throws;
    /// cancelling the calling task ends the collection with what was heard.
    public static func collect(_ identity: BeaconIdentity, from scan: LiveScan, for seconds: Double) async throws -> CalibrationSampler {
        try await withThrowingTaskGroup(of: CalibrationSampler?.self) { group in
            group.addTask {
                var collected = CalibrationSampler(identity: identity)
                for try await sighting in scan.sightings {
                    collected.add(sighting)
                    if scan.elapsed() >= seconds { break }
                }
                return collected
            }
            group.addTask {
                let remaining = max(0, seconds - scan.elapsed())
                // Cancelled when the stream ended first: nothing to report either way.
                try? await Task.sleep(for: Duration(checkedSeconds: remaining) ?? .longestAccepted)
                return nil
            }
            // The first to end (the deadline, the stream, a failure) ends both; the
            // collector then returns what it has.
            var collected: CalibrationSampler?
            while let next = try await group.next() {
                group.cancelAll()
                if let next { collected = next }
            }
            return collected ?? CalibrationSampler(identity: identity)
        }
    }
}
