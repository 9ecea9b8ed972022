import HCI

extension ControllerState {
    /// advDelay: each advertising event starts up to 10 ms after the interval, drawn anew
    /// every event, so that two advertisers never stay in lockstep (Core v5.4 Vol 6
    /// Part B 4.4.2.2.1).
    static let maximumAdvertisingDelayMicroseconds: UInt64 = 10_000

    /// Starts (or restarts) the set under `key`: its first event begins after a random
    /// advDelay, so that sets enabled together do not transmit together.
    mutating func startAdvertising(
        _ key: UInt16, at now: AirTime, maximumEvents: Int = 0, durationMicroseconds: UInt64 = 0
    ) -> [ControllerWork] {
        guard var set = sets[key] else { return [] }
        set.isEnabled = true
        set.generation = nextGeneration()
        set.completedEvents = 0
        set.maximumEvents = maximumEvents
        set.eventStart = now.advanced(byMicroseconds: set.generator.next(upperBound: Self.maximumAdvertisingDelayMicroseconds + 1))
        sets[key] = set
        var work: [ControllerWork] = [.advertisingPDU(setKey: key, channelIndex: 0, at: set.eventStart, generation: set.generation)]
        if durationMicroseconds > 0 {
            work.append(.advertisingTimeout(setKey: key, at: now.advanced(byMicroseconds: durationMicroseconds), generation: set.generation))
        }
        return work
    }

    /// How an advertising event of a set ended.
    enum AdvertisingEventEnd {
        /// The next event starts then.
        case next(AirTime)
        /// Max_Extended_Advertising_Events reached: the set must stop.
        case limitReached
    }

    /// Counts the event just finished and draws when the next one starts: interval plus a
    /// fresh advDelay after this one started. `nil` when the set does not exist.
    mutating func completeAdvertisingEvent(_ key: UInt16) -> AdvertisingEventEnd? {
        guard sets[key] != nil else { return nil }
        return sets[key]?.completeEvent(maximumDelayMicroseconds: Self.maximumAdvertisingDelayMicroseconds)
    }

    mutating func stopAdvertising(_ key: UInt16) {
        guard sets[key]?.isEnabled == true else { return }
        let generation = nextGeneration()
        sets[key]?.isEnabled = false
        sets[key]?.generation = generation
    }

    /// LE Set Advertising Parameters (Core v5.4 Vol 4 Part E 7.8.5). Refused while
    /// advertising is enabled. High duty cycle directed advertising, which exists to make a
    /// connection within 1.28 s, is not modelled (its timing is the point of it).
    mutating func setAdvertisingParameters(_ command: LESetAdvertisingParameters) -> CommandOutcome {
        let opcode = LESetAdvertisingParameters.opcode
        guard var set = sets[AdvertisingSet.legacyKey] else { return .status(.hardwareFailure, opcode) }
        guard !set.isEnabled else { return .status(.commandDisallowed, opcode) }
        switch command.type {
        case .connectableUndirected: set.properties = [.legacy, .connectable, .scannable]
        case .scannableUndirected: set.properties = [.legacy, .scannable]
        case .nonConnectableUndirected: set.properties = [.legacy]
        case .connectableDirectedLowDutyCycle: set.properties = [.legacy, .connectable, .directed]
        case .connectableDirectedHighDutyCycle: return .status(.unsupportedFeatureOrParameterValue, opcode)
        }
        set.intervalMicroseconds = command.intervalMin.microseconds
        set.channels = Self.channels(of: command.channelMap)
        set.ownAddressType = command.ownAddressType
        set.peerAddressType = command.peerAddressType
        set.peerAddress = command.peerAddress
        sets[AdvertisingSet.legacyKey] = set
        return CommandOutcome(returnParameters: CommandAnswers.success(LESetAdvertisingParameters.self))
    }

    /// LE Set Advertising Data (Core v5.4 Vol 4 Part E 7.8.7): allowed while advertising;
    /// the next event carries the new data.
    mutating func setAdvertisingData(_ command: LESetAdvertisingData) -> CommandOutcome {
        sets[AdvertisingSet.legacyKey]?.data = command.data
        return CommandOutcome(returnParameters: CommandAnswers.success(LESetAdvertisingData.self))
    }

    /// LE Set Advertising Enable (Core v5.4 Vol 4 Part E 7.8.9). Enabling when enabled
    /// changes nothing; a random own address needs LE Set Random Address first (0x12).
    mutating func setAdvertisingEnable(_ command: LESetAdvertisingEnable, at now: AirTime) -> CommandOutcome {
        let opcode = LESetAdvertisingEnable.opcode
        guard let set = sets[AdvertisingSet.legacyKey] else { return .status(.hardwareFailure, opcode) }
        guard command.isEnabled else {
            stopAdvertising(AdvertisingSet.legacyKey)
            return CommandOutcome(returnParameters: CommandAnswers.success(LESetAdvertisingEnable.self))
        }
        guard !set.isEnabled else {
            return CommandOutcome(returnParameters: CommandAnswers.success(LESetAdvertisingEnable.self))
        }
        guard !lacksRandomAddress(set) else { return .status(.invalidHCICommandParameters, opcode) }
        return CommandOutcome(
            returnParameters: CommandAnswers.success(LESetAdvertisingEnable.self),
            work: startAdvertising(AdvertisingSet.legacyKey, at: now))
    }

    /// The channels a channel map selects, in the order an event visits them.
    static func channels(of map: AdvertisingChannelMap) -> [UInt8] {
        [(AdvertisingChannelMap.channel37, 37), (.channel38, 38), (.channel39, 39)]
            .filter { map.contains($0.0) }
            .map(\.1)
    }
}
