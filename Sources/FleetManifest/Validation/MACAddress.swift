/// A Bluetooth device address as written in a manifest: six hexadecimal octets separated
/// by colons, most significant first (the order tools print, e.g. `AA:BB:CC:DD:EE:FF`).
enum MACAddress {
    /// The canonical upper-case form, or a sentence saying what is wrong.
    static func normalize(_ text: String) -> Result<String, MACAddressProblem> {
        let octets = text.split(separator: ":", omittingEmptySubsequences: false)
        guard octets.count == 6 else {
            if text.contains("-") && text.split(separator: "-").count == 6 {
                return .failure(.wrongSeparator)
            }
            return .failure(.wrongOctetCount(octets.count))
        }
        var canonical = ""
        canonical.reserveCapacity(17)
        for (index, octet) in octets.enumerated() {
            guard octet.utf8.count == 2, octet.unicodeScalars.allSatisfy(\.properties.isASCIIHexDigit)
            else { return .failure(.badOctet(position: index + 1, text: String(octet))) }
            if index > 0 { canonical += ":" }
            canonical += octet.uppercased()
        }
        return .success(canonical)
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
