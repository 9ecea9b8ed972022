import BeaconCore
import HCI

/// Advertising data taken apart for a person: every AD structure with its offset, name and
/// meaning, the iBeacon if there is one, and if not, why not.
///
/// Offsets count from the first byte of the advertising data. Structures before a
/// malformed one are still shown, so a truncated capture says as much as it can.
public struct DecodedAdvertisingData: Hashable, Sendable {
    public var length: Int
    public var structures: [DecodedADStructure]
    /// Where and how the data is malformed (a structure running past the end); `nil` when
    /// it is well formed.
    public var problem: String?
    /// The offset of the zero length byte that ends the significant part, when there is one
    /// (legacy advertising data is zero padded to 31 bytes, Core v5.4 Vol 3 Part C 11).
    public var terminatorOffset: Int?
    /// Bytes after the terminator that are not zero (they are ignored, but worth a look).
    public var nonZeroBytesAfterTerminator: Int
    public var iBeacon: DecodedIBeacon?
    /// Why the data holds no iBeacon, when it does not.
    public var notIBeaconReason: String?

    public init(_ bytes: [UInt8]) {
        length = bytes.count
        structures = []
        nonZeroBytesAfterTerminator = 0
        var offset = 0
        var truncated: (offset: Int, declared: Int, available: Int)?
        while offset < bytes.count {
            let declared = Int(bytes[offset])
            if declared == 0 {
                terminatorOffset = offset
                nonZeroBytesAfterTerminator = bytes[(offset + 1)...].filter { $0 != 0 }.count
                break
            }
            let available = bytes.count - offset - 1
            guard declared <= available else {
                truncated = (offset, declared, available)
                break
            }
            let type = bytes[offset + 1]
            let data = Array(bytes[(offset + 2)..<(offset + 1 + declared)])
            structures.append(DecodedADStructure(offset: offset, type: type, data: data))
            offset += 1 + declared
        }
        if let truncated {
            let typeText = truncated.available >= 1
                ? " (type \(HexText.code(bytes[truncated.offset + 1], digits: 2)))" : ""
            problem = "the AD structure at byte \(truncated.offset)\(typeText) declares "
                + "\(truncated.declared) bytes after its length byte but only \(truncated.available) remain"
        }
        let verdict = DecodeIBeaconCheck.verdict(structures: structures, bytes: bytes, truncated: truncated)
        iBeacon = verdict.iBeacon
        notIBeaconReason = verdict.reason
    }
}

/// An iBeacon as found in advertising data.
public struct DecodedIBeacon: Hashable, Sendable {
    /// Offset of the Manufacturer Specific Data structure's length byte.
    public var offset: Int
    public var advertisement: IBeaconAdvertisement

    public init(offset: Int, advertisement: IBeaconAdvertisement) {
        self.offset = offset
        self.advertisement = advertisement
    }
}

/// Tells whether AD structures hold an iBeacon and, when they do not, the most specific
/// reason: a truncated iBeacon beats "another company's data", which beats "no
/// manufacturer data at all".
enum DecodeIBeaconCheck {
    struct Verdict {
        var iBeacon: DecodedIBeacon?
        var reason: String?
    }

    /// The iBeacon header after the AD type: company 4C 00, type 02, length 15.
    static let header: [UInt8] = [0x4C, 0x00, IBeaconAdvertisement.iBeaconType, IBeaconAdvertisement.iBeaconLength]
    /// Bytes after the AD type of a whole iBeacon structure: header 4 + UUID 16 + major 2 + minor 2 + power 1.
    static let dataLength = 25

    static func verdict(
        structures: [DecodedADStructure], bytes: [UInt8], truncated: (offset: Int, declared: Int, available: Int)?
    ) -> Verdict {
        var reasons: [(rank: Int, text: String)] = []
        for structure in structures where structure.type == ADStructure.manufacturerSpecificType {
            if let beacon = IBeaconAdvertisement(manufacturerData: structure.data) {
                guard let truncated else {
                    return Verdict(iBeacon: DecodedIBeacon(offset: structure.offset, advertisement: beacon))
                }
                // Scanners split the whole data before looking for an iBeacon (beaconctl's
                // among them): a malformed structure anywhere loses the report.
                let power = beacon.measuredPower
                return Verdict(reason: "the structure at byte \(structure.offset) holds an iBeacon (\(beacon.identity), measured power \(power) dBm), "
                    + "but the structure at byte \(truncated.offset) is malformed, so scanners discard the whole report")
            }
            reasons.append(reason(for: structure))
        }
        if let truncated, truncated.available >= 1, bytes[truncated.offset + 1] == ADStructure.manufacturerSpecificType {
            let start = truncated.offset + 2
            let present = Array(bytes[start...])
            if present.count >= 2, present.starts(with: header.prefix(min(present.count, header.count))) {
                reasons.append((4, "the Manufacturer Specific Data at byte \(truncated.offset) looks like an iBeacon but is truncated: it declares \(truncated.declared) bytes and only \(truncated.available) remain"))
            }
        }
        if let truncated, reasons.isEmpty {
            reasons.append((3, "the data is truncated at byte \(truncated.offset), before any Manufacturer Specific Data"))
        }
        if let best = reasons.max(by: { $0.rank < $1.rank }) {
            return Verdict(reason: best.text)
        }
        if bytes.isEmpty { return Verdict(reason: "the advertising data is empty") }
        return Verdict(reason: "there is no Manufacturer Specific Data (0xFF) structure, which an iBeacon is")
    }

    /// Why one manufacturer-specific structure is not an iBeacon, ranked by how close it came.
    private static func reason(for structure: DecodedADStructure) -> (rank: Int, text: String) {
        let data = structure.data
        let at = "the Manufacturer Specific Data at byte \(structure.offset)"
        guard data.count >= 2 else {
            return (0, "\(at) is too short to hold a company identifier")
        }
        let company = UInt16(data[0]) | UInt16(data[1]) << 8
        guard company == IBeaconAdvertisement.appleCompanyID else {
            return (1, "\(at) is from \(DecodedADStructure.companyText(company)), not Apple (0x004C)")
        }
        guard data.count >= 3 else { return (2, "\(at) is Apple's but ends before its type byte") }
        guard data[2] == IBeaconAdvertisement.iBeaconType else {
            return (2, "\(at) is Apple's type \(HexText.code(data[2], digits: 2)), not the iBeacon type 0x02")
        }
        guard data.count >= 4 else { return (3, "\(at) is an Apple iBeacon type but ends before its length byte") }
        guard data[3] == IBeaconAdvertisement.iBeaconLength else {
            return (3, "\(at) has the iBeacon type but its length byte (at byte \(structure.offset + 5)) is \(HexText.code(data[3], digits: 2)); an iBeacon has 0x15 (21 bytes)")
        }
        let payload = data.count - 4
        if payload < 21 {
            return (4, "\(at) is an iBeacon truncated to \(payload) of its 21 bytes (UUID 16, major 2, minor 2, measured power 1)")
        }
        return (4, "\(at) carries \(NumberText.count(payload - 21, "byte")) after the 21 of an iBeacon; its AD length byte is \(HexText.code(UInt8(truncatingIfNeeded: data.count + 1), digits: 2)), an iBeacon's is 0x1A")
    }
}
