import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An `--exec` program that never returns in time: each run records its process id (so
/// that the test can end it) and sleeps with its output away from the caller's pipes.
/// `killAll()` ends every run, however many were started.
struct HangingProgram {
    let scratch: ScratchFolder
    /// The command to give `--exec` or `ProgramHook`.
    let command: String

    init(in scratch: ScratchFolder) throws {
        self.scratch = scratch
        let script = try scratch.write("hang.sh", """
            echo $$ >> "\(scratch.path)/hung.pids"
            exec sleep 300 </dev/null >/dev/null 2>&1
            """)
        command = "/bin/sh \(script)"
    }

    func killAll() {
        let pids = (try? scratch.read("hung.pids")) ?? ""
        for pid in pids.split(separator: "\n").compactMap({ Int32($0) }) { kill(pid, SIGKILL) }
    }
}
