import ArgumentParser
import BeaconCore

/// `--region ID=UUID[/MAJOR[/MINOR]]`: a region given on the command line. Absent values
/// are wildcards, as in `CLBeaconRegion`; a minor needs a major.
struct MonitorRegionOption: ExpressibleByArgument {
    var region: BeaconRegion

    init?(argument: String) {
        guard let parsed = try? Self.parse(argument) else { return nil }
        region = parsed
    }

    static func parse(_ argument: String) throws(ValidationError) -> BeaconRegion {
        let format = "write ID=UUID, ID=UUID/MAJOR or ID=UUID/MAJOR/MINOR"
        guard let equals = argument.firstIndex(of: "="), equals != argument.startIndex else {
            throw ValidationError("--region \(argument): no identifier; \(format)")
        }
        let identifier = String(argument[..<equals])
        let parts = argument[argument.index(after: equals)...].split(separator: "/", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { throw ValidationError("--region \(argument): \(format)") }
        let uuid: ProximityUUID
        do {
            uuid = try ProximityUUID(parsing: String(parts[0]))
        } catch {
            throw ValidationError("--region \(argument): \(error)")
        }
        var numbers: [UInt16] = []
        for (name, text) in zip(["major", "minor"], parts.dropFirst()) {
            guard let value = UInt16(text) else {
                throw ValidationError("--region \(argument): the \(name) must be 0 to 65535; got \"\(text)\"")
            }
            numbers.append(value)
        }
        let major = numbers.first
        let minor = numbers.count > 1 ? numbers[1] : nil
        guard let region = BeaconRegion(identifier: identifier, uuid: uuid, major: major, minor: minor) else {
            throw ValidationError("--region \(argument): \(format)")
        }
        return region
    }
}
