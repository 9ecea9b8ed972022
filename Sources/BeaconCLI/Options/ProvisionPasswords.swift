import BeaconProfiles
import Foundation

/// Where `provision --hardware` takes the beacons' passwords from: a file's first line, or
/// the environment, never the command line (where `ps` and shell history would show it),
/// the manifest, the output or the log.
enum ProvisionPasswords {
    static let currentVariable = "BEACONCTL_BEACON_PASSWORD"
    static let newVariable = "BEACONCTL_BEACON_NEW_PASSWORD"
    /// A password file longer than this is not a password file.
    static let fileLimit = 4096

    /// The password from `file` (its first line, without the line break) or else from
    /// `variable`; `nil` when neither gives one.
    static func read(file: String?, variable: String, environment: [String: String], flag: String) throws(CommandFailure) -> BeaconPassword? {
        if let file {
            guard let handle = FileHandle(forReadingAtPath: file) else {
                throw CommandFailure(.usageOrInput, "\(flag) \(file): cannot read it; check the path and that it is readable")
            }
            defer { try? handle.close() }
            let bytes = (try? handle.read(upToCount: fileLimit + 1)) ?? Data()
            if bytes.count > fileLimit {
                throw CommandFailure(.usageOrInput, "\(flag) \(file): longer than \(fileLimit) bytes; it should hold the password on its first line")
            }
            guard let text = String(data: bytes, encoding: .utf8) else {
                throw CommandFailure(.usageOrInput, "\(flag) \(file): not UTF-8 text")
            }
            // "\r\n" is one Character: stopping at any line break takes CRLF files too.
            let password = String(text.prefix { !$0.isNewline })
            if password.isEmpty {
                throw CommandFailure(.usageOrInput, "\(flag) \(file): the first line is empty; put the password on it")
            }
            return BeaconPassword(password)
        }
        if let value = environment[variable], !value.isEmpty {
            return BeaconPassword(value)
        }
        return nil
    }
}
