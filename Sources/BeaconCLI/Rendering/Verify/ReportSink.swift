import FleetManifest

/// Where a report's text goes as it is made: standard output (through the console), a file
/// (replaced atomically when the report is finished), or a string kept whole (for tests and
/// `render`). Text is handed on in pieces of about 64 KiB, so that a report of a hundred
/// thousand beacons is never held whole; each piece ends where a `write` ended, so it never
/// splits a character.
final class ReportSink {
    private enum Destination {
        case console(Console)
        case file(StreamedFileReplacement)
        case kept
    }

    private let destination: Destination
    /// UTF-8 of whole `write`s. Unchecked exclusivity: this class is used by one report
    /// at a time, and the dynamic check on every small write cost a tenth of a JSON report.
    @exclusivity(unchecked) private var buffer: [UInt8] = []
    /// The first failure to write a file; later text is dropped and `finish` throws it.
    private var failure: ManifestFileError?

    static let pieceBytes = 1 << 16

    private init(_ destination: Destination) {
        self.destination = destination
        if case .kept = destination { return }
        buffer.reserveCapacity(Self.pieceBytes + 4096)
    }

    /// Standard output of `console`.
    static func console(_ console: Console) -> ReportSink { ReportSink(.console(console)) }

    /// A new version of the file at `path`, which replaces it at `finish`; fails (naming the
    /// file) when it cannot be created.
    static func file(_ path: String) throws(ManifestFileError) -> ReportSink {
        ReportSink(.file(try StreamedFileReplacement(path: path)))
    }

    /// The whole text kept, for `text`.
    static func kept() -> ReportSink { ReportSink(.kept) }

    func write(_ text: String) {
        var text = text
        text.withUTF8 { buffer.append(contentsOf: $0) }
        if buffer.count >= Self.pieceBytes { handOn() }
    }

    /// A constant piece (a JSON key, a bracket, punctuation): copied without a String.
    func write(_ text: StaticString) {
        write(text, prefix: text.utf8CodeUnitCount)
    }

    /// The first `prefix` bytes of an ASCII constant (a run of spaces cut to length).
    func write(_ text: StaticString, prefix: Int) {
        buffer.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: min(max(0, prefix), text.utf8CodeUnitCount)))
        if buffer.count >= Self.pieceBytes { handOn() }
    }

    /// What a kept sink holds.
    var text: String { String(decoding: buffer, as: UTF8.self) }

    /// Hands on what is left; a file then replaces the one at its path.
    func finish() throws(ManifestFileError) {
        handOn()
        if let failure { throw failure }
        if case .file(let file) = destination { try file.commit() }
    }

    private func handOn() {
        switch destination {
        case .kept:
            return
        case .console(let console):
            if !buffer.isEmpty { console.write(String(decoding: buffer, as: UTF8.self)) }
        case .file(let file):
            if failure == nil, !buffer.isEmpty {
                var problem: ManifestFileError?
                buffer.withUnsafeBytes { bytes in
                    do throws(ManifestFileError) { try file.append(bytes) } catch { problem = error }
                }
                failure = problem
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }
}
