import BeaconCore
import HCI

/// A recording of sightings, opened: JSON lines (what `scan --format jsonl` writes), a
/// btsnoop, pcap or pcapng capture, or a broker's stream, which is read the same way (in
/// order, on its receivers' clocks) as it arrives. `open(path:)` tells a file's format from
/// its first bytes; `pass` reads it. `verify`, `scan`, `monitor` and `calibrate` read
/// every recording through this type; `SightingTimeline` puts its receivers on one clock.
public enum SightingRecording: Sendable {
    case capture(SightingCaptureStream)
    case jsonLines(SightingJSONLineSequence<SightingLineReader>)
    /// What receivers publish to a broker, as it arrives (`BrokerSightingFeed`).
    case broker(BrokerSightings)

    /// The sightings of JSON lines, lazily: one per non-blank line, an error naming the
    /// line at the first line that is not a sighting. A line without `"clock"` is on
    /// `defaultClock` (a recording's: the receiver's elapsed clock).
    public static func jsonLines<Lines: AsyncSequence>(
        _ lines: Lines, source: String, defaultClock: SightingClock = SightingJSONLines.recordingClock
    ) -> SightingJSONLineSequence<Lines> where Lines.Element == String {
        SightingJSONLineSequence(lines: lines, source: source, defaultClock: defaultClock) { Array($0.utf8) }
    }

    /// The sightings of a JSON-lines file (`-` for standard input), read as consumed.
    public static func jsonLines(
        path: String, defaultClock: SightingClock = SightingJSONLines.recordingClock
    ) -> SightingJSONLineSequence<SightingLineReader> {
        SightingJSONLineSequence(lines: SightingLineReader(path: path), source: displayName(path), defaultClock: defaultClock) { $0 }
    }

    /// The sightings of JSON-lines text held in memory; its telemetry lines are read and
    /// checked, and left out.
    public static func jsonLines(
        text: String, source: String, defaultClock: SightingClock = SightingJSONLines.recordingClock
    ) throws(SightingStreamError) -> [Sighting] {
        var sightings: [Sighting] = []
        for (index, line) in text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            let bytes = line.last == 0x0D ? line.dropLast() : line[...]
            if let sighting = try SightingJSONLines.decode(line: bytes, lineNumber: index + 1, source: source, defaultClock: defaultClock) {
                sightings.append(sighting)
            }
        }
        return sightings
    }

    /// Opens a recorded input (`-` for standard input), telling its format from its first
    /// bytes: the btsnoop, pcap or pcapng magic, else JSON lines; bytes that cannot start
    /// any of them (a zip archive, a compressed file) are an error naming them. Every
    /// format is read as consumed, in bounded memory. Waits for the first 8 bytes (or the
    /// end of the input): callers that must not wait for a silent pipe run it under their
    /// deadline; cancelling the task ends the wait.
    public static func open(path: String) async throws(SightingStreamError) -> SightingRecording {
        let source = displayName(path)
        var lines = try SightingLineReader(path: path).makeReader()
        let prefix: [UInt8]
        do {
            prefix = try await lines.peek(BTSnoopFormat.magic.count)
        } catch is CancellationError {
            throw SightingStreamError(source: source, reason: "reading was interrupted before its format was known")
        } catch {
            throw SightingStreamError(source: source, reason: "cannot read it: \(error)")
        }
        if SightingCapture.looksLikeBTSnoop(prefix) {
            return .capture(SightingCaptureStream(bytes: lines, source: source))
        }
        if let format = PcapReader.format(ofPrefix: prefix) {
            return .capture(SightingCaptureStream(bytes: lines, source: source, format: .pcap(format)))
        }
        if let problem = notSightings(prefix) {
            throw SightingStreamError(source: source, reason: problem)
        }
        return .jsonLines(SightingJSONLineSequence(
            lines: SightingLineReader(resuming: lines), source: source, defaultClock: SightingJSONLines.recordingClock) { $0 })
    }

    /// Why `prefix` cannot start a sighting file, when it cannot: control bytes or bytes
    /// that begin no UTF-8 character, or the magic of a well-known file type. Anything
    /// textual is left to the JSON-lines reader, whose errors name the line and column.
    static func notSightings(_ prefix: [UInt8]) -> String? {
        let known: [(magic: [UInt8], kind: String)] = [
            ([0x50, 0x4B, 0x03, 0x04], "a zip archive"), ([0x50, 0x4B, 0x05, 0x06], "an empty zip archive"),
            ([0x1F, 0x8B], "gzip-compressed: decompress it first"), ([0x42, 0x5A, 0x68], "bzip2-compressed: decompress it first"),
            ([0xFD, 0x37, 0x7A, 0x58, 0x5A], "xz-compressed: decompress it first"),
            ([0x28, 0xB5, 0x2F, 0xFD], "zstd-compressed: decompress it first"),
            ([0x7F, 0x45, 0x4C, 0x46], "an ELF executable"), ([0x89, 0x50, 0x4E, 0x47], "a PNG image"),
            ([0xFF, 0xD8, 0xFF], "a JPEG image"), ([0x25, 0x50, 0x44, 0x46], "a PDF document"),
        ]
        let kind = known.first { prefix.starts(with: $0.magic) }?.kind
        let binary = prefix.contains { byte in
            (byte < 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0D) || byte == 0x7F
                || byte == 0xC0 || byte == 0xC1 || byte >= 0xF5
        }
        guard kind != nil || binary else { return nil }
        let digits = Array("0123456789abcdef")
        let shown = prefix.prefix(4).map { String([digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]]) }.joined(separator: " ")
        return "not a sighting file: starts with bytes \(shown)\(kind.map { " (\($0)?)" } ?? ""); "
            + "expected JSON lines, btsnoop, pcap or pcapng"
    }

    /// `<stdin>` for `-`, the path otherwise.
    static func displayName(_ path: String) -> String {
        path == "-" ? "<stdin>" : path
    }

    /// The sightings, whichever the format.
    public var sightings: any AsyncSequence<Sighting, any Error> & Sendable {
        switch self {
        case .capture(let capture): capture
        case .jsonLines(let lines): lines
        case .broker(let sightings): sightings
        }
    }

    /// The telemetry readings found beside the sightings, put as the recording is read: a
    /// capture's Eddystone-TLM and KKM frames, JSON lines' telemetry lines, a broker's
    /// battery fields and telemetry lines. Take them after (or while) reading.
    public var telemetry: TelemetryInbox {
        switch self {
        case .capture(let capture): capture.telemetry
        case .jsonLines(let lines): lines.telemetry
        case .broker(let sightings): sightings.telemetry
        }
    }

    /// Whether the input arrives as it is heard (a broker), rather than being a recording
    /// that may be a file or a pipe.
    public var isLive: Bool {
        if case .broker = self { return true }
        return false
    }

    /// Hands `announce` the one word said of JSON lines whose first line looks like unmarked
    /// Unix time (`UndeclaredUnixTimeHint`), as soon as it is noticed; captures and brokers
    /// have nothing to say.
    public func announceUndeclaredUnixTime(to announce: @escaping @Sendable (String) -> Void) {
        if case .jsonLines(let lines) = self { lines.undeclaredUnixTime.announce(to: announce) }
    }

    /// Where a capture was cut off, once it has been read to that point; `nil` for JSON lines
    /// (whose first bad line is an error) and for a whole capture.
    public var truncation: String? {
        if case .capture(let capture) = self { return capture.summary.values?.truncation }
        return nil
    }

    /// What to say of a capture's records that could not be decoded, once read to its end;
    /// `nil` for JSON lines (whose first bad line is an error) and when every record decoded.
    public var undecodableWarning: String? {
        if case .capture(let capture) = self { return capture.summary.values?.undecodableWarning }
        return nil
    }
}
