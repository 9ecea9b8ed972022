import BeaconFleet
import Foundation
import Synchronization

/// `--log FILE`: one JSON line per write, appended and flushed as it happens. A record has
/// no field for a password (only whether one was set), so none can reach the file.
final class ProvisioningWriteLog: Sendable {
    private let handle: FileHandle
    private let path: String
    private let problem = Mutex<CommandFailure?>(nil)

    init(path: String) throws(CommandFailure) {
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                throw CommandFailure(.usageOrInput, "--log \(path): cannot create it; check that its folder exists and is writable")
            }
        }
        guard let handle = FileHandle(forWritingAtPath: path) else {
            throw CommandFailure(.usageOrInput, "--log \(path): cannot open it for writing")
        }
        _ = try? handle.seekToEnd()
        self.handle = handle
        self.path = path
    }

    func append(_ record: ProvisioningWriteRecord) {
        do {
            let line = try JSONOutput.line(record) + "\n"
            try handle.write(contentsOf: Data(line.utf8))
        } catch {
            problem.withLock { $0 = $0 ?? CommandFailure(.usageOrInput, "--log \(path): a write was not recorded: \(error)") }
        }
    }

    var failure: CommandFailure? { problem.withLock { $0 } }

    func close() { try? handle.close() }
}
