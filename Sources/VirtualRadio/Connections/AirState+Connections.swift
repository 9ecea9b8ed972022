import BeaconCore
import HCI

/// Connections between controllers of the air (Core v5.4 Vol 4 Part E 7.1.6, 7.8.12,
/// 7.8.13, 7.8.66; Vol 6 Part B 4.5).
///
/// An initiator connects on the first connectable PDU its peer sends after the attempt
/// started, wherever the two stand (distance and loss do not stop a connection), and an
/// attempt to an address nobody advertises connectably stays pending until cancelled.
/// Data crosses a link at the air time it is sent: connection events are not modelled, so
/// a reply comes back at the moment of the request. A link ends by Disconnect from either
/// side, or when one side leaves the air or is reset: the other then learns of it with
/// Connection Timeout (0x08) once the supervision timeout has passed on the air's clock.
extension AirState {
    // MARK: Commands

    /// Answers the connection commands; false for any other opcode (the controller's own
    /// table answers those).
    mutating func handleConnectionCommand(_ command: HCICommandPacket, slot: Int) -> Bool {
        guard let controller = controller(slot) else { return false }
        let opcode = command.opcode
        switch opcode {
        case .leCreateConnection, .leExtendedCreateConnection:
            createConnection(command, slot: slot, controller: controller)
        case .leCreateConnectionCancel:
            cancelConnection(command, slot: slot, controller: controller)
        case .disconnect:
            disconnect(command, slot: slot)
        default:
            return false
        }
        return true
    }

    /// LE Create Connection (7.8.12) or LE Extended Create Connection (7.8.66): Command
    /// Status, then the attempt waits for its peer's advertising.
    private mutating func createConnection(_ command: HCICommandPacket, slot: Int, controller: ControllerState) {
        let opcode = command.opcode
        let extended = opcode == .leExtendedCreateConnection
        let supportsExtended = controller.configuration.supportsExtendedAdvertising
        if extended && !supportsExtended {
            deliver(ConnectionEvents.commandStatus(.unknownHCICommand, opcode), to: slot, at: now)
            return
        }
        // The two families stay apart once one was used (3.1.1), as for advertising and scanning.
        if supportsExtended {
            let family: CommandFamily = extended ? .extended : .legacy
            if let used = controller.family, used != family {
                deliver(ConnectionEvents.commandStatus(.commandDisallowed, opcode), to: slot, at: now)
                return
            }
            slots[slot]?.controller.family = family
        }
        let request: (peer: BluetoothAddress, peerType: PeerAddressType, own: OwnAddressType, parameters: LEConnectionParameters)
        do {
            if extended {
                let decoded = try LEExtendedCreateConnection.decodeParameters(command.parameters[...])
                request = (decoded.peerAddress, decoded.peerAddressType, decoded.ownAddressType, decoded.connection)
            } else {
                let decoded = try LECreateConnection.decodeParameters(command.parameters[...])
                request = (decoded.peerAddress, decoded.peerAddressType, decoded.ownAddressType, decoded.connection)
            }
        } catch {
            deliver(ConnectionEvents.commandStatus(.invalidHCICommandParameters, opcode), to: slot, at: now)
            return
        }
        // One attempt at a time (7.8.12: Command Disallowed while one is pending).
        guard controller.initiating == nil else {
            deliver(ConnectionEvents.commandStatus(.commandDisallowed, opcode), to: slot, at: now)
            return
        }
        let own: (address: BluetoothAddress, type: LEAddressType)
        switch request.own {
        case .public, .resolvableOrPublic:
            own = (controller.publicAddress, .public)
        case .random, .resolvableOrRandom:
            // A random own address needs LE Set Random Address first (7.8.12).
            guard let random = controller.randomAddress else {
                deliver(ConnectionEvents.commandStatus(.invalidHCICommandParameters, opcode), to: slot, at: now)
                return
            }
            own = (random, .random)
        }
        slots[slot]?.controller.initiating = ConnectionAttempt(
            peerAddress: request.peer, peerAddressType: request.peerType, ownAddress: own.address, ownAddressType: own.type,
            parameters: request.parameters, extended: extended)
        initiators.append(slot)
        initiators.sort()
        deliver(ConnectionEvents.commandStatus(.success, opcode), to: slot, at: now)
    }

    /// LE Create Connection Cancel (7.8.13): Command Disallowed when no attempt is pending;
    /// else Command Complete, then the connection-complete event with Unknown Connection
    /// Identifier (0x02).
    private mutating func cancelConnection(_ command: HCICommandPacket, slot: Int, controller: ControllerState) {
        let opcode = command.opcode
        guard command.parameters.isEmpty else {
            deliver(Self.commandComplete(opcode, [HCIStatus.invalidHCICommandParameters.rawValue]), to: slot, at: now)
            return
        }
        guard let attempt = controller.initiating else {
            deliver(Self.commandComplete(opcode, [HCIStatus.commandDisallowed.rawValue]), to: slot, at: now)
            return
        }
        endAttempt(slot)
        deliver(Self.commandComplete(opcode, [HCIStatus.success.rawValue]), to: slot, at: now)
        let cancelled = LEConnectionComplete(
            status: .unknownConnectionIdentifier, connectionHandle: 0, role: .central,
            peerAddressType: LEAddressType(rawValue: attempt.peerAddressType.rawValue), peerAddress: attempt.peerAddress,
            interval: 0, latency: 0, supervisionTimeout: 0)
        if let controller = self.controller(slot) {
            deliver(ConnectionEvents.connectionComplete(cancelled, for: controller), to: slot, at: now)
        }
    }

    /// Disconnect (7.1.6): Command Status, then Disconnection Complete on both sides: Connection
    /// Terminated By Local Host (0x16) here, the reason given to the peer.
    private mutating func disconnect(_ command: HCICommandPacket, slot: Int) {
        let opcode = command.opcode
        guard let request = try? Disconnect.decodeParameters(command.parameters[...]) else {
            deliver(ConnectionEvents.commandStatus(.invalidHCICommandParameters, opcode), to: slot, at: now)
            return
        }
        guard let link = links[request.connectionHandle], link.includes(slot) else {
            deliver(ConnectionEvents.commandStatus(.unknownConnectionIdentifier, opcode), to: slot, at: now)
            return
        }
        guard Self.disconnectReasons.contains(request.reason.rawValue) else {
            deliver(ConnectionEvents.commandStatus(.invalidHCICommandParameters, opcode), to: slot, at: now)
            return
        }
        deliver(ConnectionEvents.commandStatus(.success, opcode), to: slot, at: now)
        endLink(link.handle, closedBy: slot, reason: request.reason)
    }

    /// The reasons Disconnect accepts (7.1.6): Authentication Failure, Remote User Terminated,
    /// Low Resources, Power Off, Unsupported Remote Feature, Pairing With Unit Key Not
    /// Supported, Unacceptable Connection Parameters.
    static let disconnectReasons: Set<UInt8> = [0x05, 0x13, 0x14, 0x15, 0x1A, 0x29, 0x3B]

    // MARK: Establishing

    /// Called for each connectable PDU: connects the first pending initiator (by slot) that
    /// wants this advertiser. A directed PDU connects only the initiator it is addressed to.
    mutating func connectInitiator(
        to set: AdvertisingSet, from slot: Int, address: BluetoothAddress, addressType: LEAddressType, at time: AirTime
    ) {
        for initiator in initiators where initiator != slot {
            guard let attempt = controller(initiator)?.initiating, attempt.targets(address, addressType) else { continue }
            if set.isDirected && set.peerAddress != attempt.ownAddress { continue }
            establish(initiator: initiator, attempt: attempt, advertiser: slot, set: set, address: address, addressType: addressType, at: time)
            return
        }
    }

    private mutating func establish(
        initiator: Int, attempt: ConnectionAttempt, advertiser: Int, set: AdvertisingSet, address: BluetoothAddress,
        addressType: LEAddressType, at time: AirTime
    ) {
        guard let handle = allocateHandle() else { return }  // Every handle in use: the attempt stays pending.
        endAttempt(initiator)
        // A connection stops the advertising it answered (7.8.9 for legacy, 7.8.56 for a set).
        slots[advertiser]?.controller.stopAdvertising(set.key)
        let parameters = attempt.parameters
        let link = AirLink(
            handle: handle, central: initiator, peripheral: advertiser, interval: parameters.intervalMinimum,
            latency: parameters.maximumLatency, supervisionTimeout: parameters.supervisionTimeout)
        links[handle] = link
        statistics.connectionsMade += 1
        if let central = controller(initiator) {
            let complete = LEConnectionComplete(
                status: .success, connectionHandle: handle, role: .central, peerAddressType: addressType, peerAddress: address,
                interval: link.interval, latency: link.latency, supervisionTimeout: link.supervisionTimeout)
            deliver(ConnectionEvents.connectionComplete(complete, for: central), to: initiator, at: time)
        }
        if peripherals[advertiser] != nil {
            peripherals[advertiser]?.connected(handle: handle, central: attempt.ownAddress, at: time)
            return
        }
        guard let peripheral = controller(advertiser) else { return }
        let complete = LEConnectionComplete(
            status: .success, connectionHandle: handle, role: .peripheral, peerAddressType: attempt.ownAddressType,
            peerAddress: attempt.ownAddress, interval: link.interval, latency: link.latency,
            supervisionTimeout: link.supervisionTimeout)
        deliver(ConnectionEvents.connectionComplete(complete, for: peripheral), to: advertiser, at: time)
        // An extended set ended by a connection says so after the connection event (7.7.65.18).
        if !set.isLegacyAdvertising, peripheral.allows(.advertisingSetTerminated),
            let advertisingHandle = AdvertisingHandle(rawValue: UInt8(truncatingIfNeeded: set.key))
        {
            let terminated = LEAdvertisingSetTerminated(
                status: .success, handle: advertisingHandle, connectionHandle: handle,
                completedExtendedAdvertisingEvents: UInt8(min(set.completedEvents, 255)))
            deliver(try? HCIEvent.le(.advertisingSetTerminated(terminated)).packet(), to: advertiser, at: time)
        }
    }

    /// The next free handle after the last one given (0x0000–0x0EFF, Core v5.4 Vol 4 Part E
    /// 5.4.2), so that a handle just released is not at once given to another link.
    private mutating func allocateHandle() -> UInt16? {
        for _ in 0...Int(ACLDataPacket.maximumHandle) {
            lastHandle = lastHandle >= ACLDataPacket.maximumHandle ? 0 : lastHandle + 1
            if links[lastHandle] == nil { return lastHandle }
        }
        return nil
    }

    private mutating func endAttempt(_ slot: Int) {
        slots[slot]?.controller.initiating = nil
        initiators.removeAll { $0 == slot }
    }

    // MARK: Data

    /// One ACL packet from the host of `slot`: returned at once with Number Of Completed
    /// Packets, and carried to the other end. Packets for a handle the host has no link on
    /// are dropped, as are packets longer than the buffers the controller reported.
    mutating func receiveACL(_ packet: HCIPacket, slot: Int) {
        guard let fragment = try? ACLDataPacket(packet: packet), let link = links[fragment.handle], link.includes(slot) else {
            statistics.droppedACLPackets += 1
            return
        }
        deliver(ConnectionEvents.completedPacket(handle: link.handle), to: slot, at: now)
        guard fragment.data.count <= virtualACLPacketLength else {
            statistics.droppedACLPackets += 1
            return
        }
        statistics.aclPackets += 1
        let peer = link.peer(of: slot)
        guard peripherals[peer] != nil else {
            deliver(Self.toHost(fragment, handle: link.handle), to: peer, at: now)
            return
        }
        guard let reply = peripherals[peer]?.received(fragment, at: now) else { return }
        for answer in reply.fragments {
            guard links[link.handle] != nil, answer.data.count <= virtualACLPacketLength else {
                statistics.droppedACLPackets += 1
                continue
            }
            statistics.aclPackets += 1
            deliver(Self.toHost(answer, handle: link.handle), to: slot, at: now)
        }
        if let reason = reply.disconnect {
            endLink(link.handle, closedBy: peer, reason: reason)
        }
    }

    /// A fragment as a controller hands it to its host: a first fragment is flagged 0b10
    /// (first automatically flushable), the one LE controllers use (Core v5.4 Vol 4 Part E 5.4.2).
    private static func toHost(_ fragment: ACLDataPacket, handle: UInt16) -> HCIPacket? {
        try? ACLDataPacket(
            handle: handle, boundary: fragment.boundary.startsFrame ? .firstFlushable : .continuation, data: fragment.data
        ).packet()
    }

    // MARK: Ending

    /// Ends a link on both sides at once: the side that closed it hears Connection Terminated
    /// By Local Host (0x16), the other `reason`.
    mutating func endLink(_ handle: UInt16, closedBy slot: Int, reason: HCIStatus) {
        guard let link = links.removeValue(forKey: handle) else { return }
        notifyEnd(handle, slot: slot, reason: .connectionTerminatedByLocalHost)
        notifyEnd(handle, slot: link.peer(of: slot), reason: reason)
    }

    /// `slot` left the air or was reset: its attempt ends, and the other end of each of its
    /// links notices the silence after the link's supervision timeout.
    mutating func loseConnections(of slot: Int) {
        endAttempt(slot)
        for link in links.values where link.includes(slot) {
            links[link.handle] = nil
            queue.push(ScheduledWork(
                time: now.advanced(byMicroseconds: link.supervisionMicroseconds).microseconds, slot: link.peer(of: slot),
                key: link.handle, kind: .linkSupervisionTimeout, channelIndex: 0, generation: 0))
        }
    }

    /// Tells one end that its link ended: Disconnection Complete to a host, the program of a
    /// peripheral, which then advertises again.
    mutating func notifyEnd(_ handle: UInt16, slot: Int, reason: HCIStatus) {
        if peripherals[slot] != nil {
            peripherals[slot]?.disconnected(handle: handle, reason: reason, at: now)
            startPeripheralAdvertising(slot)
            return
        }
        guard let controller = controller(slot) else { return }
        deliver(ConnectionEvents.disconnectionComplete(handle: handle, reason: reason, for: controller), to: slot, at: now)
    }

    // MARK: Peripherals

    /// (Re)starts the legacy advertising a peripheral asks for, straight on its controller
    /// (it has no host to send the commands).
    mutating func startPeripheralAdvertising(_ slot: Int) {
        guard slots.indices.contains(slot), slots[slot] != nil else { return }
        slots[slot]?.controller.stopAdvertising(AdvertisingSet.legacyKey)
        guard let advertising = peripherals[slot]?.advertising,
            let parameters = try? LESetAdvertisingParameters(
                intervalMin: advertising.interval, intervalMax: advertising.interval,
                type: advertising.connectable ? .connectableUndirected : .nonConnectableUndirected),
            let data = try? LESetAdvertisingData(data: advertising.data)
        else { return }
        _ = slots[slot]?.controller.setAdvertisingParameters(parameters)
        _ = slots[slot]?.controller.setAdvertisingData(data)
        slots[slot]?.controller.sets[AdvertisingSet.legacyKey]?.secondData = advertising.secondData.map { Array($0.prefix(31)) }
        if let range = controller(slot)?.configuration.txPowerRange {
            slots[slot]?.controller.sets[AdvertisingSet.legacyKey]?.txPower = min(max(advertising.txPower, range.lowerBound), range.upperBound)
        }
        let work = slots[slot]?.controller.setAdvertisingEnable(LESetAdvertisingEnable(true), at: now).work ?? []
        for item in work {
            schedule(item, slot: slot)
        }
    }
}
