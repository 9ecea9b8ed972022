import VirtualRadio

/// Runs `body` on a virtual air of its own, registered under a name no other test uses
/// (`prefix` and a random number), in real time ten times as fast as the wall clock: a
/// command's own waits (the discovery window, the verification) are on the wall clock, so a
/// virtual clock cannot drive it, and at ten times the speed a run takes about a second.
/// The air is shut down and unregistered however `body` ends.
func withRealTimeTestAir<Result>(
    named prefix: String, seed: UInt64 = 3, _ body: (VirtualAir) async throws -> Result
) async rethrows -> Result {
    let air = VirtualAir(
        name: "\(prefix)-\(UInt32.random(in: 0...UInt32.max))",
        configuration: VirtualAir.Configuration(seed: seed, timeMode: .realTime(speed: 10)))
    VirtualAirRegistry.register(air)
    defer {
        air.shutdown()
        VirtualAirRegistry.remove(named: air.name)
    }
    return try await body(air)
}
