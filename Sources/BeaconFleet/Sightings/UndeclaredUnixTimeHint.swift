import BeaconCore
import Synchronization

/// Notices, once per recording, a JSON-lines file whose first line leaves out `"clock"` and
/// carries a time decades long: most likely Unix time written before beaconctl said its clock
/// (docs/sightings.md). Such a line is still read as elapsed time, as documented — the
/// clock is never guessed from the number — but the user is told how to mark the file, so
/// that they do not have to find out from the verdicts.
public final class UndeclaredUnixTimeHint: Sendable {
    /// Elapsed times longer than this are worth a word: 30 years of a receiver's own clock is
    /// far beyond any uptime, while every Unix time since 2000 is above it.
    public static let suspiciousElapsedSeconds = 30.0 * 365.25 * 86_400

    private struct State {
        var message: String?
        var announce: (@Sendable (String) -> Void)?
    }

    private let state = Mutex(State())

    public init() {}

    /// What to tell the user, once noticed.
    public var message: String? { state.withLock { $0.message } }

    /// Hands the message to `announce` as soon as it is noticed (at once, when it already
    /// was). A later call replaces the earlier receiver.
    public func announce(to announce: @escaping @Sendable (String) -> Void) {
        let message = state.withLock { state in
            state.announce = announce
            return state.message
        }
        if let message { announce(message) }
    }

    /// Looks at the first sighting of `source`, decoded from `line`.
    func noteFirst(_ sighting: Sighting, line: UnsafeBufferPointer<UInt8>, source: String) {
        guard sighting.clock == .elapsed, sighting.time > Self.suspiciousElapsedSeconds,
              !Self.contains(line, Array("\"clock\"".utf8)) else { return }
        let message = "\(source): its first line has no \"clock\" and a time of \(NumberText.plain(sighting.time.rounded())) s, "
            + "read as seconds on the receiver's own clock (a file's default); if the file holds Unix times (written "
            + "before beaconctl marked its clock), mark them and run again: "
            + "sed -i 's/,\"receiver\":/,\"clock\":\"unix\",\"receiver\":/' FILE (docs/sightings.md)"
        let announce = state.withLock { state -> (@Sendable (String) -> Void)? in
            guard state.message == nil else { return nil }
            state.message = message
            return state.announce
        }
        announce?(message)
    }

    private static func contains(_ line: UnsafeBufferPointer<UInt8>, _ needle: [UInt8]) -> Bool {
        guard line.count >= needle.count else { return false }
        for start in 0...(line.count - needle.count) where line[start] == needle[0] {
            if needle.indices.allSatisfy({ line[start + $0] == needle[$0] }) { return true }
        }
        return false
    }
}
