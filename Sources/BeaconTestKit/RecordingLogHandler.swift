import ClockTestKit
import HCITestKit
import Logging

/// A logger whose messages a test can await: for code whose only sign of having got
/// somewhere is what it logs (a scan announces no counter changes, but it warns about a
/// hardware error in the order the events came).
public struct RecordingLogHandler: LogHandler {
    public let messages: RecordedLog<String>
    public var logLevel: Logger.Level = .warning
    public var metadata: Logger.Metadata = [:]

    public init(messages: RecordedLog<String>) {
        self.messages = messages
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        messages.append("\(event.message)")
    }

    /// A logger at `level` that records into `messages`.
    public static func logger(recordingInto messages: RecordedLog<String>, level: Logger.Level = .warning) -> Logger {
        var logger = Logger(label: "test") { _ in RecordingLogHandler(messages: messages) }
        logger.logLevel = level
        return logger
    }
}
