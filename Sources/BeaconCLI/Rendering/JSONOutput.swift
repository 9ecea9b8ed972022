import Foundation

/// Every JSON document and JSON line the command line writes is encoded here, one way:
/// keys sorted (stable output a program or a diff can rely on), slashes left as they are
/// (`"/etc/beaconctl"`, not `"\/etc\/beaconctl"`).
enum JSONOutput {
    /// A whole document (a report, a profile file): indented, without a trailing newline.
    static func document(_ value: some Encodable, snakeCaseKeys: Bool = false) throws -> String {
        let encoder = makeEncoder(snakeCaseKeys: snakeCaseKeys)
        encoder.outputFormatting.insert(.prettyPrinted)
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// One line of a JSON-lines stream, without its newline.
    static func line(_ value: some Encodable) throws -> String {
        String(decoding: try makeEncoder(snakeCaseKeys: false).encode(value), as: UTF8.self)
    }

    private static func makeEncoder(snakeCaseKeys: Bool) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        if snakeCaseKeys { encoder.keyEncodingStrategy = .convertToSnakeCase }
        return encoder
    }
}
