import BeaconCore
import HCITransports
import Logging

/// Opens the live scans a use case listens through, on the controller the front end named,
/// as the front end opens them (its capture, its errors).
public protocol ScanOpening: Sendable {
    /// The controller scanned, as its transport is named.
    var controller: String { get }
    /// Scans while `body` runs, then stops and closes the scan (`LiveScan.with`).
    func scanning<Value>(_ body: (LiveScan) async throws -> Value) async throws -> Value
}

/// What a front end says while a live calibration runs.
public protocol CalibrationProgress: Sendable {
    /// A calibration at 1 m starts collecting for `seconds`.
    func collecting(for seconds: Double)
    /// A live walk of `spots` spots starts, `seconds` each, on `controller`.
    func walkStarting(spots: Int, seconds: Double, controller: String)
    /// The walk waits for the user at spot `index` (from 0) of `count`, `distance` metres away.
    func spotWaiting(index: Int, of count: Int, distance: Double)
    /// A spot was scanned; `samples` of the beacon's strongest transmitter were heard.
    func spotCollected(samples: Int)
}

/// Why a live calibration failed, beyond a stop (`UserStop`) and the scan's opening.
public enum LiveCalibrationError: Error, Sendable {
    /// The scan failed while samples were collected.
    case controller(any Error)
    /// The walk's pacing input ended before spot `index` (from 0) of `count`.
    case pacingEnded(index: Int, count: Int, distance: Double)
}

/// The use case behind a live `calibrate`: a beacon's samples collected from a live scan, at
/// 1 m or at each spot of a walk, while (with `advertiser`) a second controller of this host
/// advertises the beacon. The collection is stoppable through `stops`; a stop throws the
/// `UserStop`, as the samples are then a fraction of what was asked.
public struct LiveCalibrationRun: Sendable {
    /// A controller advertising the beacon meanwhile (`calibrate --advertise-hci`).
    public struct Advertiser: Sendable {
        /// How to reach the advertising controller (`ControllerConnection`: its spec and
        /// the platform that opens it).
        public let connection: ControllerConnection
        public let request: AdvertisingRequest

        public init(connection: ControllerConnection, request: AdvertisingRequest) {
            self.connection = connection
            self.request = request
        }
    }

    public let identity: BeaconIdentity
    /// Seconds of scanning (at each spot of a walk).
    public let seconds: Double
    public let advertiser: Advertiser?
    public let logger: Logger

    public init(identity: BeaconIdentity, seconds: Double, advertiser: Advertiser?, logger: Logger) {
        self.identity = identity
        self.seconds = seconds
        self.advertiser = advertiser
        self.logger = logger
    }

    /// The samples of one scan of `seconds` (a calibration at 1 m).
    public func sample(scans: any ScanOpening, stops: any StopRequests, progress: any CalibrationProgress) async throws -> CalibrationSampler {
        try await whileAdvertising {
            let (identity, seconds) = (self.identity, self.seconds)
            let (sampler, failure) = try await scans.scanning { scan -> (CalibrationSampler, (any Error)?) in
                progress.collecting(for: seconds)
                do {
                    let sampler = try await stops.stoppableThrowing {
                        try await CalibrationSampler.collect(identity, from: scan, for: seconds)
                    }
                    return (sampler, nil)
                } catch let stop as UserStop {
                    return (CalibrationSampler(identity: identity), stop)
                } catch {
                    return (CalibrationSampler(identity: identity), LiveCalibrationError.controller(error))
                }
            }
            if let failure { throw failure }
            return sampler
        }
    }

    /// A live walk: at each distance, one line of `pacing` (standard input, `-`: Enter on a
    /// terminal), then one scan of `seconds`. The controller is opened per spot, so nothing
    /// heard while the user walks between spots is counted.
    public func walk(
        _ distances: [Double], scans: any ScanOpening, pacing: String = "-", stops: any StopRequests,
        progress: any CalibrationProgress
    ) async throws -> [CalibrationSampler] {
        try await whileAdvertising {
            progress.walkStarting(spots: distances.count, seconds: seconds, controller: scans.controller)
            let (identity, seconds) = (self.identity, self.seconds)
            return try await stops.stoppableThrowing {
                var lines = SightingLineReader(path: pacing).makeAsyncIterator()
                var spots: [CalibrationSampler] = []
                for (index, distance) in distances.enumerated() {
                    progress.spotWaiting(index: index, of: distances.count, distance: distance)
                    guard try await lines.next() != nil else {
                        throw LiveCalibrationError.pacingEnded(index: index, count: distances.count, distance: distance)
                    }
                    let sampler = try await scans.scanning { scan in
                        do {
                            return try await CalibrationSampler.collect(identity, from: scan, for: seconds)
                        } catch is CancellationError {
                            throw CancellationError()
                        } catch {
                            throw LiveCalibrationError.controller(error)
                        }
                    }
                    progress.spotCollected(samples: sampler.transmitters.first?.samples ?? 0)
                    spots.append(sampler)
                }
                return spots
            }
        }
    }

    /// Runs `body` while `advertiser` (when there is one) advertises the beacon; it has
    /// stopped advertising by the time this returns, whatever `body` did.
    private func whileAdvertising<Value>(_ body: () async throws -> Value) async throws -> Value {
        let advertising = advertiser.map(startAdvertising)
        defer { advertising?.cancel() }
        let outcome: Result<Value, any Error>
        do {
            outcome = .success(try await body())
        } catch {
            outcome = .failure(error)
        }
        if let advertising {
            advertising.cancel()
            _ = await advertising.value
        }
        return try outcome.get()
    }

    /// The task advertising the beacon (cancel it to stop); a failure is logged: the scan
    /// then hears nothing from it.
    private func startAdvertising(_ advertiser: Advertiser) -> Task<Void, Never> {
        let (controller, logger) = (advertiser.connection.spec, self.logger)
        let running = BeaconAdvertiser(
            connection: advertiser.connection, configuration: AdvertiserConfiguration(requests: [advertiser.request]), logger: logger)
        return Task {
            do {
                _ = try await running.run { event in
                    if case .warning(let text) = event { logger.warning("\(controller): \(text)") }
                }
            } catch {
                logger.error("advertising on \(controller) failed: \(error); no samples will come from it")
            }
        }
    }
}
