import YAMLDocument

/// Turning the reasons a YAML stream stopped into diagnostics.
extension ManifestReader {
    func reportStreamFailure(_ failure: YAMLStreamFailure, bytes: UnsafeBufferPointer<UInt8>) {
        switch failure {
        case .encoding(let problem, let offset, let byte):
            let (start, lead) = Self.malformedSequenceStart(
                reportedOffset: offset, trailingByte: problem.contains("trailing"), in: bytes)
            let what: String
            if problem.hasPrefix("control characters") {
                what = "control character \(Self.hexByte(byte)) at byte offset \(offset) (NUL and other control characters cannot appear in YAML)"
            } else if problem.hasPrefix("incomplete") {
                what = "the file ends inside a UTF-8 sequence that starts with byte \(Self.hexByte(Int32(lead))) at offset \(start)"
            } else {
                what = "invalid UTF-8 sequence starting with byte \(Self.hexByte(Int32(lead))) at offset \(start)"
            }
            report(
                .invalidEncoding, "not UTF-8 text: \(what)",
                at: TextPosition.of(byteOffset: problem.hasPrefix("control characters") ? offset : start, in: bytes),
                hint: "manifests are UTF-8 text files; is this a binary file, or saved in another encoding (Latin-1, Windows-1252)?")
        case .syntax(let problem, let mark, let context, let contextMark):
            var notes: [DiagnosticNote] = []
            if let context, let contextMark {
                notes.append(DiagnosticNote(location: location(contextMark), message: "\(context) that starts here"))
            }
            report(.yamlSyntax, "YAML syntax error: \(problem)", at: mark, notes: notes)
        case .tooDeep(let mark, let limit):
            report(
                .nestingTooDeep,
                "mappings and lists are nested more than \(limit) levels deep here; a manifest needs 6",
                at: mark, hint: "this is not a fleet manifest, or its structure is broken")
        }
    }

    /// libyaml reports a bad trailing byte at its own offset, inside the sequence; people
    /// want the byte that started it (the Latin-1 `é`, not the letter after it). Other
    /// problems are reported at the offending byte already.
    static func malformedSequenceStart(
        reportedOffset offset: Int, trailingByte: Bool, in bytes: UnsafeBufferPointer<UInt8>
    ) -> (offset: Int, byte: UInt8) {
        guard offset < bytes.count else { return (offset, 0) }
        if trailingByte {
            // A UTF-8 sequence is at most 4 bytes: its lead is at most 3 bytes back.
            for start in stride(from: offset - 1, through: max(0, offset - 3), by: -1) where bytes[start] & 0xC0 == 0xC0 {
                return (start, bytes[start])
            }
        }
        return (offset, bytes[offset])
    }

    static func hexByte(_ value: Int32) -> String {
        let digits = String(UInt8(truncatingIfNeeded: value), radix: 16, uppercase: true)
        return "0x" + (digits.count == 1 ? "0" + digits : digits)
    }
}
