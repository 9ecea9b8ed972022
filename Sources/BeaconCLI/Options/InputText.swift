import Foundation
import HCITransports

/// The whole text of `path`, or of standard input for `-`; read on a thread of its own (a
/// pipe may wait for as long as its writer takes), never on the cooperative pool.
func readInput(_ path: String) async throws -> String {
    let read: Result<String, CommandFailure>
    do {
        read = try await POSIXThread.run { () -> Result<String, CommandFailure> in
            if path == "-" {
                return .success(String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self))
            }
            do {
                return .success(String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self))
            } catch {
                return .failure(CommandFailure(.usageOrInput, "cannot read \(path): \(error.localizedDescription)"))
            }
        }
    } catch {
        throw CommandFailure(.usageOrInput, "cannot read \(path): \(error)")
    }
    return try read.get()
}
