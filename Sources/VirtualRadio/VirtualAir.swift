import BeaconCore
import HCI
import Synchronization

/// A shared radio medium with a clock: virtual controllers join it, advertise on it and
/// hear each other through a ``PropagationModel``.
///
/// **Commands** are answered at once, at the current air time: a host awaiting Command
/// Complete never waits for the clock. **Advertising and scanning** are scheduled on the
/// clock: advertising events at the interval plus a random 0–10 ms advDelay, one PDU per
/// primary channel; a scanner hears a PDU when it falls whole inside one of its windows on
/// the channel it listens to; loss and RSSI are drawn from the propagation model, with the
/// advertiser's TX power and both positions at that moment.
///
/// **Time** runs in one of two ways:
/// - `.virtual`: the clock moves only through ``advance(by:)`` and ``run(until:)``, as fast
///   as the machine goes, every event in time order. For tests and simulations: drive the
///   clock while the hosts are idle (after their commands were answered), and read what
///   they received afterwards. A host that subscribes to `HostController.events` needs a
///   buffer for everything one step delivers (or smaller steps).
/// - `.realTime(speed:)`: the clock follows the wall clock (`speed` times as fast), driven
///   by a task of its own: what a live `beaconctl scan --hci virtual` needs.
///
/// **Reproducibility**: with virtual time, the same seed and the same commands at the same
/// air times give the same deliveries at the same times (``startRecording()``), whatever
/// the interleaving of host tasks; a different seed gives different ones.
///
/// **Connections** (see `AirState+Connections.swift`): LE (Extended) Create Connection
/// connects on the peer's next connectable PDU; ACL data crosses a link at the air time it
/// is sent, returned at once with Number Of Completed Packets; Disconnect ends both sides.
/// A controller with no host, driven by a ``VirtualPeripheral`` (a battery beacon's
/// firmware), joins with ``attachPeripheral(_:configuration:)``.
///
/// Not modelled, deliberately: collisions between simultaneous PDUs, scan requests and
/// responses, connection events and their timing, the secondary channels (extended
/// advertising data arrives with its ADV_EXT_IND), and the scheduling conflicts of several
/// sets on one controller.
public final class VirtualAir: Sendable {
    public enum TimeMode: Hashable, Sendable {
        /// The clock moves only when told to.
        case virtual
        /// The clock follows the wall clock, `speed` times as fast.
        case realTime(speed: Double = 1)
    }

    public struct Configuration: Hashable, Sendable {
        public var seed: UInt64
        public var propagation: PropagationModel
        public var timeMode: TimeMode
        /// What the beacons advertised on this air say of their battery (Eddystone-TLM beside
        /// each iBeacon); `nil`: no telemetry.
        public var beaconTelemetry: VirtualBeaconTelemetry?

        public init(
            seed: UInt64 = 1, propagation: PropagationModel = PropagationModel(), timeMode: TimeMode = .virtual,
            beaconTelemetry: VirtualBeaconTelemetry? = nil
        ) {
            self.seed = seed
            self.propagation = propagation
            self.timeMode = timeMode
            self.beaconTelemetry = beaconTelemetry
        }
    }

    /// Longest sleep of the real-time driver: advertising that a command starts while the
    /// driver sleeps until a later deadline still happens at its air time, and its reports
    /// reach the host at most this late.
    static let realTimeIdleStep: Duration = .milliseconds(20)

    public let name: String
    public let configuration: Configuration
    private let state: Mutex<AirState>
    private let wallOrigin: ContinuousClock.Instant
    private let driver = Mutex<Task<Void, Never>?>(nil)

    public init(name: String = "virtual", configuration: Configuration = Configuration()) {
        self.name = name
        self.configuration = configuration
        state = Mutex(AirState(
            seed: configuration.seed, propagation: configuration.propagation, beaconTelemetry: configuration.beaconTelemetry))
        wallOrigin = ContinuousClock.now
        if case .realTime = configuration.timeMode {
            startDriver()
        }
    }

    deinit {
        driver.withLock { $0?.cancel() }
    }

    // MARK: Time

    /// The current air time. With real time, the clock first catches up with the wall
    /// clock (delivering what fell due).
    public var now: AirTime {
        let target = wallClockTarget()
        return state.withLock { air in
            if let target { air.run(until: target) }
            return air.now
        }
    }

    /// Runs the air for `duration` more: every advertising event, reception and timeout in
    /// between happens, in order. With real time the clock jumps ahead; the wall clock
    /// catches up later.
    public func advance(by duration: Duration) {
        state.withLock { air in air.run(until: air.now.advanced(by: duration)) }
    }

    /// Runs the air up to `time` (nothing happens when it is already later).
    public func run(until time: AirTime) {
        state.withLock { air in air.run(until: time) }
    }

    /// When the next scheduled work is due, `nil` when nothing is scheduled.
    public var nextEventTime: AirTime? {
        state.withLock { $0.nextWorkTime }
    }

    /// How many air seconds pass per wall second in real-time mode: the configured speed,
    /// or 1 when that is not a positive finite number.
    private var speed: Double? {
        guard case .realTime(let speed) = configuration.timeMode else { return nil }
        return speed.isFinite && speed > 0 ? speed : 1
    }

    /// The air time the wall clock has reached, in real-time mode.
    private func wallClockTarget() -> AirTime? {
        guard let speed else { return nil }
        let elapsed = (ContinuousClock.now - wallOrigin).secondsValue * speed * 1_000_000
        return AirTime(microseconds: elapsed > 0 ? UInt64(min(elapsed, Double(UInt64.max / 2))) : 0)
    }

    private func startDriver() {
        let task = Task { [weak self] in
            while !Task.isCancelled {
                // The air is only held while catching up, so that dropping it ends the driver.
                guard let pause = self?.catchUpWithWallClock() else { return }
                do {
                    try await Task.sleep(for: pause)
                } catch {
                    return
                }
            }
        }
        driver.withLock { $0 = task }
    }

    /// Runs the air up to the wall clock; returns how long to sleep before the next work.
    private func catchUpWithWallClock() -> Duration {
        guard let target = wallClockTarget(), let speed else { return Self.realTimeIdleStep }
        return state.withLock { air in
            air.run(until: target)
            guard let next = air.nextWorkTime else { return Self.realTimeIdleStep }
            let wait = Duration.microseconds(Int64(clamping: next.microseconds - target.microseconds)) / speed
            return min(max(wait, .microseconds(100)), Self.realTimeIdleStep)
        }
    }

    // MARK: Controllers

    /// Adds a controller to the air and returns the transport its host talks to.
    /// `name` is the transport's name in messages (the transport spec it was opened from).
    public func attachController(
        _ configuration: VirtualControllerConfiguration = VirtualControllerConfiguration(), name: String? = nil
    ) -> VirtualControllerTransport {
        let (incoming, toHost) = AsyncThrowingStream.makeStream(of: HCIPacket.self, throwing: (any Error).self)
        let target = wallClockTarget()
        let controller = state.withLock { air in
            if let target { air.run(until: target) }
            return air.attach(configuration, toHost: toHost)
        }
        let id = VirtualControllerID(slot: controller.slot)
        return VirtualControllerTransport(
            name: name ?? "virtual:\(self.name) \(id)", incoming: incoming, air: self, controller: id,
            address: controller.publicAddress)
    }

    /// Adds a controller that `peripheral` drives instead of a host (a battery beacon): it
    /// starts advertising what the peripheral asks for at once, and takes connections.
    @discardableResult
    public func attachPeripheral(
        _ peripheral: any VirtualPeripheral, configuration: VirtualControllerConfiguration = VirtualControllerConfiguration()
    ) -> VirtualControllerID {
        // Nobody reads this controller's host stream: it is finished from the start.
        let (_, toHost) = AsyncThrowingStream.makeStream(of: HCIPacket.self, throwing: (any Error).self)
        toHost.finish()
        let target = wallClockTarget()
        let controller = state.withLock { air in
            if let target { air.run(until: target) }
            return air.attach(peripheral, configuration, toHost: toHost)
        }
        return VirtualControllerID(slot: controller.slot)
    }

    /// The program of a controller added with ``attachPeripheral(_:configuration:)``, as it
    /// is now (a copy); `nil` for a controller with a host, or one that left the air.
    public func peripheral(_ controller: VirtualControllerID) -> (any VirtualPeripheral)? {
        state.withLock { $0.peripheral(controller.slot) }
    }

    /// The public addresses of the controllers added with ``attachPeripheral(_:configuration:)``
    /// that are still on the air.
    public var peripheralAddresses: [BluetoothAddress] {
        state.withLock { air in
            air.peripherals.keys.sorted().compactMap { air.controller($0)?.publicAddress }
        }
    }

    /// The controllers added with ``attachPeripheral(_:configuration:)`` still on the air.
    public var peripheralIDs: [VirtualControllerID] {
        state.withLock { air in air.peripherals.keys.sorted().map(VirtualControllerID.init(slot:)) }
    }

    /// Takes a controller off the air: a host's or a peripheral's.
    public func remove(_ controller: VirtualControllerID) {
        detach(controller)
    }

    func receive(_ packet: HCIPacket, from controller: VirtualControllerID) {
        let target = wallClockTarget()
        state.withLock { air in
            if let target { air.run(until: target) }
            air.receiveFromHost(packet, slot: controller.slot)
        }
    }

    func detach(_ controller: VirtualControllerID) {
        state.withLock { $0.detach(controller.slot) }
    }

    func isAttached(_ controller: VirtualControllerID) -> Bool {
        state.withLock { $0.controller(controller.slot) != nil }
    }

    /// Moves a controller: from now on it is where `motion` says (a walk starts now).
    public func setMotion(_ motion: Motion, of controller: VirtualControllerID) {
        state.withLock { $0.setMotion(motion, of: controller.slot) }
    }

    /// Where a controller is now; `nil` once it left the air.
    public func position(of controller: VirtualControllerID) -> PlanPoint? {
        let time = now
        return state.withLock { $0.controller(controller.slot)?.position(at: time) }
    }

    // MARK: Scenario

    /// Makes every advertisement carrying the iBeacon `identity` come from `position`,
    /// whichever controller sends it: a scenario lays out a fleet this way while one host
    /// advertises all its beacons from one controller.
    public func placeBeacon(_ identity: BeaconIdentity, at position: PlanPoint) {
        state.withLock { $0.beaconPlacements[identity] = position }
    }

    public func beaconPlacement(of identity: BeaconIdentity) -> PlanPoint? {
        state.withLock { $0.beaconPlacements[identity] }
    }

    /// Names a place where controllers can be opened (`virtual:AIR/NAME`); replaces any
    /// place of that name.
    public func definePlace(_ name: String, _ place: VirtualPlace) {
        state.withLock { $0.places[name] = place }
    }

    public func place(named name: String) -> VirtualPlace? {
        state.withLock { $0.places[name] }
    }

    public var placeNames: [String] {
        state.withLock { $0.places.keys.sorted() }
    }

    /// The propagation model in force; changing it affects every later reception.
    public var propagation: PropagationModel {
        get { state.withLock { $0.propagation } }
        set { state.withLock { $0.propagation = newValue } }
    }

    /// The beacons' telemetry in force (first from `Configuration.beaconTelemetry`);
    /// changing it affects every later advertising event.
    public var beaconTelemetry: VirtualBeaconTelemetry? {
        get { state.withLock { $0.beaconTelemetry } }
        set { state.withLock { $0.beaconTelemetry = newValue } }
    }

    // MARK: Observation

    public var statistics: AirStatistics {
        state.withLock { $0.statistics }
    }

    /// Starts keeping every packet delivered to a host, with its air time (clears what was kept).
    public func startRecording() {
        state.withLock { $0.recording = [] }
    }

    /// What was delivered since ``startRecording()``, and stops recording.
    @discardableResult
    public func stopRecording() -> [AirDelivery] {
        state.withLock { air in
            defer { air.recording = nil }
            return air.recording ?? []
        }
    }

    /// What was delivered since ``startRecording()``, recording going on.
    public var recordedDeliveries: [AirDelivery] {
        state.withLock { $0.recording ?? [] }
    }

    /// Takes every controller off the air (their hosts' streams end) and stops the
    /// real-time driver. The air can be used again afterwards.
    public func shutdown() {
        state.withLock { air in
            for slot in air.slots.indices {
                air.detach(slot)
            }
        }
        driver.withLock { $0?.cancel() }
    }
}
