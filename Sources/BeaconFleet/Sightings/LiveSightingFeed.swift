import BeaconCore
import HCI

/// A live source's sightings and a clock's ticks on one bounded queue, so that the state they
/// drive (a verification engine, a continuous audit, a monitoring run, a scan's ranging) is
/// only ever touched by the one task that reads `inputs`. Ticks, ends and changes are stamped
/// with the time since the feed started on its clock (a `PassTime`, exact to the clock's
/// nanosecond) (`ContinuousClock` in the tool, a
/// test clock in tests) or on the source's own (`elapsed`); a sighting is not: it carries its
/// time on its receiver's clock, stamped once where it entered, and the reader places it on
/// the feed's clock with a `SightingTimeline` (each receiver tied at its first sighting to
/// `elapsed()`). The one live loop of sightings plus a tick: verify and the watch read it,
/// and so does every reader of a live scan (`LiveScan.read`: scan, monitor, calibrate).
///
/// When the queue is full the oldest sightings and ticks are dropped, the sightings counted
/// in `drops`; a change of health, a receiver's status, the end or a failure is never
/// dropped (`LiveInputQueue`). Call `stop()` when done: the source's task is cancelled rather than
/// awaited, because a source blocked in a read that ignores cancellation (standard input
/// from a silent pipe) must not hold its reader open.
struct LiveSightingFeed: Sendable {
    enum Input: Sendable {
        case sighting(Sighting)
        case tick(PassTime)
        case ended(PassTime)
        case failed(any Error)
        /// The input's health changed (`verify --watch`: a broker lost or back).
        case health(InputHealthChange, at: PassTime)
        /// A receiver said it is online or offline (`verify --watch`: its status topic).
        case receiverStatus(ReceiverStatusChange, at: PassTime)

        /// The time it was stamped with on the feed's clock; `nil` for a sighting (on its
        /// receiver's clock) and a failure.
        var time: PassTime? {
            switch self {
            case .tick(let time), .ended(let time), .health(_, let time), .receiverStatus(_, let time): time
            case .sighting, .failed: nil
            }
        }
    }

    let inputs: LiveInputQueue
    /// The time since the feed started.
    let elapsed: @Sendable () -> PassTime
    private let pump: Task<Void, Never>
    private let ticker: Task<Void, Never>
    private let healthPump: Task<Void, Never>?
    private let statusPump: Task<Void, Never>?

    /// `health` and `receiverStatus`, when given, are passed on as `.health` and
    /// `.receiverStatus` inputs, in the order of the queue. `elapsed`, when given, stamps
    /// the inputs instead of the feed's own stopwatch: a live scan's seconds, so that ticks
    /// and the scan's sightings are on one clock (it must run on `clock`). With `deadline`
    /// (a time on that clock), a tick comes at the deadline itself, and none after it.
    init<Sightings: AsyncSequence<Sighting, any Error> & Sendable>(
        _ sightings: Sightings, tick: Duration, queueLimit: Int, drops: DropCounter,
        health: AsyncStream<InputHealthChange>? = nil, receiverStatus: AsyncStream<ReceiverStatusChange>? = nil,
        clock: any Clock<Duration>, elapsed sourceElapsed: (@Sendable () -> Duration)? = nil, deadline: Duration? = nil
    ) {
        let sinceStart = Stopwatch(on: clock)
        let elapsedDuration: @Sendable () -> Duration = sourceElapsed ?? { sinceStart.elapsed }
        let elapsed: @Sendable () -> PassTime = { PassTime(sinceOrigin: elapsedDuration()) }
        let inputs = LiveInputQueue(limit: queueLimit, drops: drops)
        let enqueue: @Sendable (Input) -> Void = { input in inputs.push(input) }
        pump = Task {
            do {
                for try await sighting in sightings {
                    enqueue(.sighting(sighting))
                }
                enqueue(.ended(elapsed()))
            } catch {
                enqueue(.failed(error))
            }
        }
        ticker = Task {
            while true {
                var wait = tick
                if let deadline {
                    // Shortened to end on the deadline: a run of 2.7 s ends at 2.7 s, not at the
                    // next whole tick. Times of one clock, so the sleep ends at the deadline or after.
                    wait = min(tick, max(.zero, deadline - elapsedDuration()))
                }
                guard (try? await clock.sleep(for: wait)) != nil else { return }
                let now = elapsed()
                enqueue(.tick(now))
                if let deadline, now.sinceOrigin >= deadline { return }
            }
        }
        healthPump = health.map { health in
            Task {
                for await change in health {
                    enqueue(.health(change, at: elapsed()))
                }
            }
        }
        statusPump = receiverStatus.map { statuses in
            Task {
                for await change in statuses {
                    enqueue(.receiverStatus(change, at: elapsed()))
                }
            }
        }
        self.inputs = inputs
        self.elapsed = elapsed
    }

    /// Stops reading the source and ticking, and ends `inputs`.
    func stop() {
        pump.cancel()
        ticker.cancel()
        healthPump?.cancel()
        statusPump?.cancel()
        inputs.finish()
    }
}
