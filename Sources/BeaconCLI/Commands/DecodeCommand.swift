import ArgumentParser
import BeaconFleet
import Foundation

/// `beaconctl decode HEX…`: advertising data or an HCI event, taken apart.
struct DecodeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Decode raw advertising data or an HCI advertising report event, and say whether it is an iBeacon.",
        discussion: """
            HEX is the bytes as copied from a capture: spaces, colons, commas and 0x prefixes \
            are allowed (02 01 06, 02:01:06, 0x02 0x01 0x06, 020106). Several arguments are \
            joined, so quoting is optional. An HCI event is recognised by the H4 prefix 04 \
            (followed by 3E, or by an event whose length byte matches), or as an LE Meta event \
            3E LL 02 / 3E LL 0D; anything else is read as advertising data (--as overrides). Offsets count from the first byte of the advertising data.
            Exit codes: 0 decoded; 1 the bytes are malformed (a length running past the data, \
            an event that does not decode); 2 the text is not hex.
            """)

    enum InputKind: String, CaseIterable, ExpressibleByArgument {
        case auto, data, event

        var decoded: DecodedInput.Kind {
            switch self {
            case .auto: return .auto
            case .data: return .data
            case .event: return .event
            }
        }
    }

    @OptionGroup var globals: GlobalOptions

    @Argument(help: ArgumentHelp("The bytes in hexadecimal.", valueName: "hex"))
    var hex: [String] = []

    @Option(name: .customLong("as"), help: "What the bytes are: auto, data (advertising data) or event (an HCI event, with or without the H4 byte 04).")
    var kind: InputKind = .auto

    @Option(help: "Output format: text (for people) or json (for programs).")
    var format: OutputFormat = .text

    func validate() throws {
        if hex.isEmpty {
            throw ValidationError("Give the bytes to decode, e.g. `beaconctl decode 02 01 06 1A FF 4C 00 02 15 …`.")
        }
    }

    func run() async throws {
        try UnexpectedErrorProbe.reached("decode")
        let bytes: [UInt8]
        do {
            bytes = try DecodeHex.bytes(from: hex.joined(separator: " "))
        } catch {
            throw CommandFailure(.usageOrInput, "the bytes are not hexadecimal: \(error)")
        }
        let decoded = DecodedInput(bytes: bytes, as: kind.decoded)
        switch format {
        case .text:
            Console.current.write(DecodeText.render(decoded))
        case .json:
            Console.current.line(try JSONOutput.document(DecodeJSON.Document(decoded)))
        }
        if decoded.isMalformed { throw ExitStatus.findings.exitCode }
    }
}
