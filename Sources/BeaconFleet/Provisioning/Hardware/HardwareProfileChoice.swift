import BeaconProfiles
import Foundation

/// Which vendor profile configures the beacons: `--profile auto|NAME|FILE`.
public enum HardwareProfileChoice: Hashable, Sendable, CustomStringConvertible {
    /// From the advertisement, else from the GATT services once connected; beaconctl's own
    /// profiles and the shipped declarative ones are considered.
    case auto
    case kbeacon
    case eddystoneGATT
    /// A declarative profile: shipped, or the user's own file (docs/profiles.md).
    case declarative(ProfileDefinition)

    public var description: String {
        switch self {
        case .auto: "auto"
        case .kbeacon: "kbeacon"
        case .eddystoneGATT: "eddystone-gatt"
        case .declarative(let definition): definition.name
        }
    }

    /// `--profile`'s argument: a name above (`shipped` are the shipped profiles), or the path
    /// of a profile file (one with a `/`, ending in `.yaml`/`.yml`, or an existing file). A file with problems is refused with each of them at its
    /// line and column.
    public static func resolve(
        _ argument: String, shipped: [ProfileDefinition] = ShippedProfiles.all
    ) throws(HardwareProvisioningError) -> HardwareProfileChoice {
        switch argument {
        case "auto": return .auto
        case "kbeacon": return .kbeacon
        case "eddystone-gatt": return .eddystoneGATT
        default: break
        }
        if let named = shipped.first(where: { $0.name == argument }) { return .declarative(named) }
        let looksLikeFile = argument.contains("/") || argument.hasSuffix(".yaml") || argument.hasSuffix(".yml")
        guard looksLikeFile || FileManager.default.fileExists(atPath: argument) else {
            throw .usage(
                "--profile \(argument): no such profile; the profiles are \((["auto", "kbeacon", "eddystone-gatt"] + shipped.map(\.name)).joined(separator: ", ")), or give the path of a profile file (docs/profiles.md)")
        }
        let bytes = try readProfileFile(argument)
        switch ProfileDefinitionReader.read(bytes, file: argument) {
        case .success(let definition): return .declarative(definition)
        case .failure(let error): throw .usage("--profile \(argument): the profile file cannot be used:\n\(error.description)")
        }
    }

    /// At most one byte more than a profile may be, so that a wrong path to a large file
    /// costs nothing.
    private static func readProfileFile(_ path: String) throws(HardwareProvisioningError) -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw .usage("--profile \(path): cannot open the profile file (\(String(cString: strerror(errno)))): check the path")
        }
        defer { try? handle.close() }
        do {
            let data = try handle.read(upToCount: ProfileDefinitionReader.maximumFileSize + 1) ?? Data()
            return [UInt8](data)
        } catch {
            throw .usage("--profile \(path): cannot read the profile file: \(error.localizedDescription)")
        }
    }
}
