import Testing

/// Runs `body` against a fresh RootCanal and stops it afterwards (SIGTERM, then SIGKILL),
/// whether `body` returns, throws or records issues.
///
///     @Suite("advertising", .requiresRootCanal, .timeLimit(.minutes(1)))
///     struct AdvertisingTests {
///         @Test func oneBeacon() async throws {
///             try await withRootCanal { rootCanal in
///                 // Each open of rootCanal.hciTransportSpec ("tcp-client:127.0.0.1:PORT")
///                 // is a new controller on the same air.
///             }
///         }
///     }
///
/// Run `scripts/setup-venv.sh` once, then `swift test --filter IntegrationTests`.
/// RootCanal's RSSI is synthetic: never assert on it. Its timing is real.
///
/// - When RootCanal is not installed: with `CI=true` the test fails, naming the setup
///   command; elsewhere it is cancelled with that reason (suites also carry
///   `.requiresRootCanal`, which lists them as skipped before they start).
/// - When RootCanal died during the test (a command it could not parse makes it abort),
///   a failure is recorded with the last lines of its output, unless `expectingDeath`.
/// - When `body` throws, RootCanal's log is kept and its tail shown as a warning.
func withRootCanal<Value>(
    expectingDeath: Bool = false,
    isolation: isolated (any Actor)? = #isolation,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: (RootCanal) async throws -> Value
) async throws -> Value {
    let installation: RootCanalInstallation
    switch RootCanalInstallation.current {
    case .success(let found):
        installation = found
    case .failure(let unavailable):
        if RootCanalInstallation.isRequired { throw unavailable }
        try Test.cancel(Comment(rawValue: unavailable.description), sourceLocation: sourceLocation)
    }

    let rootCanal = try await RootCanal.start(installation)
    let outcome: Result<Value, any Error>
    do {
        outcome = .success(try await body(rootCanal))
    } catch {
        outcome = .failure(error)
    }
    await rootCanal.stop()

    if !expectingDeath {
        rootCanal.recordIssueIfDied(sourceLocation: sourceLocation)
    }
    // The log is kept when it explains a failure: an unexpected death, or a throwing body.
    let diedUnexpectedly = !expectingDeath && rootCanal.deathReport != nil
    switch outcome {
    case .success where !diedUnexpectedly:
        rootCanal.removeLog()
    case .failure where !diedUnexpectedly:
        Issue.record(
            Comment(rawValue: "RootCanal was still running when the test failed. \(rootCanal.logTailSection())"),
            severity: .warning, sourceLocation: sourceLocation)
    default:
        break  // the death report already names the kept log
    }
    return try outcome.get()
}

extension RootCanal {
    /// Records a test failure, with the last lines RootCanal printed, if it died rather than
    /// being stopped. `withRootCanal` calls it at the end of every test.
    func recordIssueIfDied(sourceLocation: SourceLocation = #_sourceLocation) {
        if let deathReport {
            Issue.record(Comment(rawValue: deathReport), sourceLocation: sourceLocation)
        }
    }
}
