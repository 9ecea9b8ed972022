import Logging

/// A swift-log handler writing `level: message [key=value …]` lines to the console's
/// standard error, so logs never mix with the machine-readable standard output.
struct ConsoleLogHandler: LogHandler {
    let label: String
    let console: Console
    var logLevel: Logger.Level = .notice
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { _, new in new } }
        let fields = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        console.errorLine("\(event.level): \(event.message)" + (fields.isEmpty ? "" : " [\(fields)]"))
    }
}
