import ArgumentParser
import BeaconFleet

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

    func render(_ result: VerificationResult, style: Style) -> String {
        switch self {
        case .text: return VerifyTextReport.render(result, style: style)
        case .json: return VerificationJSONReport.render(result)
        case .junit: return VerificationJUnitReport.render(result)
        case .markdown: return VerificationMarkdownReport.render(result)
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

    /// Writes the report files (never coloured), then the report on standard output.
    func emit(_ result: VerificationResult, style: Style) throws {
        let plain = Style(choice: .never, isTerminal: false, environment: [:])
        for report in try reports() {
            try writeOutput(report.format.render(result, style: plain), to: report.path)
        }
        try writeOutput(standardOutputFormat.render(result, style: style), to: nil)
    }
}
