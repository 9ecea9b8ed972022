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

/// Where the verdicts go: one format on standard output, and any number of report files.
struct VerifyReportOptions: ParsableArguments {
    @Option(help: "Report format on standard output: text, json, junit or markdown.")
    var format: VerifyReportFormat = .text

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
        try writeOutput(format.render(result, style: style), to: nil)
    }
}
