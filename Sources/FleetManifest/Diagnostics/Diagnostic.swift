public enum DiagnosticSeverity: String, Sendable, Codable {
    case error, warning, note
}

/// Extra context for a diagnostic, usually "the first one is here".
public struct DiagnosticNote: Hashable, Sendable {
    public var location: SourceLocation?
    public var message: String

    public init(location: SourceLocation?, message: String) {
        self.location = location
        self.message = message
    }
}

/// One problem found in a manifest.
public struct Diagnostic: Hashable, Sendable {
    public var severity: DiagnosticSeverity
    /// Stable kebab-case identifier, e.g. `duplicate-identity`; every code is documented in
    /// `docs/diagnostics.md`.
    public var code: String
    public var message: String
    public var location: SourceLocation
    public var notes: [DiagnosticNote]
    /// A suggested fix, e.g. "did you mean `minor`?".
    public var hint: String?

    public init(
        severity: DiagnosticSeverity, code: String, message: String, location: SourceLocation,
        notes: [DiagnosticNote] = [], hint: String? = nil
    ) {
        self.severity = severity
        self.code = code
        self.message = message
        self.location = location
        self.notes = notes
        self.hint = hint
    }

    /// `file:line:col: error[code]: message`, then each note as `file:line:col: note: …` and
    /// the hint as `  hint: …`, one per line.
    public var rendered: String {
        rendered(severityWord: { $0.rawValue })
    }

    /// The same text, with each severity word (`error`, `warning`, `note`) as
    /// `severityWord` writes it: how a terminal colours it, from the fields rather than by
    /// patching the text.
    public func rendered(severityWord: (DiagnosticSeverity) -> String) -> String {
        var text = "\(location): \(severityWord(severity))[\(code)]: \(message)"
        for note in notes {
            text += "\n"
            if let noteLocation = note.location { text += "\(noteLocation): " }
            text += "\(severityWord(.note)): \(note.message)"
        }
        if let hint { text += "\n  hint: \(hint)" }
        return text
    }
}
