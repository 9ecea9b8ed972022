import BeaconFleet
import Foundation

/// `plan coverage --output-dir`: VENUE.svg and VENUE.html for each map, each file said on
/// standard error as it is written.
enum CoverageFiles {
    static func write(_ reports: [CoverageReport], to directory: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw CommandFailure(.usageOrInput, "cannot create the folder \(directory): \(error.localizedDescription)")
        }
        for report in reports {
            let stem = directory + "/" + safeFileName(report.map.venue.fileStem)
            try writeOutput(CoverageSVG(map: report.map, summary: report.summary).render(), to: stem + ".svg")
            try writeOutput(CoverageHTML(map: report.map, summary: report.summary).render(), to: stem + ".html")
            Console.current.errorLine("wrote \(stem).svg and \(stem).html")
        }
    }

    /// Venue and zone ids are free text: keep a file name to one path component.
    static func safeFileName(_ stem: String) -> String {
        let cleaned = String(stem.map { $0 == "/" || $0 == "\\" || $0 == "\0" ? "_" : $0 })
        return cleaned.hasPrefix(".") ? "_" + cleaned.dropFirst() : cleaned
    }
}

/// The `--format json` document: one summary per map.
struct CoverageReportJSON: Encodable {
    var maps: [CoverageSummary]
}
