/// Loads fleet manifests: YAML files → resolved fleet, with every problem found.
public enum ManifestLoader {
    /// Loads files and folders as one namespace. A folder stands for every `*.yaml` and
    /// `*.yml` file inside it, recursively, in sorted order (hidden files and folders are
    /// skipped). Paths that cannot be read are listed in `unreadableInputs`.
    public static func load(paths: [String], options: ValidationOptions = .init()) -> ManifestLoadResult {
        var session = LoadSession(options: options)
        var unreadable: [String] = []
        let inputs = ManifestFiles.expand(paths)
        for problem in inputs.problems {
            unreadable.append(problem.path)
            session.reportUnreadable(problem.path, reason: problem.reason)
        }
        for file in inputs.files {
            switch ManifestFiles.read(file, maxBytes: options.maxFileBytes) {
            case .contents(let bytes):
                session.read(file: file, bytes: bytes)
            case .tooLarge(let size):
                session.skipTooLarge(file: file, size: size)
            case .failed(let reason):
                unreadable.append(file)
                session.reportUnreadable(file, reason: reason)
            }
        }
        return session.finish(unreadableInputs: unreadable)
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
