/// One load: files are read one after the other into a shared namespace, then the
/// cross-file rules run and the fleet is assembled.
struct LoadSession {
    let options: ValidationOptions
    let log: DiagnosticLog
    private var namespace = Namespace()

    /// The schema versions this build reads.
    static let supportedVersions = [1]

    init(options: ValidationOptions) {
        self.options = options
        log = DiagnosticLog(limit: options.maxDiagnostics)
    }

    /// Reads one file's bytes into the namespace.
    mutating func read(file: String, bytes: [UInt8]) {
        guard bytes.count <= options.maxFileBytes else {
            skipTooLarge(file: file, size: bytes.count)
            return
        }
        namespace.files.append(file)
        if let encoding = Self.utf16Encoding(of: bytes) {
            log.emit(
                .invalidEncoding, "the file is \(encoding) text; manifests are UTF-8",
                at: SourceLocation(file: file, line: 1, column: 1),
                hint: "save the file as UTF-8 (most editors offer it under \"Save with encoding\")")
            return
        }
        let diagnosticsBefore = log.count
        // libyaml is told the text is UTF-8 (so that it never guesses UTF-16), and then
        // takes a byte-order mark for a character of line 1: the reader starts after it.
        let textStart = ByteOrderMark.utf8Length(of: bytes)
        let draft: DocumentDraft? = bytes.withUnsafeBufferPointer { whole in
            let buffer = UnsafeBufferPointer(rebasing: whole[textStart...])
            var reader = ManifestReader(file: file, bytes: buffer, maxDepth: options.maxDepth, log: log)
            return reader.readManifest(bytes: buffer)
        }
        guard let draft else { return }
        if let version = draft.version, !Self.supportedVersions.contains(version.value) {
            // A manifest of another version would only produce noise under version 1's
            // rules: report the version alone.
            log.truncate(to: diagnosticsBefore)
            log.emit(
                .unsupportedVersion,
                "manifest version \(version.value == Int.max ? "(too large)" : String(version.value)) is not supported; this build reads version \(Self.supportedVersions.map(String.init).joined(separator: ", "))",
                at: SourceLocation(file: file, line: Int(version.mark.line), column: Int(version.mark.column)),
                hint: "write `version: 1`, or use a beaconctl that reads this version")
            return
        }
        DocumentResolver(file: file, log: log, options: options).resolve(draft, into: &namespace)
    }

    /// Notes a file too large to read: it is part of the load, but nothing of it is read.
    mutating func skipTooLarge(file: String, size: Int) {
        namespace.files.append(file)
        log.emit(
            .fileTooLarge,
            "the file is \(size) bytes, over the limit of \(options.maxFileBytes) bytes; it was not read",
            at: SourceLocation(file: file, line: 1, column: 1),
            hint: "a manifest of a million beacons is about 200 MB; if this one is real, raise the file size limit")
    }

    func reportUnreadable(_ problem: ManifestFiles.Unreadable) {
        log.emit(.unreadableInput, problem.reason, at: .wholeFile(problem.path), hint: problem.hint)
    }

    func reportSkippedLink(_ path: String, reason: String, hint: String) {
        log.emit(.linkNotFollowed, reason, at: .wholeFile(path), hint: hint)
    }

    /// Runs the cross-file rules and returns everything found.
    mutating func finish(unreadableInputs: [String] = []) -> ManifestLoadResult {
        let fleet = NamespaceChecks(log: log, options: options).run(on: &namespace)
        namespace = Namespace()
        return ManifestLoadResult(fleet: fleet, diagnostics: log.sorted(), unreadableInputs: unreadableInputs)
    }

    /// A UTF-16 byte-order mark: such files are text, just not UTF-8, and deserve a
    /// clearer message than libyaml's complaint about NUL bytes.
    private static func utf16Encoding(of bytes: [UInt8]) -> String? {
        guard bytes.count >= 2 else { return nil }
        switch (bytes[0], bytes[1]) {
        case (0xFF, 0xFE): return "UTF-16 (little-endian)"
        case (0xFE, 0xFF): return "UTF-16 (big-endian)"
        default: return nil
        }
    }
}
