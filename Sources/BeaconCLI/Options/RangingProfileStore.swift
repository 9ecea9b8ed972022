import BeaconCore
import FleetManifest
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where receiver profiles live and how they are read and written: one JSON document per
/// file, by default `$XDG_CONFIG_HOME/beaconctl/ranging-profile.json` (else
/// `~/.config/beaconctl/…`), the file `calibrate --walk` writes and `scan` and
/// `monitor --range` read.
enum RangingProfileStore {
    static let fileName = "ranging-profile.json"
    /// A profile is a few kilobytes; anything much larger is not one.
    static let maximumBytes = 1 << 20

    /// The default profile file, or `nil` when neither `XDG_CONFIG_HOME` nor `HOME` is set.
    static func defaultPath(environment: [String: String]) -> String? {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
            return config + "/beaconctl/" + fileName
        }
        guard let home = environment["HOME"], !home.isEmpty else { return nil }
        return home + "/.config/beaconctl/" + fileName
    }

    static func exists(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0
    }

    /// Reads and checks a profile; the error says which file and what is wrong with it.
    static func load(_ path: String) throws(CommandFailure) -> RangingProfile {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CommandFailure(.usageOrInput, "\(path): cannot open the ranging profile: \(String(cString: strerror(errno)))")
        }
        defer { try? handle.close() }
        let data: Data
        do {
            data = try handle.read(upToCount: maximumBytes + 1) ?? Data()
        } catch {
            throw CommandFailure(.usageOrInput, "\(path): cannot read the ranging profile: \(error.localizedDescription)")
        }
        guard data.count <= maximumBytes else {
            throw CommandFailure(.usageOrInput, "\(path): larger than \(maximumBytes / 1024) KiB, not a ranging profile")
        }
        let profile: RangingProfile
        do {
            profile = try JSONDecoder().decode(RangingProfile.self, from: data)
        } catch {
            throw CommandFailure(.usageOrInput, "\(path): not a ranging profile (\(describe(error))); write a new one with `beaconctl calibrate --walk`")
        }
        if let problem = profile.problem {
            throw CommandFailure(.usageOrInput, "\(path): the ranging profile cannot be used: \(problem); calibrate again with `beaconctl calibrate --walk`")
        }
        return profile
    }

    /// Writes `profile` to `path` atomically, creating the folder when missing: through
    /// `ManifestFileReplacement.write`, the one atomic write (a temporary file beside it,
    /// flushed, renamed, the folder flushed), so a crash leaves the old profile or the new.
    static func save(_ profile: RangingProfile, to path: String) throws(CommandFailure) {
        let folder = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        if !folder.isEmpty {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw CommandFailure(.usageOrInput, "\(folder): cannot create the folder for the ranging profile: \(error.localizedDescription)")
            }
        }
        let bytes: [UInt8]
        do {
            bytes = Array((try JSONOutput.document(profile) + "\n").utf8)
        } catch {
            throw CommandFailure(.usageOrInput, "cannot encode the ranging profile: \(error)")
        }
        do {
            try ManifestFileReplacement.write(bytes, to: path)
        } catch {
            throw CommandFailure(.usageOrInput, "the ranging profile: \(error.description)")
        }
    }

    /// A decoding error in a sentence: which key, what was wrong.
    private static func describe(_ error: any Error) -> String {
        guard let decoding = error as? DecodingError else { return "\(error)" }
        switch decoding {
        case .keyNotFound(let key, _): return "no `\(key.stringValue)`"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return "`\(path)`: \(context.debugDescription)"
        case .dataCorrupted(let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? "not valid JSON" : "`\(path)`: \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }
}
