/// Loads fleet manifests: YAML files → resolved fleet, with every problem found.
public enum ManifestLoader {
    /// Loads files and folders as one namespace. A folder stands for every `*.yaml` and
    /// `*.yml` file inside it, recursively, in sorted order (hidden files and folders are
    /// skipped). Paths that cannot be read are listed in `unreadableInputs`.
    ///
    /// With `keepingSnapshots`, the result also keeps each file's bytes as they were read
    /// (`ManifestLoadResult.snapshots`): a command that edits a manifest later works from
    /// exactly what was validated, and the write-back refuses a file changed since.
    public static func load(
        paths: [String], options: ValidationOptions = .init(), keepingSnapshots: Bool = false
    ) -> ManifestLoadResult {
        var session = LoadSession(options: options)
        var unreadable: [String] = []
        var snapshots: [String: ManifestFileSnapshot] = [:]
        let inputs = ManifestFiles.expand(paths)
        for problem in inputs.problems {
            unreadable.append(problem.path)
            session.reportUnreadable(problem)
        }
        for skipped in inputs.skippedLinks {
            session.reportSkippedLink(skipped.path, reason: skipped.reason, hint: skipped.hint)
        }
        for file in inputs.files {
            switch ManifestFiles.read(file, maxBytes: options.maxFileBytes) {
            case .contents(let bytes, let identity):
                session.read(file: file, bytes: bytes)
                if keepingSnapshots { snapshots[file] = ManifestFileSnapshot(path: file, bytes: bytes, identity: identity) }
            case .tooLarge(let size):
                session.skipTooLarge(file: file, size: size)
            case .failed(let problem):
                unreadable.append(file)
                session.reportUnreadable(problem)
            }
        }
        var result = session.finish(unreadableInputs: unreadable)
        result.snapshots = snapshots
        return result
    }

    /// Loads in-memory documents as one namespace; `name` stands for the file in
    /// diagnostics. Used by tests, the benchmark and importers.
    public static func load(
        sources: [(name: String, bytes: [UInt8])], options: ValidationOptions = .init()
    ) -> ManifestLoadResult {
        var session = LoadSession(options: options)
        for source in sources {
            session.read(file: source.name, bytes: source.bytes)
        }
        return session.finish()
    }
}
