import BeaconCore

/// LE Set Advertising Set Random Address (Core v5.4 Vol 4 Part E 7.8.52):
/// `handle u8 | random_addr[6]`.
public struct LESetAdvertisingSetRandomAddress: HCICommand, Hashable {
    public typealias ReturnParameters = Void
    public static let opcode = HCIOpcode.leSetAdvertisingSetRandomAddress

    public var handle: AdvertisingHandle
    public var address: BluetoothAddress

    public init(handle: AdvertisingHandle, address: BluetoothAddress) {
        self.handle = handle
        self.address = address
    }

    public func encodeParameters(into bytes: inout [UInt8]) {
        bytes.append(handle.rawValue)
        bytes.appendAddress(address)
    }

    public static func decodeParameters(_ bytes: ArraySlice<UInt8>) throws(HCIDecodingError) -> LESetAdvertisingSetRandomAddress {
        var reader = HCIByteReader(bytes, structure: "\(name) parameters")
        let handle = try reader.readAdvertisingHandle()
        let address = try reader.readAddress()
        try reader.expectEnd()
        return LESetAdvertisingSetRandomAddress(handle: handle, address: address)
    }
}

/// LE Set Extended Advertising Data (Core v5.4 Vol 4 Part E 7.8.54):
/// `handle u8 | operation u8 | fragment_preference u8 | length u8 | data[length]`.
public struct LESetExtendedAdvertisingData: HCICommand, Hashable {
    public typealias ReturnParameters = Void
    public static let opcode = HCIOpcode.leSetExtendedAdvertisingData
    /// 255 parameter octets minus the four before the data.
    public static let maximumFragmentLength = 251

    public let handle: AdvertisingHandle
    public let operation: AdvertisingDataOperation
    public let fragmentPreference: AdvertisingFragmentPreference
    public let data: [UInt8]

    public init(
        handle: AdvertisingHandle,
        operation: AdvertisingDataOperation = .complete,
        fragmentPreference: AdvertisingFragmentPreference = .shouldNotFragment,
        data: [UInt8]
    ) throws(HCIParameterError) {
        guard data.count <= Self.maximumFragmentLength else {
            throw HCIParameterError("one LE Set Extended Advertising Data command carries at most 251 bytes; this has \(data.count) (send fragments)")
        }
        guard operation != .unchangedData || data.isEmpty else {
            throw HCIParameterError("the \"unchanged data\" operation carries no data; this has \(data.count) bytes")
        }
        self.handle = handle
        self.operation = operation
        self.fragmentPreference = fragmentPreference
        self.data = data
    }

    public func encodeParameters(into bytes: inout [UInt8]) {
        bytes.append(handle.rawValue)
        bytes.append(operation.rawValue)
        bytes.append(fragmentPreference.rawValue)
        bytes.append(UInt8(truncatingIfNeeded: data.count))
        bytes += data
    }

    public static func decodeParameters(_ bytes: ArraySlice<UInt8>) throws(HCIDecodingError) -> LESetExtendedAdvertisingData {
        let structure = "\(name) parameters"
        var reader = HCIByteReader(bytes, structure: structure)
        let handle = try reader.readAdvertisingHandle()
        let operation = try reader.readEnumeration(AdvertisingDataOperation.self, field: "Operation")
        let preference = try reader.readEnumeration(AdvertisingFragmentPreference.self, field: "Fragment_Preference")
        let length = Int(try reader.readUInt8())
        guard length == reader.remainingCount else {
            throw .lengthMismatch(structure: structure, declared: length, actual: reader.remainingCount)
        }
        let data = Array(reader.readRemaining())
        do {
            return try LESetExtendedAdvertisingData(handle: handle, operation: operation, fragmentPreference: preference, data: data)
        } catch {
            throw .inconsistentParameters(structure: structure, reason: error.message)
        }
    }
}

/// LE Set Extended Advertising Enable (Core v5.4 Vol 4 Part E 7.8.56):
/// `enable u8 | num_sets u8 | {handle u8, duration u16, max_events u8} × num_sets`.
/// Disabling with no set listed disables every set.
public struct LESetExtendedAdvertisingEnable: HCICommand, Hashable {
    public typealias ReturnParameters = Void
    public static let opcode = HCIOpcode.leSetExtendedAdvertisingEnable
    /// Num_Sets is at most 0x3F, which also keeps the command within 255 octets.
    public static let maximumSetCount = 0x3F

    /// One set to start or stop.
    public struct SetEntry: Hashable, Sendable {
        public var handle: AdvertisingHandle
        /// How long to advertise, in units of 10 ms; 0 advertises until disabled.
        public var durationIn10ms: UInt16
        /// Stop after this many advertising events; 0 for no limit.
        public var maximumEvents: UInt8

        public init(handle: AdvertisingHandle, durationIn10ms: UInt16 = 0, maximumEvents: UInt8 = 0) {
            self.handle = handle
            self.durationIn10ms = durationIn10ms
            self.maximumEvents = maximumEvents
        }
    }

    public let isEnabled: Bool
    public let sets: [SetEntry]

    public init(_ isEnabled: Bool, sets: [SetEntry]) throws(HCIParameterError) {
        guard sets.count <= Self.maximumSetCount else {
            throw HCIParameterError("one command enables at most 63 advertising sets; this lists \(sets.count)")
        }
        guard isEnabled == false || !sets.isEmpty else {
            throw HCIParameterError("enabling advertising needs at least one advertising set")
        }
        guard Set(sets.map(\.handle)).count == sets.count else {
            throw HCIParameterError("an advertising set is listed twice; list each set once")
        }
        self.isEnabled = isEnabled
        self.sets = sets
    }

    /// Enables the given sets to advertise until disabled.
    public init(enabling handles: [AdvertisingHandle]) throws(HCIParameterError) {
        try self.init(true, sets: handles.map { SetEntry(handle: $0) })
    }

    /// Stops every advertising set.
    public static let disableAll = LESetExtendedAdvertisingEnable(isEnabled: false, sets: [])

    private init(isEnabled: Bool, sets: [SetEntry]) {
        self.isEnabled = isEnabled
        self.sets = sets
    }

    public func encodeParameters(into bytes: inout [UInt8]) {
        bytes.append(isEnabled ? 0x01 : 0x00)
        bytes.append(UInt8(truncatingIfNeeded: sets.count))
        // The arrays are interleaved per set (Core v5.4 Vol 4 Part E 5.2: the fields of one
        // array index are contiguous).
        for set in sets {
            bytes.append(set.handle.rawValue)
            bytes.appendLittleEndian(set.durationIn10ms)
            bytes.append(set.maximumEvents)
        }
    }

    public static func decodeParameters(_ bytes: ArraySlice<UInt8>) throws(HCIDecodingError) -> LESetExtendedAdvertisingEnable {
        let structure = "\(name) parameters"
        var reader = HCIByteReader(bytes, structure: structure)
        let isEnabled = try reader.readBoolean(field: "Enable")
        let count = Int(try reader.readUInt8())
        var sets: [SetEntry] = []
        sets.reserveCapacity(min(count, maximumSetCount))
        for _ in 0..<count {
            let handle = try reader.readAdvertisingHandle()
            let duration = try reader.readUInt16()
            let maximumEvents = try reader.readUInt8()
            sets.append(SetEntry(handle: handle, durationIn10ms: duration, maximumEvents: maximumEvents))
        }
        try reader.expectEnd()
        do {
            return try LESetExtendedAdvertisingEnable(isEnabled, sets: sets)
        } catch {
            throw .inconsistentParameters(structure: structure, reason: error.message)
        }
    }
}

/// LE Read Maximum Advertising Data Length (Core v5.4 Vol 4 Part E 7.8.57): how many bytes
/// of data one advertising set can hold (31 to 1650).
public struct LEReadMaximumAdvertisingDataLength: HCIParameterlessCommand, Hashable {
    public typealias ReturnParameters = UInt16
    public static let opcode = HCIOpcode.leReadMaximumAdvertisingDataLength
    public init() {}

    public static func decodeReturnParameters(_ bytes: ArraySlice<UInt8>) throws(HCIDecodingError) -> UInt16 {
        var reader = HCIByteReader(bytes, structure: "\(name) return parameters")
        return try reader.readUInt16()
    }

    public static func encodeReturnParameters(_ value: UInt16, into bytes: inout [UInt8]) {
        bytes.appendLittleEndian(value)
    }
}

/// LE Read Number of Supported Advertising Sets (Core v5.4 Vol 4 Part E 7.8.58): how many
/// beacons the controller can advertise at once (an upper bound: memory may run out first).
public struct LEReadNumberOfSupportedAdvertisingSets: HCIParameterlessCommand, Hashable {
    public typealias ReturnParameters = UInt8
    public static let opcode = HCIOpcode.leReadNumberOfSupportedAdvertisingSets
    public init() {}

    public static func decodeReturnParameters(_ bytes: ArraySlice<UInt8>) throws(HCIDecodingError) -> UInt8 {
        var reader = HCIByteReader(bytes, structure: "\(name) return parameters")
        return try reader.readUInt8()
    }

    public static func encodeReturnParameters(_ value: UInt8, into bytes: inout [UInt8]) {
        bytes.append(value)
    }
}

/// LE Remove Advertising Set (Core v5.4 Vol 4 Part E 7.8.59): `handle u8`.
public struct LERemoveAdvertisingSet: HCICommand, Hashable {
    public typealias ReturnParameters = Void
    public static let opcode = HCIOpcode.leRemoveAdvertisingSet

    public var handle: AdvertisingHandle

    public init(handle: AdvertisingHandle) {
        self.handle = handle
    }

    public func encodeParameters(into bytes: inout [UInt8]) {
        bytes.append(handle.rawValue)
    }

    public static func decodeParameters(_ bytes: ArraySlice<UInt8>) throws(HCIDecodingError) -> LERemoveAdvertisingSet {
        var reader = HCIByteReader(bytes, structure: "\(name) parameters")
        let handle = try reader.readAdvertisingHandle()
        try reader.expectEnd()
        return LERemoveAdvertisingSet(handle: handle)
    }
}

/// LE Clear Advertising Sets (Core v5.4 Vol 4 Part E 7.8.60): removes every set.
public struct LEClearAdvertisingSets: HCIParameterlessCommand, Hashable {
    public typealias ReturnParameters = Void
    public static let opcode = HCIOpcode.leClearAdvertisingSets
    public init() {}
}
