import HCI

extension ControllerState {
    /// The legacy-PDU property combinations an advertising set may use (Core v5.4 Vol 4
    /// Part E 7.8.53, Table 7.2): ADV_IND, ADV_DIRECT_IND (low duty), ADV_SCAN_IND,
    /// ADV_NONCONN_IND. 0x1D (high duty directed) is valid but not supported here.
    private static let legacyPropertyCombinations: Set<UInt16> = [0x13, 0x15, 0x12, 0x10]
    private static let legacyHighDutyDirected: UInt16 = 0x1D
    /// A legacy PDU carries at most 31 bytes of data.
    static let legacyDataLimit = 31

    private func existingSet(_ handle: AdvertisingHandle) -> AdvertisingSet? {
        sets[UInt16(handle.rawValue)]
    }

    private var extendedSetCount: Int {
        sets.keys.filter { $0 != AdvertisingSet.legacyKey }.count
    }

    /// LE Set Advertising Set Random Address (Core v5.4 Vol 4 Part E 7.8.52). The address
    /// of an enabled set is not changed (Command Disallowed), as RootCanal also refuses;
    /// hosts disable the set first.
    mutating func setAdvertisingSetRandomAddress(_ command: LESetAdvertisingSetRandomAddress) -> CommandOutcome {
        let opcode = LESetAdvertisingSetRandomAddress.opcode
        guard let set = existingSet(command.handle) else { return .status(.unknownAdvertisingIdentifier, opcode) }
        guard !set.isEnabled else { return .status(.commandDisallowed, opcode) }
        sets[set.key]?.randomAddress = command.address
        return CommandOutcome(returnParameters: CommandAnswers.success(LESetAdvertisingSetRandomAddress.self))
    }

    /// LE Set Extended Advertising Parameters (Core v5.4 Vol 4 Part E 7.8.53): creates the
    /// set or changes it; returns the TX power chosen, the request clamped into the
    /// configured range.
    mutating func setExtendedAdvertisingParameters(_ command: LESetExtendedAdvertisingParameters) -> CommandOutcome {
        let opcode = LESetExtendedAdvertisingParameters.opcode
        let properties = command.properties
        var set: AdvertisingSet
        if let existing = existingSet(command.handle) {
            guard !existing.isEnabled else { return .status(.commandDisallowed, opcode) }
            set = existing
        } else {
            guard extendedSetCount < configuration.advertisingSetCount else {
                return .status(.memoryCapacityExceeded, opcode)
            }
            set = makeExtendedSet(handle: command.handle)
        }
        if properties.contains(.legacy) {
            if properties.rawValue == Self.legacyHighDutyDirected {
                return .status(.unsupportedFeatureOrParameterValue, opcode)
            }
            guard Self.legacyPropertyCombinations.contains(properties.rawValue),
                set.data.count <= Self.legacyDataLimit
            else { return .status(.invalidHCICommandParameters, opcode) }
        } else {
            // Extended PDUs are never both connectable and scannable, never high duty
            // cycle directed, and anonymous only when not connectable.
            let contradictory = properties.isSuperset(of: [.connectable, .scannable])
                || properties.contains(.highDutyCycleDirected)
                || properties.isSuperset(of: [.anonymous, .connectable])
            guard !contradictory else { return .status(.invalidHCICommandParameters, opcode) }
            guard supports(command.secondaryPHY) else { return .status(.unsupportedFeatureOrParameterValue, opcode) }
        }
        guard supports(command.primaryPHY) else { return .status(.unsupportedFeatureOrParameterValue, opcode) }

        let range = configuration.txPowerRange
        let requested = command.txPower ?? configuration.defaultTxPower
        set.txPower = min(max(requested, range.lowerBound), range.upperBound)
        set.properties = properties
        set.intervalMicroseconds = command.intervalMin.microseconds
        set.channels = Self.channels(of: command.channelMap)
        set.ownAddressType = command.ownAddressType
        set.peerAddressType = command.peerAddressType
        set.peerAddress = command.peerAddress
        set.primaryPHY = command.primaryPHY
        set.secondaryPHY = command.secondaryPHY
        set.sid = command.sid
        sets[set.key] = set
        return CommandOutcome(returnParameters: CommandAnswers.success(LESetExtendedAdvertisingParameters.self, set.txPower))
    }

    private func supports(_ phy: LEPhy) -> Bool {
        switch phy {
        case .le1M: return true
        case .le2M: return configuration.leFeatures.contains(.le2MPhy)
        case .leCoded: return configuration.leFeatures.contains(.leCodedPhy)
        default: return false
        }
    }

    /// LE Set Extended Advertising Data (Core v5.4 Vol 4 Part E 7.8.54): whole or in
    /// fragments. An enabled set only takes complete data or "unchanged data"; a legacy-PDU
    /// set only complete data of at most 31 bytes.
    mutating func setExtendedAdvertisingData(_ command: LESetExtendedAdvertisingData) -> CommandOutcome {
        let opcode = LESetExtendedAdvertisingData.opcode
        guard var set = existingSet(command.handle) else { return .status(.unknownAdvertisingIdentifier, opcode) }
        if set.isEnabled && command.operation != .complete && command.operation != .unchangedData {
            return .status(.commandDisallowed, opcode)
        }
        if set.isLegacy {
            guard command.operation == .complete, command.data.count <= Self.legacyDataLimit else {
                return .status(.invalidHCICommandParameters, opcode)
            }
        }
        let limit = configuration.maximumAdvertisingDataLength
        switch command.operation {
        case .complete:
            guard command.data.count <= limit else { return .status(.memoryCapacityExceeded, opcode) }
            set.data = command.data
            set.pendingFragments = nil
        case .firstFragment:
            guard command.data.count <= limit else { return .status(.memoryCapacityExceeded, opcode) }
            set.pendingFragments = command.data
        case .intermediateFragment, .lastFragment:
            guard let pending = set.pendingFragments else { return .status(.invalidHCICommandParameters, opcode) }
            guard pending.count + command.data.count <= limit else { return .status(.memoryCapacityExceeded, opcode) }
            if command.operation == .lastFragment {
                set.data = pending + command.data
                set.pendingFragments = nil
            } else {
                set.pendingFragments = pending + command.data
            }
        case .unchangedData:
            // Only a new Advertising DID for data already on the air, which this model does not carry.
            guard set.isEnabled else { return .status(.invalidHCICommandParameters, opcode) }
        }
        sets[set.key] = set
        return CommandOutcome(returnParameters: CommandAnswers.success(LESetExtendedAdvertisingData.self))
    }

    /// LE Set Extended Advertising Enable (Core v5.4 Vol 4 Part E 7.8.56). Every listed set
    /// is checked before any changes, so a refused command leaves all sets as they were.
    /// Duration (10 ms units) and Max_Extended_Advertising_Events end a set with LE
    /// Advertising Set Terminated. Disabling with no set listed disables all.
    mutating func setExtendedAdvertisingEnable(_ command: LESetExtendedAdvertisingEnable, at now: AirTime) -> CommandOutcome {
        let opcode = LESetExtendedAdvertisingEnable.opcode
        let success = CommandOutcome(returnParameters: CommandAnswers.success(LESetExtendedAdvertisingEnable.self))
        guard command.isEnabled else {
            let keys = command.sets.isEmpty
                ? sets.keys.filter { $0 != AdvertisingSet.legacyKey }
                : command.sets.map { UInt16($0.handle.rawValue) }
            guard keys.allSatisfy({ sets[$0] != nil }) else { return .status(.unknownAdvertisingIdentifier, opcode) }
            keys.forEach { stopAdvertising($0) }
            return success
        }
        for entry in command.sets {
            guard let set = existingSet(entry.handle) else { return .status(.unknownAdvertisingIdentifier, opcode) }
            guard !lacksRandomAddress(set) else { return .status(.invalidHCICommandParameters, opcode) }
            // Data still arriving in fragments cannot go on the air.
            guard set.pendingFragments == nil else { return .status(.commandDisallowed, opcode) }
        }
        var outcome = success
        for entry in command.sets {
            outcome.work += startAdvertising(
                UInt16(entry.handle.rawValue), at: now, maximumEvents: Int(entry.maximumEvents),
                durationMicroseconds: UInt64(entry.durationIn10ms) * 10_000)
        }
        return outcome
    }

    /// LE Remove Advertising Set (Core v5.4 Vol 4 Part E 7.8.59): not while it advertises.
    mutating func removeAdvertisingSet(_ command: LERemoveAdvertisingSet) -> CommandOutcome {
        let opcode = LERemoveAdvertisingSet.opcode
        guard let set = existingSet(command.handle) else { return .status(.unknownAdvertisingIdentifier, opcode) }
        guard !set.isEnabled else { return .status(.commandDisallowed, opcode) }
        sets[set.key] = nil
        return CommandOutcome(returnParameters: CommandAnswers.success(LERemoveAdvertisingSet.self))
    }

    /// LE Clear Advertising Sets (Core v5.4 Vol 4 Part E 7.8.60): not while any advertises.
    mutating func clearAdvertisingSets() -> CommandOutcome {
        let extendedKeys = sets.keys.filter { $0 != AdvertisingSet.legacyKey }
        guard !extendedKeys.contains(where: { sets[$0]?.isEnabled == true }) else {
            return .status(.commandDisallowed, LEClearAdvertisingSets.opcode)
        }
        extendedKeys.forEach { sets[$0] = nil }
        return CommandOutcome(returnParameters: CommandAnswers.success(LEClearAdvertisingSets.self))
    }
}
