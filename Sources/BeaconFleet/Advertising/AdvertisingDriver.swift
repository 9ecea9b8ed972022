/// One advertising family's way of putting beacons on the air and taking them off.
protocol AdvertisingDriver: Sendable {
    /// Puts the beacons on the air; returns what the controller accepted and anything the
    /// user should know.
    func start() async throws(AdvertisingError) -> AdvertisingStart

    /// Keeps the beacons on the air while the session runs (legacy rotation changes the data
    /// every slot). Returns a fault, or `nil` once the task is cancelled.
    func maintain(_ session: AdvertisingSession) async -> AdvertisingFault?

    /// Takes the beacons off the air and removes what `start` created. Never throws: each
    /// failure is logged and the remaining commands still go out; what the controller did
    /// not acknowledge is returned, so that nobody is told the beacons are off the air on
    /// no evidence.
    func stop() async -> StopAcknowledgement
}

/// What the controller confirmed of a stop sequence.
struct StopAcknowledgement: Sendable, Equatable {
    /// One line per stop command that was refused or went unanswered.
    var failures: [String] = []

    var isConfirmed: Bool { failures.isEmpty }

    mutating func record(_ failure: String?) {
        if let failure { failures.append(failure) }
    }
}

struct AdvertisingStart: Sendable {
    var beacons: [AcceptedBeacon]
    var rotationSlot: Duration?
    var warnings: [String]
}
