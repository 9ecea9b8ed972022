#if os(Linux)
import Foundation
import Glibc
import BeaconTestKit
import ProcessTestKit
import Synchronization

/// `beaconctl` run as a child with its standard input a pipe the test writes, its output
/// read as it comes by libdispatch (no cooperative thread waits on a pipe), and its exit
/// followed by `ChildProcessExit`: the live tests of `verify --watch`.
struct LiveWatchChild {
    let process = Process()
    private let stdin = Pipe()
    private let stdout = Pipe()
    private let stderr = Pipe()
    private let exit: ChildProcessExit
    /// Standard output as it arrives.
    let chunks: AsyncStream<Data>
    private let arrived: AsyncStream<Data>.Continuation
    /// Standard error, read as it comes too: a full pipe would stall the child.
    private let errors = ErrorText()

    private final class ErrorText: Sendable {
        let data = Mutex(Data())
    }

    init(_ binary: String, _ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        let (chunks, arrived) = AsyncStream<Data>.makeStream()
        self.chunks = chunks
        self.arrived = arrived
        stdout.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty { arrived.finish() } else { arrived.yield(data) }
        }
        let errors = errors
        stderr.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            errors.data.withLock { $0.append(data) }
        }
        exit = try ChildProcessExit.run(process)
    }

    func write(_ text: String) {
        stdin.fileHandleForWriting.write(Data(text.utf8))
    }

    /// Sends `signal` once the child catches it (its handlers are installed), waits for its
    /// exit, and returns its status with the rest of its standard output and all of its
    /// standard error. The rest is taken without waiting for the pipes' ends, which a child
    /// another test spawned meanwhile may hold open (see TruthUnderFaultTests.drain).
    func stop(with signal: Int32 = SIGTERM) async throws -> (status: ChildProcessExit.Status, output: String, errors: String) {
        try await ProcessSignals.waitUntilCatching([SIGINT, SIGTERM], pid: process.processIdentifier)
        kill(process.processIdentifier, signal)
        let status = try await exit.wait(for: "the watch ending after the signal")
        stdout.fileHandleForReading.readabilityHandler = nil
        stderr.fileHandleForReading.readabilityHandler = nil
        arrived.finish()
        var output = ""
        for await chunk in chunks { output += String(decoding: chunk, as: UTF8.self) }
        output += String(decoding: TruthUnderFaultTests.drain(stdout.fileHandleForReading.fileDescriptor), as: UTF8.self)
        let rest = TruthUnderFaultTests.drain(stderr.fileHandleForReading.fileDescriptor)
        let errorText = errors.data.withLock { String(decoding: $0 + rest, as: UTF8.self) }
        try? stdin.fileHandleForWriting.close()
        return (status, output, errorText)
    }
}
#endif
