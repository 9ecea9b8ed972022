/// One AD structure of advertising data: `length | type | data[length − 1]`
/// (Core Spec v5.4 Vol 3 Part C 11; types in the Assigned Numbers "Common Data Types").
public struct ADStructure: Hashable, Sendable {
    public var type: UInt8
    public var data: [UInt8]

    public init(type: UInt8, data: [UInt8]) {
        self.type = type
        self.data = data
    }

    public static let flagsType: UInt8 = 0x01
    public static let manufacturerSpecificType: UInt8 = 0xFF
}

/// Why advertising data could not be split into AD structures. Offsets count from the
/// start of the data.
public enum ADParseError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The structure at `offset` claims `length` bytes but only `available` remain.
    case truncated(offset: Int, length: Int, available: Int)

    public var description: String {
        switch self {
        case .truncated(let offset, let length, let available):
            return "the AD structure at byte \(offset) declares \(length) bytes but only \(available) remain"
        }
    }
}

public enum AdvertisingData {
    /// Splits advertising data into AD structures. A zero length byte ends the significant
    /// part (the rest is padding, Vol 3 Part C 11); a structure running past the end is an
    /// error that names where. Never traps, whatever the bytes.
    public static func parse<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Result<[ADStructure], ADParseError> {
        let data = Array(bytes)
        var structures: [ADStructure] = []
        var offset = 0
        while offset < data.count {
            let length = Int(data[offset])
            if length == 0 { break }
            let available = data.count - offset - 1
            guard length <= available else {
                return .failure(.truncated(offset: offset, length: length, available: available))
            }
            structures.append(ADStructure(type: data[offset + 1], data: Array(data[(offset + 2)..<(offset + 1 + length)])))
            offset += 1 + length
        }
        return .success(structures)
    }
}

extension IBeaconAdvertisement {
    /// The iBeacon among the AD structures of `advertisingData`, wherever it sits (not only
    /// after a flags structure at offset 0: some beacons omit flags or add a name).
    /// `nil` when there is none or the data is malformed.
    public init?<Bytes: Collection<UInt8>>(advertisingData: Bytes) {
        guard case .success(let structures) = AdvertisingData.parse(advertisingData) else { return nil }
        for structure in structures where structure.type == ADStructure.manufacturerSpecificType {
            if let beacon = IBeaconAdvertisement(manufacturerData: structure.data) {
                self = beacon
                return
            }
        }
        return nil
    }
}
