import BeaconCore
import HCI

/// Everything one virtual controller remembers between commands: event masks, the command
/// family in use, addresses, advertising sets, the scanner. Pure state, no I/O: commands
/// come in through `handle(_:at:)`, and what must happen on the air later comes back as
/// ``ControllerWork`` for the air to schedule.
struct ControllerState {
    let slot: Int
    let configuration: VirtualControllerConfiguration
    let publicAddress: BluetoothAddress
    /// Where the controller is over time, and since when: a walk starts when the controller
    /// joins the air or is given a new motion.
    var motion: Motion
    var motionStart: AirTime
    private let seed: UInt64

    var eventMask = HCIEventMask.specDefault
    var leEventMask = LEEventMask.specDefault
    /// The advertising command family used since the last Reset (Core v5.4 Vol 4 Part E 3.1.1).
    var family: CommandFamily?
    /// LE Set Random Address: the random address of legacy advertising and of scanning.
    var randomAddress: BluetoothAddress?
    var sets: [UInt16: AdvertisingSet] = [:]
    var scan = ScanState()
    /// The connection attempt LE (Extended) Create Connection started, until it connects or is cancelled.
    var initiating: ConnectionAttempt?
    /// The receiver's random stream: packet loss and shadowing of what it hears.
    var receptionGenerator: SeededGenerator
    private var generationCounter: UInt32 = 0

    init(slot: Int, configuration: VirtualControllerConfiguration, seed: UInt64, joinedAt: AirTime) {
        self.slot = slot
        self.configuration = configuration.normalized
        self.publicAddress = configuration.address ?? VirtualControllerConfiguration.defaultAddress(slot: slot)
        self.motion = configuration.motion
        self.motionStart = joinedAt
        self.seed = seed
        receptionGenerator = SeededGenerator(seed: seed, stream: Self.receptionStream(slot: slot))
        sets[AdvertisingSet.legacyKey] = makeLegacySet()
    }

    // Stream numbers: one per receiver and one per (controller, set), never the same.
    private static func receptionStream(slot: Int) -> UInt64 { 1 << 40 | UInt64(truncatingIfNeeded: slot) }
    private func setStream(key: UInt16) -> UInt64 { 2 << 40 | UInt64(truncatingIfNeeded: slot) << 16 | UInt64(key) }

    func makeLegacySet() -> AdvertisingSet {
        AdvertisingSet(
            key: AdvertisingSet.legacyKey,
            generator: SeededGenerator(seed: seed, stream: setStream(key: AdvertisingSet.legacyKey)),
            txPower: configuration.legacyTxPower)
    }

    func makeExtendedSet(handle: AdvertisingHandle) -> AdvertisingSet {
        let key = UInt16(handle.rawValue)
        var set = AdvertisingSet(
            key: key, generator: SeededGenerator(seed: seed, stream: setStream(key: key)),
            txPower: configuration.defaultTxPower)
        set.properties = .legacyNonConnectable
        return set
    }

    /// A generation number never handed out before on this controller.
    mutating func nextGeneration() -> UInt32 {
        generationCounter &+= 1
        return generationCounter
    }

    /// Where the controller is at `time`.
    func position(at time: AirTime) -> PlanPoint {
        guard case .walking = motion else { return motion.position(afterSeconds: 0) }
        let elapsed = time.microseconds > motionStart.microseconds ? time.microseconds - motionStart.microseconds : 0
        return motion.position(afterSeconds: Double(elapsed) / 1_000_000)
    }

    /// Whether the masks let an LE Meta event with `subevent` through (Core v5.4 Vol 4
    /// Part E 7.3.1 and 7.8.1): LE Meta itself must be unmasked, and the subevent.
    func allows(_ subevent: LESubeventCode) -> Bool {
        guard eventMask.contains(.leMeta), let bit = LEEventMask(subeventCode: subevent.rawValue) else { return false }
        return leEventMask.contains(bit)
    }

    /// The address a set transmits from, and its type as reports give it.
    func advertiserAddress(of set: AdvertisingSet) -> (address: BluetoothAddress, type: LEAddressType) {
        switch set.ownAddressType {
        case .public, .resolvableOrPublic:
            // Without a resolving list the controller falls back to the identity address.
            return (publicAddress, .public)
        case .random, .resolvableOrRandom:
            let random = set.isLegacyAdvertising ? randomAddress : set.randomAddress
            return (random ?? .zero, .random)
        }
    }

    /// Whether a set with `ownAddressType` lacks the random address it would send from.
    func lacksRandomAddress(_ set: AdvertisingSet) -> Bool {
        guard set.ownAddressType == .random || set.ownAddressType == .resolvableOrRandom else { return false }
        return (set.isLegacyAdvertising ? randomAddress : set.randomAddress) == nil
    }

    /// The set under `key` with `generation`, if it still runs that generation.
    func runningSet(_ key: UInt16, generation: UInt32) -> AdvertisingSet? {
        guard let set = sets[key], set.isEnabled, set.generation == generation else { return nil }
        return set
    }
}

extension AdvertisingSet {
    /// Whether this is legacy advertising (LE Set Advertising …) rather than an extended set.
    var isLegacyAdvertising: Bool { key == AdvertisingSet.legacyKey }
}

/// What a command asks of the air beyond its answer.
enum ControllerWork: Equatable {
    /// Send the PDU of channel `channelIndex` of an advertising event of a set.
    case advertisingPDU(setKey: UInt16, channelIndex: Int, at: AirTime, generation: UInt32)
    /// Stop a set whose Duration ran out.
    case advertisingTimeout(setKey: UInt16, at: AirTime, generation: UInt32)
    /// Stop extended scanning whose Duration ran out.
    case scanTimeout(at: AirTime, generation: UInt32)
}

/// The answer to a command and its consequences.
struct CommandOutcome {
    /// Command Complete return parameters, status first.
    var returnParameters: [UInt8]
    var work: [ControllerWork] = []
    /// Whether the scanner started or stopped.
    var scanningChanged = false

    static func status(_ status: HCIStatus, _ opcode: HCIOpcode) -> CommandOutcome {
        CommandOutcome(returnParameters: CommandAnswers.failure(status, opcode: opcode))
    }
}
