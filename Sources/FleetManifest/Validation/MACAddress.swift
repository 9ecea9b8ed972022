/// A Bluetooth device address as written in a manifest: six hexadecimal octets separated
/// by colons, most significant first (the order tools print, e.g. `AA:BB:CC:DD:EE:FF`).
enum MACAddress {
    /// The 48-bit value of `HH:HH:HH:HH:HH:HH` in either case, read byte by byte; `nil` for
    /// anything else (then `problem(in:)` says what is wrong).
    static func pack<Text: Collection<UInt8>>(_ text: Text) -> UInt64? {
        pack(text, upperCaseOnly: false)
    }

    /// Like `pack`, but only for the canonical upper-case form (so that the text can be
    /// rebuilt exactly from the bits).
    static func packCanonical<Text: Collection<UInt8>>(_ text: Text) -> UInt64? {
        pack(text, upperCaseOnly: true)
    }

    private static func pack<Text: Collection<UInt8>>(_ text: Text, upperCaseOnly: Bool) -> UInt64? {
        guard text.count == 17 else { return nil }
        var bits: UInt64 = 0
        for (offset, byte) in text.enumerated() {
            if offset % 3 == 2 {
                guard byte == UInt8(ascii: ":") else { return nil }
                continue
            }
            let nibble: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = byte - UInt8(ascii: "0")
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = byte - UInt8(ascii: "A") + 10
            case UInt8(ascii: "a")...UInt8(ascii: "f") where !upperCaseOnly: nibble = byte - UInt8(ascii: "a") + 10
            default: return nil
            }
            bits = bits << 4 | UInt64(nibble)
        }
        return bits
    }

    /// The canonical upper-case form of `text`, or what is wrong with it.
    static func normalize(_ text: String) -> Result<String, MACAddressProblem> {
        guard let bits = pack(text.utf8) else { return .failure(problem(in: text)) }
        return .success(format(bits))
    }

    /// The canonical text of 48 bits: `AA:BB:CC:DD:EE:FF`.
    static func format(_ bits: UInt64) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(17)
        for shift in stride(from: 40, through: 0, by: -8) {
            if shift != 40 { text.append(UInt8(ascii: ":")) }
            let octet = Int(truncatingIfNeeded: bits >> UInt64(shift)) & 0xFF
            text.append(digits[octet >> 4])
            text.append(digits[octet & 0x0F])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// What is wrong with a text that `pack` refused.
    static func problem(in text: String) -> MACAddressProblem {
        let octets = text.split(separator: ":", omittingEmptySubsequences: false)
        guard octets.count == 6 else {
            if text.split(separator: "-", omittingEmptySubsequences: false).count == 6 {
                return .wrongSeparator
            }
            return .wrongOctetCount(octets.count)
        }
        for (index, octet) in octets.enumerated()
        where octet.utf8.count != 2 || !octet.unicodeScalars.allSatisfy(\.properties.isASCIIHexDigit) {
            return .badOctet(position: index + 1, text: String(octet))
        }
        // Six octets of two hexadecimal digits each: `pack` would have accepted it.
        return .wrongOctetCount(octets.count)
    }
}

enum MACAddressProblem: Error, Equatable, CustomStringConvertible {
    case wrongSeparator
    case wrongOctetCount(Int)
    case badOctet(position: Int, text: String)

    var description: String {
        switch self {
        case .wrongSeparator:
            return "octets are separated by '-'; write them with ':' (AA:BB:CC:DD:EE:FF)"
        case .wrongOctetCount(let count):
            return "an address has 6 octets separated by ':' (AA:BB:CC:DD:EE:FF); this has \(count)"
        case .badOctet(let position, let text):
            return "octet \(position) is `\(text)`; each octet is two hexadecimal digits"
        }
    }
}
