import ArgumentParser
import BeaconFleet
import FleetManifest

/// The formats a verification report comes in.
enum VerifyReportFormat: String, CaseIterable, ExpressibleByArgument, Sendable {
    case text, json, junit, markdown

    /// The format a report file's extension implies: .txt, .json, .xml (JUnit), .md.
    init?(extensionOf path: String) {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        switch name[name.index(after: dot)...].lowercased() {
        case "txt", "text": self = .text
        case "json": self = .json
        case "xml", "junit": self = .junit
        case "md", "markdown": self = .markdown
        default: return nil
        }
    }

    /// The report of this format, written into `sink` as the verdicts come.
    func report(into sink: ReportSink, style: Style) -> any StreamedVerificationReport {
        switch self {
        case .text: return VerifyTextReport(sink, style: style)
        case .json: return VerificationJSONReport(sink)
        case .junit: return VerificationJUnitReport(sink)
        case .markdown: return VerificationMarkdownReport(sink)
        }
    }
}

/// What `--format` accepts: a report format, or `jsonl`, the event stream of `verify --watch`.
enum VerifyOutputFormat: String, CaseIterable, ExpressibleByArgument, Sendable {
    case text, json, junit, markdown, jsonl

    /// The report format it names; `nil` for the event stream.
    var report: VerifyReportFormat? { VerifyReportFormat(rawValue: rawValue) }
}

/// Where the verdicts go: one format on standard output, and any number of report files.
struct VerifyReportOptions: ParsableArguments {
    @Option(help: "Report format on standard output: text (the default), json, junit or markdown; with `verify --watch`, text or jsonl.")
    var format: VerifyOutputFormat?

    /// The report format for standard output (text unless --format names another).
    var standardOutputFormat: VerifyReportFormat { format?.report ?? .text }

    @Option(
        name: .customLong("report"),
        help: ArgumentHelp(
            "Also write a report to this file; repeat for several.",
            discussion: "Its format comes from the matching --report-format, else from the extension: .txt, .json, .xml (JUnit), .md.",
            valueName: "file"))
    var reportFiles: [String] = []

    @Option(
        name: .customLong("report-format"),
        help: "The format of the matching --report, in the same order: text, json, junit or markdown.")
    var reportFormats: [VerifyReportFormat] = []

    func validate() throws {
        if reportFormats.count > reportFiles.count {
            throw ValidationError(
                "\(reportFormats.count) --report-format for \(reportFiles.count) --report: give one format per report file, in the same order.")
        }
        _ = try reports()
    }

    /// Refuses the event stream where a single report is made.
    func checkReportFormat(command: String) throws {
        if format == .jsonl {
            throw ValidationError("--format jsonl is the event stream of `verify --watch`; \(command) writes one report: use text, json, junit or markdown.")
        }
    }

    /// Each report file with its format.
    func reports() throws -> [(path: String, format: VerifyReportFormat)] {
        try reportFiles.enumerated().map { index, path in
            if index < reportFormats.count { return (path, reportFormats[index]) }
            guard let format = VerifyReportFormat(extensionOf: path) else {
                throw ValidationError(
                    "cannot tell the format of report `\(path)` from its extension; name it .txt, .json, .xml or .md, or pass --report-format.")
            }
            return (path, format)
        }
    }

    /// Writes the report files (never coloured) and the report on standard output in one
    /// walk over the verdicts, each as it is made. Every file is created before the first
    /// line is written, so that a folder that cannot take one fails before any output; each
    /// replaces the file at its path only once it is complete.
    func emit(_ result: VerificationResult, style: Style) throws {
        let plain = Style(choice: .never, isTerminal: false, environment: [:])
        var sinks: [ReportSink] = []
        var writers: [any StreamedVerificationReport] = []
        let files = try reports()
        do throws(ManifestFileError) {
            for report in files {
                let sink = try ReportSink.file(report.path)
                sinks.append(sink)
                writers.append(report.format.report(into: sink, style: plain))
            }
        } catch {
            throw CommandFailure(.usageOrInput, error.description)
        }
        let standardOutput = ReportSink.console(Console.current)
        writers.append(standardOutputFormat.report(into: standardOutput, style: style))
        VerificationReportPass.write(result, to: writers)
        do throws(ManifestFileError) {
            for sink in sinks { try sink.finish() }
            try standardOutput.finish()
        } catch {
            throw CommandFailure(.usageOrInput, error.description)
        }
    }
}
