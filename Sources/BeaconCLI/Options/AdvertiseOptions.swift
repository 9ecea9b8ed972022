import ArgumentParser
import BeaconCore
import BeaconFleet
import FleetManifest
import HCI

/// One beacon given on the command line.
struct AdvertiseBeaconOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Proximity UUID, 8-4-4-4-12 hexadecimal.", valueName: "uuid"))
    var uuid: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Major, 0 to 65535.", valueName: "number"))
    var major: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("Minor, 0 to 65535.", valueName: "number"))
    var minor: Int?

    // Unconditional: the value is negative, and must not be taken for an option.
    @Option(parsing: .unconditional, help: ArgumentHelp(
        "RSSI at 1 m in dBm (-127 to -1), or auto: the controller's advertising TX power - 41 dB (default: auto).",
        valueName: "dbm|auto"))
    var measuredPower: String?

    @Option(name: .customLong("interval-ms"), parsing: .unconditional, help: ArgumentHelp("Advertising interval, 20 to 10240 ms (default: 100).", valueName: "ms"))
    var intervalMilliseconds: Double?

    @Option(parsing: .unconditional, help: ArgumentHelp("TX power to ask of the controller, -127 to 20 dBm (default: 0).", valueName: "dbm"))
    var txPower: Int?

    var isAnyGiven: Bool {
        uuid != nil || major != nil || minor != nil || measuredPower != nil || intervalMilliseconds != nil || txPower != nil
    }

    /// The flags that describe one beacon, as the user spelled them, for error messages.
    var givenFlags: [String] {
        [
            uuid.map { _ in "--uuid" }, major.map { _ in "--major" }, minor.map { _ in "--minor" },
            measuredPower.map { _ in "--measured-power" }, intervalMilliseconds.map { _ in "--interval-ms" },
            txPower.map { _ in "--tx-power" },
        ].compactMap { $0 }
    }

    /// Checks every value; the request it makes is valid for any controller.
    func request() throws -> AdvertisingRequest {
        let missing = [uuid == nil ? "--uuid" : nil, major == nil ? "--major" : nil, minor == nil ? "--minor" : nil]
            .compactMap { $0 }
        guard missing.isEmpty, let uuid, let major, let minor else {
            throw ValidationError("a beacon needs --uuid, --major and --minor; missing \(missing.joined(separator: ", ")).")
        }
        let proximityUUID: ProximityUUID
        do {
            proximityUUID = try ProximityUUID(parsing: uuid)
        } catch {
            throw ValidationError("--uuid \(uuid): \(error).")
        }
        guard let major16 = UInt16(exactly: major) else {
            throw ValidationError("--major \(major) is outside 0 to 65535 (a 16-bit field of the iBeacon frame).")
        }
        guard let minor16 = UInt16(exactly: minor) else {
            throw ValidationError("--minor \(minor) is outside 0 to 65535 (a 16-bit field of the iBeacon frame).")
        }
        let milliseconds = intervalMilliseconds ?? 100
        guard milliseconds.isFinite, AdvertisingRequest.intervalRange.contains(milliseconds),
            let interval = try? AdvertisingInterval(milliseconds: milliseconds)
        else {
            throw ValidationError(
                "--interval-ms \(NumberText.plain(milliseconds)) is outside 20 to 10240 ms, the advertising intervals controllers accept.")
        }
        let power = txPower ?? 0
        guard AdvertisingRequest.txPowerRange.contains(power), let txPower8 = Int8(exactly: power) else {
            throw ValidationError("--tx-power \(power) is outside -127 to 20 dBm.")
        }
        return AdvertisingRequest(
            identity: BeaconIdentity(uuid: proximityUUID, major: major16, minor: minor16),
            measuredPower: try Self.parseMeasuredPower(measuredPower), interval: interval, txPower: txPower8)
    }

    static func parseMeasuredPower(_ text: String?) throws -> MeasuredPower {
        guard let text, text.lowercased() != "auto" else { return .auto }
        guard let value = Int(text) else {
            throw ValidationError("--measured-power \(text) is neither a number of dBm nor auto.")
        }
        guard MeasuredPower.validRange.contains(value), let dBm = Int8(exactly: value) else {
            throw ValidationError(
                "--measured-power \(value) is outside -127 to -1 dBm (the RSSI 1 m from a beacon is always negative).")
        }
        return .dBm(dBm)
    }
}

/// Beacons taken from a manifest.
struct AdvertiseManifestOptions: ParsableArguments {
    @Option(help: ArgumentHelp("A manifest file, or a folder of them (one namespace).", valueName: "path"))
    var manifest: [String] = []

    @Option(name: .customLong("beacon"), help: ArgumentHelp("Advertise the manifest's beacon with this id (repeatable).", valueName: "id"))
    var beaconIDs: [String] = []

    @Option(help: ArgumentHelp("Advertise the beacons whose host is NAME (default: this machine's host name).", valueName: "name"))
    var host: String?

    @Flag(help: "Advertise every beacon of the manifest.")
    var all = false

    var isAnyGiven: Bool { !manifest.isEmpty || !beaconIDs.isEmpty || host != nil || all }

    func validate() throws {
        if manifest.isEmpty, !beaconIDs.isEmpty || host != nil || all {
            let flag = !beaconIDs.isEmpty ? "--beacon" : host != nil ? "--host" : "--all"
            throw ValidationError("\(flag) chooses beacons of a manifest; name it with --manifest PATH.")
        }
        let selectors = [!beaconIDs.isEmpty ? "--beacon" : nil, host != nil ? "--host" : nil, all ? "--all" : nil].compactMap { $0 }
        if selectors.count > 1 {
            throw ValidationError("\(selectors.joined(separator: " and ")) both choose beacons; pass one of them.")
        }
        if let host, host.isEmpty {
            throw ValidationError("--host needs a host name.")
        }
    }

    /// Which beacons: by id, all, or by host (this machine's name unless given).
    func selection() throws(CommandFailure) -> ManifestBeaconSelection {
        if !beaconIDs.isEmpty { return .ids(beaconIDs) }
        if all { return .all }
        if let host { return .host(host) }
        guard let thisHost = ManifestBeaconSelection.thisHost() else {
            throw CommandFailure(.usageOrInput, "cannot read this machine's host name; pass --host NAME, --beacon ID or --all")
        }
        return .host(thisHost)
    }
}

/// How `advertise` reports: text for people, or one JSON object per line.
enum AdvertiseFormat: String, CaseIterable, ExpressibleByArgument {
    case text, json
}

/// `--family`: which advertising command family to use.
enum AdvertiseFamilyOption: String, CaseIterable, ExpressibleByArgument {
    case auto, legacy, extended

    var choice: AdvertisingFamilyChoice {
        switch self {
        case .auto: return .auto
        case .legacy: return .legacy
        case .extended: return .extended
        }
    }
}
