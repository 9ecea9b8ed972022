import HCITestKit
import Logging

/// A logger whose messages a test can await: for code whose only sign of having got
/// somewhere is what it logs (a scan announces no counter changes, but it warns about a
/// hardware error in the order the events came).
struct RecordingLogHandler: LogHandler {
    let messages: RecordedLog<String>
    var logLevel: Logger.Level = .warning
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        messages.append("\(event.message)")
    }

    /// A logger at `level` that records into `messages`.
    static func logger(recordingInto messages: RecordedLog<String>, level: Logger.Level = .warning) -> Logger {
        var logger = Logger(label: "test") { _ in RecordingLogHandler(messages: messages) }
        logger.logLevel = level
        return logger
    }
}
