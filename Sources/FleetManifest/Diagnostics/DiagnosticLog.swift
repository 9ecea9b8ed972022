import BeaconCore

/// Collects diagnostics up to a limit; past it, problems are only counted, so a hostile
/// file cannot grow the report without bound.
///
/// One log serves a whole load (all files), shared by reference between the readers and
/// checks that report into it.
final class DiagnosticLog {
    private(set) var diagnostics: [Diagnostic] = []
    /// Problems found after the limit was reached.
    private(set) var suppressedCount = 0
    /// Errors found so far, reported or not: readers compare it before and after a beacon
    /// to know whether the beacon had any error.
    private(set) var errorCount = 0
    let limit: Int

    init(limit: Int) {
        self.limit = max(limit, 0)
    }

    var count: Int { diagnostics.count }

    /// Records a problem. The texts are built only if the diagnostic is kept: past the
    /// limit, a hostile file costs a counter increment per problem, not a message.
    func emit(
        _ code: DiagnosticCode, _ message: @autoclosure () -> String,
        at location: @autoclosure () -> SourceLocation,
        notes: @autoclosure () -> [DiagnosticNote] = [], hint: @autoclosure () -> String? = nil
    ) {
        if code.severity == .error { errorCount += 1 }
        guard diagnostics.count < limit else {
            suppressedCount += 1
            return
        }
        diagnostics.append(
            Diagnostic(
                severity: code.severity, code: code.rawValue, message: message(), location: location(),
                notes: notes(), hint: hint()))
    }

    /// Drops everything emitted after the first `count` diagnostics (used when a document
    /// turns out to be of a version this build does not read: its other findings are noise).
    func truncate(to count: Int) {
        if count < diagnostics.count { diagnostics.removeSubrange(count...) }
    }

    /// The diagnostics in report order: by file, line and column, then in the order found.
    /// Adds a closing `too-many-diagnostics` error when some were dropped.
    func sorted() -> [Diagnostic] {
        var ordered = diagnostics.enumerated().sorted { lhs, rhs in
            if lhs.element.location != rhs.element.location {
                return lhs.element.location < rhs.element.location
            }
            return lhs.offset < rhs.offset
        }.map(\.element)
        if suppressedCount > 0, let last = ordered.last {
            ordered.append(
                Diagnostic(
                    severity: .error, code: DiagnosticCode.tooManyDiagnostics.rawValue,
                    message: "\(NumberText.count(suppressedCount, "more problem")) found but not reported; the report stops at \(limit)",
                    location: SourceLocation.wholeFile(last.location.file),
                    hint: "fix the problems above and run again, or raise the diagnostics limit"))
        }
        return ordered
    }
}
