import BeaconFleet
import BeaconPlatform
import FleetManifest
import HCI
import HCITransports
import Logging
import Testing

/// Advertisers on RootCanal, one controller each, for tests that need beacons on the air:
/// `start` returns once every one of them is advertising; cancelling one's task takes its
/// beacons off the air.
struct RootCanalAdvertisers {
    /// Each controller's advertiser, by the name it was given.
    let tasks: [String: Task<Void, Never>]

    /// Starts one controller per entry of `controllers` (its name and the manifest beacon ids
    /// it advertises) and waits until all are on the air; the first failure is thrown.
    static func start(
        on spec: HCITransportSpec, fleet: Fleet, controllers: [(name: String, beacons: [String])], logger: Logger
    ) async throws -> RootCanalAdvertisers {
        let requests = Dictionary(uniqueKeysWithValues: try fleet.beacons.map { ($0.id, try AdvertisingRequest($0)) })
        let (started, startedSink) = AsyncStream<Result<String, AdvertisingError>>.makeStream()
        var tasks: [String: Task<Void, Never>] = [:]
        for (name, beacons) in controllers {
            let advertiser = BeaconAdvertiser(
                connection: ControllerConnection(spec, platform: .system), configuration: AdvertiserConfiguration(requests: try beacons.map { try #require(requests[$0]) }),
                logger: logger)
            tasks[name] = Task {
                do throws(AdvertisingError) {
                    _ = try await advertiser.run { event in
                        if case .started = event { startedSink.yield(.success(name)) }
                    }
                } catch {
                    startedSink.yield(.failure(error))
                }
            }
        }
        let advertisers = RootCanalAdvertisers(tasks: tasks)
        var onTheAir = 0
        for await outcome in started {
            do {
                _ = try outcome.get()
            } catch {
                advertisers.stopAll()
                throw error
            }
            onTheAir += 1
            if onTheAir == controllers.count { break }
        }
        return advertisers
    }

    /// Takes `name`'s beacons off the air and waits until its advertiser has stopped.
    func stop(_ name: String) async {
        tasks[name]?.cancel()
        await tasks[name]?.value
    }

    func stopAll() {
        for task in tasks.values { task.cancel() }
    }
}
