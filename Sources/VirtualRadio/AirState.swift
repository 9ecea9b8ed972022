import BeaconCore
import HCI

/// The mutable heart of an air, always used under its lock: the clock, the controllers,
/// the queue of scheduled work, and what was placed where.
struct AirState {
    /// A controller on the air and the stream its host reads.
    struct Slot {
        var controller: ControllerState
        let toHost: AsyncThrowingStream<HCIPacket, any Error>.Continuation
    }

    let seed: UInt64
    var propagation: PropagationModel
    private(set) var now = AirTime.zero
    var slots: [Slot?] = []
    var queue = WorkQueue()
    /// Slots of the controllers whose scanner runs: the only ones a PDU must visit.
    private var scanners: [Int] = []
    /// Slots of the controllers with a connection attempt pending, in slot order.
    var initiators: [Int] = []
    /// Open connections by handle (one handle per link, known to both ends).
    var links: [UInt16: AirLink] = [:]
    /// The handle given to the last link made.
    var lastHandle: UInt16 = 0
    /// The programs of the controllers that have no host (battery beacons), by slot.
    var peripherals: [Int: any VirtualPeripheral] = [:]
    /// Beacons placed by identity: their advertising comes from there, whichever controller sends it.
    var beaconPlacements: [BeaconIdentity: PlanPoint] = [:]
    var places: [String: VirtualPlace] = [:]
    /// What beacons say of their health beside their iBeacon; `nil`: nothing.
    var beaconTelemetry: VirtualBeaconTelemetry?
    var statistics = AirStatistics()
    /// Every delivery since recording started; `nil` when not recording.
    var recording: [AirDelivery]?

    init(seed: UInt64, propagation: PropagationModel, beaconTelemetry: VirtualBeaconTelemetry? = nil) {
        self.seed = seed
        self.propagation = propagation
        self.beaconTelemetry = beaconTelemetry
    }

    var nextWorkTime: AirTime? { queue.nextTime }

    // MARK: Controllers

    mutating func attach(
        _ configuration: VirtualControllerConfiguration,
        toHost: AsyncThrowingStream<HCIPacket, any Error>.Continuation
    ) -> ControllerState {
        let controller = ControllerState(slot: slots.count, configuration: configuration, seed: seed, joinedAt: now)
        slots.append(Slot(controller: controller, toHost: toHost))
        return controller
    }

    /// Adds a controller driven by `peripheral` instead of a host, and starts its advertising.
    mutating func attach(
        _ peripheral: any VirtualPeripheral, _ configuration: VirtualControllerConfiguration,
        toHost: AsyncThrowingStream<HCIPacket, any Error>.Continuation
    ) -> ControllerState {
        let controller = attach(configuration, toHost: toHost)
        peripherals[controller.slot] = peripheral
        startPeripheralAdvertising(controller.slot)
        return controller
    }

    /// The program of a host-less controller, as it is now.
    func peripheral(_ slot: Int) -> (any VirtualPeripheral)? {
        peripherals[slot]
    }

    /// Takes the controller off the air: its advertising and scanning stop, its host's
    /// stream finishes. Idempotent. Its queued work stays and is dropped when due, as that
    /// of a stopped set is: the slot is empty by then.
    mutating func detach(_ slot: Int) {
        guard slots.indices.contains(slot), let detached = slots[slot] else { return }
        loseConnections(of: slot)
        slots[slot] = nil
        peripherals[slot] = nil
        scanners.removeAll { $0 == slot }
        detached.toHost.finish()
    }

    func controller(_ slot: Int) -> ControllerState? {
        slots.indices.contains(slot) ? slots[slot]?.controller : nil
    }

    mutating func setMotion(_ motion: Motion, of slot: Int) {
        guard slots.indices.contains(slot) else { return }
        slots[slot]?.controller.motion = motion
        slots[slot]?.controller.motionStart = now
    }

    // MARK: Commands

    /// Handles one packet from the host of `slot` at the current time.
    mutating func receiveFromHost(_ packet: HCIPacket, slot: Int) {
        guard slots.indices.contains(slot), slots[slot] != nil, peripherals[slot] == nil else { return }
        // LE connections carry ACL data only: SCO and ISO data are dropped.
        if packet.type == .acl {
            receiveACL(packet, slot: slot)
            return
        }
        guard packet.type == .command else { return }
        statistics.commandsHandled += 1
        let command: HCICommandPacket
        do {
            command = try HCICommandPacket(packet: packet)
        } catch {
            answerMalformed(packet, slot: slot)
            return
        }
        if handleConnectionCommand(command, slot: slot) { return }
        if command.opcode == .reset {
            // Reset ends the controller's links and attempt without a word to its host (7.3.2).
            loseConnections(of: slot)
        }
        guard let outcome = slots[slot]?.controller.handle(command, at: now) else { return }
        deliver(Self.commandComplete(command.opcode, outcome.returnParameters), to: slot, at: now)
        for work in outcome.work {
            schedule(work, slot: slot)
        }
        if outcome.scanningChanged || command.opcode == .reset {
            updateScanners()
        }
    }

    /// A command packet whose length octet disagrees with its size: Invalid HCI Command
    /// Parameters for its opcode when there is one, else a bare credit (opcode 0x0000) so
    /// the host is never left without one.
    private mutating func answerMalformed(_ packet: HCIPacket, slot: Int) {
        guard packet.body.count >= 2 else {
            deliver(Self.commandComplete(.nop, []), to: slot, at: now)
            return
        }
        let opcode = HCIOpcode(rawValue: UInt16(packet.body[0]) | UInt16(packet.body[1]) << 8)
        deliver(
            Self.commandComplete(opcode, CommandAnswers.failure(.invalidHCICommandParameters, opcode: opcode)),
            to: slot, at: now)
    }

    /// Command Complete with one command credit: the virtual controller handles one
    /// command at a time (Num_HCI_Command_Packets = 1).
    static func commandComplete(_ opcode: HCIOpcode, _ returnParameters: [UInt8]) -> HCIPacket? {
        try? HCIEvent.commandComplete(HCIEvent.CommandComplete(
            numHCICommandPackets: 1, opcode: opcode, returnParameters: returnParameters)).packet()
    }

    mutating func schedule(_ work: ControllerWork, slot: Int) {
        switch work {
        case .advertisingPDU(let key, let channelIndex, let time, let generation):
            queue.push(ScheduledWork(
                time: time.microseconds, slot: slot, key: key, kind: .advertisingPDU, channelIndex: channelIndex,
                generation: generation))
        case .advertisingTimeout(let key, let time, let generation):
            queue.push(ScheduledWork(
                time: time.microseconds, slot: slot, key: key, kind: .advertisingTimeout, channelIndex: 0,
                generation: generation))
        case .scanTimeout(let time, let generation):
            queue.push(ScheduledWork(
                time: time.microseconds, slot: slot, key: 0, kind: .scanTimeout, channelIndex: 0, generation: generation))
        }
    }

    private mutating func updateScanners() {
        scanners = slots.indices.filter { slots[$0]?.controller.scan.isEnabled == true }
    }

    // MARK: Time

    /// Runs every piece of work due up to `target`, in time order, then sets the clock to
    /// `target` (never backwards).
    mutating func run(until target: AirTime) {
        while let work = queue.popFirst(notAfter: target) {
            now = max(now, AirTime(microseconds: work.time))
            perform(work)
        }
        now = max(now, target)
    }

    private mutating func perform(_ work: ScheduledWork) {
        switch work.kind {
        case .advertisingPDU:
            sendAdvertisingPDU(work)
        case .advertisingTimeout:
            guard controller(work.slot)?.runningSet(work.key, generation: work.generation) != nil else { return }
            terminate(setKey: work.key, slot: work.slot, status: .advertisingTimeout)
        case .scanTimeout:
            guard let scan = controller(work.slot)?.scan, scan.isEnabled, scan.generation == work.generation else { return }
            slots[work.slot]?.controller.stopScanning()
            updateScanners()
            if controller(work.slot)?.allows(.scanTimeout) == true {
                deliver(try? HCIEvent.le(.scanTimeout).packet(), to: work.slot, at: now)
            }
        case .linkSupervisionTimeout:
            // The other end went silent: Connection Timeout (0x08).
            notifyEnd(work.key, slot: work.slot, reason: .connectionTimeout)
        }
    }

    /// Stops an extended set that ran out of time or events, with LE Advertising Set
    /// Terminated (Core v5.4 Vol 4 Part E 7.7.65.18).
    private mutating func terminate(setKey key: UInt16, slot: Int, status: HCIStatus) {
        guard let set = controller(slot)?.sets[key] else { return }
        slots[slot]?.controller.stopAdvertising(key)
        guard let handle = AdvertisingHandle(rawValue: UInt8(truncatingIfNeeded: key)), key != AdvertisingSet.legacyKey,
            controller(slot)?.allows(.advertisingSetTerminated) == true
        else { return }
        let terminated = LEAdvertisingSetTerminated(
            status: status, handle: handle, connectionHandle: 0,
            completedExtendedAdvertisingEvents: UInt8(min(set.completedEvents, 255)))
        deliver(try? HCIEvent.le(.advertisingSetTerminated(terminated)).packet(), to: slot, at: now)
    }

    // MARK: Delivery

    mutating func deliver(_ packet: HCIPacket?, to slot: Int, at time: AirTime) {
        guard let packet, slots.indices.contains(slot), slots[slot] != nil else { return }
        statistics.deliveredPackets += 1
        recording?.append(AirDelivery(time: time, controller: VirtualControllerID(slot: slot), packet: packet))
        slots[slot]?.toHost.yield(packet)
    }

    // MARK: Advertising

    /// Sends one PDU of an advertising event to every scanner, then queues the next PDU of
    /// the event, or the next event: interval + a fresh advDelay after this one started.
    ///
    /// The hot path of the simulation: the controller and its sets are read and changed in
    /// place, never copied (a copy would make the next write copy the whole set table).
    private mutating func sendAdvertisingPDU(_ work: ScheduledWork) {
        let slot = work.slot
        guard slots.indices.contains(slot),
            let set = slots[slot]?.controller.runningSet(work.key, generation: work.generation)
        else { return }
        let time = AirTime(microseconds: work.time)
        // A beacon's telemetry event sends the TLM frame on every channel after the iBeacon.
        let telemetry = beaconTelemetry.flatMap { telemetry in
            set.beaconIdentity != nil && !set.isDirected && telemetry.carriesTelemetry(event: set.completedEvents) ? telemetry : nil
        }
        // A peripheral's second frame goes round the channels after the first, before any TLM.
        let second = set.secondData
        let framesPerEvent = 1 + (second == nil ? 0 : 1) + (telemetry == nil ? 0 : 1)
        let pduCount = set.channels.count * framesPerEvent
        if work.channelIndex < pduCount {
            if work.channelIndex == 0 { statistics.advertisingEvents += 1 }
            let channel = set.channels[work.channelIndex % set.channels.count]
            let frame = work.channelIndex / set.channels.count
            if frame == 1, let second {
                transmit(set, channel: channel, from: slot, at: time, data: second)
            } else if frame > 0, let telemetry {
                let sent = UInt64(set.completedEvents) * UInt64(set.channels.count) + UInt64(work.channelIndex)
                transmit(set, channel: channel, from: slot, at: time, data: telemetry.advertisingData(at: time, advertisingCount: sent))
            } else {
                transmit(set, channel: channel, from: slot, at: time)
            }
        }
        if work.channelIndex + 1 < pduCount {
            queue.push(ScheduledWork(
                time: time.advanced(byMicroseconds: set.pduSpacingMicroseconds).microseconds, slot: slot, key: set.key, kind: .advertisingPDU,
                channelIndex: work.channelIndex + 1, generation: set.generation))
            return
        }
        switch slots[slot]?.controller.completeAdvertisingEvent(set.key) {
        case .next(let start)?:
            queue.push(ScheduledWork(
                time: start.microseconds, slot: slot, key: set.key, kind: .advertisingPDU, channelIndex: 0,
                generation: set.generation))
        case .limitReached?:
            terminate(setKey: set.key, slot: slot, status: .limitReached)
        case nil:
            break
        }
    }

    /// Sends `data` (the set's own when `nil`) on `channel` to every scanner.
    private mutating func transmit(_ set: AdvertisingSet, channel: UInt8, from slot: Int, at time: AirTime, data: [UInt8]? = nil) {
        statistics.transmittedPDUs += 1
        if !initiators.isEmpty, set.properties.contains(.connectable),
            let (address, addressType) = slots[slot]?.controller.advertiserAddress(of: set)
        {
            connectInitiator(to: set, from: slot, address: address, addressType: addressType, at: time)
        }
        guard !scanners.isEmpty,
            let (address, addressType) = slots[slot]?.controller.advertiserAddress(of: set),
            let position = set.beaconIdentity.flatMap({ beaconPlacements[$0] }) ?? slots[slot]?.controller.position(at: time)
        else { return }
        let transmission = Transmission(
            transmitter: slot, time: time, durationMicroseconds: set.primaryPDUDurationMicroseconds,
            channel: channel, phy: set.primaryPHY, properties: set.properties, address: address,
            addressType: addressType, target: set.isDirected ? set.peerAddress : nil,
            data: set.isDirected && set.isLegacy ? [] : data ?? set.data, txPower: set.txPower, sid: set.sid,
            secondaryPHY: set.secondaryPHY, position: position)
        for receiver in scanners {
            guard let outcome = slots[receiver]?.controller.receive(transmission, model: propagation) else { continue }
            switch outcome {
            case .notListening:
                break
            case .lost:
                statistics.lostPDUs += 1
            case .duplicate:
                statistics.receivedPDUs += 1
                statistics.duplicatesFiltered += 1
            case .masked:
                statistics.receivedPDUs += 1
                statistics.maskedReports += 1
            case .reported(let packets):
                statistics.receivedPDUs += 1
                for packet in packets {
                    deliver(packet, to: receiver, at: time)
                }
            }
        }
    }
}
