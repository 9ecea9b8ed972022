/// One advertising family's way of putting beacons on the air and taking them off.
protocol AdvertisingDriver: Sendable {
    /// Puts the beacons on the air; returns what the controller accepted and anything the
    /// user should know.
    func start() async throws(AdvertisingError) -> AdvertisingStart

    /// Keeps the beacons on the air while the session runs (legacy rotation changes the data
    /// every slot). Returns a fault, or `nil` once the task is cancelled.
    func maintain(_ session: AdvertisingSession) async -> AdvertisingFault?

    /// Takes the beacons off the air and removes what `start` created. Never throws: each
    /// failure is logged and the remaining commands still go out.
    func stop() async
}

struct AdvertisingStart: Sendable {
    var beacons: [AcceptedBeacon]
    var rotationSlot: Duration?
    var warnings: [String]
}
