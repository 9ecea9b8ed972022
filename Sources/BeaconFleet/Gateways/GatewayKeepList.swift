import BeaconCore
import FleetManifest

/// Which devices a receiver should report, made from the manifest's beacons (docs/gateways.md,
/// "Keep only the fleet's beacons"): each gateway's own list, in its own spelling.
///
/// - ESPresense keeps devices whose id starts with one of the space-separated prefixes of
///   its `include` setting (`BleFingerprint::shouldHide` in `src/BleFingerprint.cpp`:
///   `prefixExists(include, id)`; the setting's text in `BleFingerprintCollection.cpp`,
///   ESPresense/ESPresense). An iBeacon's id is `iBeacon:UUID-MAJOR-MINOR`, the UUID in lower
///   case with dashes, so `iBeacon:UUID-MAJOR-` keeps every minor of one UUID and major and
///   nothing else: one prefix per (UUID, major) of the beacons. Beacons that copy the fleet's
///   numbers stay in view, which the audit wants (`duplicate`, `unexpected`).
/// - Theengs Gateway keeps the addresses of its `whitelist` (`detection_callback` in
///   `TheengsGateway/ble_gateway.py`, theengs/gateway; the key in `config.py`'s
///   `DEFAULT_CONFIG`), compared as Bleak writes them: `AA:BB:CC:DD:EE:FF`.
/// - OpenMQTTGateway keeps the addresses of its `white-list` (`updateWorB` and
///   `procBLETask` in `main/gatewayBT.cpp`, 1technophile/OpenMQTTGateway; docs/use/ble.md
///   "Setting a white or black list"), compared as text with the address it prints in `id`
///   (`openMQTTGatewayCommands`).
///
/// The two address lists need every beacon's `mac`: a beacon without one could not be
/// listed and would go unreported, so such a list is refused (`missingAddresses`).
public struct GatewayKeepList: Hashable, Sendable {
    /// The gateways that can be told a list.
    public enum Kind: String, CaseIterable, Sendable {
        case espresense
        case theengs
        case openMQTTGateway = "openmqttgateway"

        public var gateway: GatewayKind {
            switch self {
            case .espresense: .espresense
            case .theengs: .theengs
            case .openMQTTGateway: .openMQTTGateway
            }
        }

        /// The software's own name.
        public var displayName: String {
            switch self {
            case .espresense: "ESPresense"
            case .theengs: "Theengs Gateway"
            case .openMQTTGateway: "OpenMQTTGateway"
            }
        }

        /// Whether the list goes by address (and so needs the beacons' `mac`).
        public var listsAddresses: Bool { self != .espresense }
    }

    /// Beacons an address list cannot name: they have no `mac` in the manifest.
    public struct MissingAddresses: Error, Hashable, Sendable, CustomStringConvertible {
        public var kind: Kind
        public var beacons: [String]

        public var description: String {
            let named = beacons.prefix(5).map { "`\($0)`" }.joined(separator: ", ")
            let more = beacons.count > 5 ? " and \(beacons.count - 5) more" : ""
            return "\(NumberText.count(beacons.count, "beacon")) (\(named)\(more)) \(beacons.count == 1 ? "has" : "have") no `mac` in the manifest, "
                + "and \(kind.displayName) keeps devices by address: listed without them, they would no longer be reported "
                + "(and the audit would call them missing); add their `mac` (`beaconctl provision --hardware` writes it) or leave this receiver unfiltered"
        }
    }

    public let kind: Kind
    /// ESPresense's id prefixes, or the addresses (`AA:BB:CC:DD:EE:FF`), in manifest order,
    /// each once.
    public let entries: [String]

    /// The list for `beacons` (a venue's, or the fleet's).
    public init(_ kind: Kind, beacons: [ResolvedBeacon]) throws(MissingAddresses) {
        self.kind = kind
        var entries: [String] = []
        var seen = Set<String>()
        var missing: [String] = []
        for beacon in beacons {
            let entry: String
            if kind.listsAddresses {
                guard let address = beacon.expectedAddress else {
                    missing.append(beacon.id)
                    continue
                }
                entry = address.description
            } else {
                entry = "iBeacon:\(beacon.identity.uuid.description.lowercased())-\(beacon.identity.major)-"
            }
            if seen.insert(entry).inserted { entries.append(entry) }
        }
        guard missing.isEmpty else { throw MissingAddresses(kind: kind, beacons: missing) }
        self.entries = entries
    }

    /// Whether a receiver holding this list reports `identity` heard from `address`, as the
    /// gateway decides it: an empty list keeps everything.
    public func keeps(_ identity: BeaconIdentity, address: BluetoothAddress?) -> Bool {
        guard !entries.isEmpty else { return true }
        if kind.listsAddresses {
            guard let address else { return false }
            return entries.contains(address.description)
        }
        let id = "iBeacon:\(identity.uuid.description.lowercased())-\(identity.major)-\(identity.minor)"
        return entries.contains { id.hasPrefix($0) }
    }

    /// What the receiver is told, as `fleet export --format KIND` writes it: ESPresense's
    /// `include` value (the prefixes separated by spaces); Theengs Gateway's configuration
    /// fragment `{"whitelist": […]}` for `theengsgw.conf`; OpenMQTTGateway's commands for
    /// `commands/MQTTtoBT/config`, one per line (`openMQTTGatewayCommands`).
    public var text: String {
        switch kind {
        case .espresense: return entries.joined(separator: " ")
        case .theengs: return "{\"whitelist\":[\(entries.map { JSONText.stringLiteral($0) }.joined(separator: ","))]}"
        case .openMQTTGateway: return openMQTTGatewayCommands.joined(separator: "\n")
        }
    }

    /// Addresses per OpenMQTTGateway command: its ESP32 build reads a command into an
    /// ArduinoJson document of `JSON_MSG_BUFFER` bytes (768 or 1024 on ESP32, by release),
    /// which a longer list overflows; `updateWorB` adds each command's addresses to those
    /// already listed, so a long list goes in several commands.
    public static let openMQTTGatewayAddressesPerCommand = 8

    /// `{"white-list":[…],"ignoreWBlist":false}` for each run of addresses (the second key
    /// turns the list on in case it was switched off). Each address is written in upper and
    /// in lower case: OpenMQTTGateway compares an advertiser's address as text (`strcmp` in
    /// `getDeviceByMac`) in the case its Bluetooth library prints it, which a build flag
    /// chooses (NimBLE-Arduino's `CONFIG_NIMBLE_CPP_ADDR_FMT_UPPERCASE`).
    public var openMQTTGatewayCommands: [String] {
        stride(from: 0, to: entries.count, by: Self.openMQTTGatewayAddressesPerCommand).map { start in
            let run = entries[start..<min(start + Self.openMQTTGatewayAddressesPerCommand, entries.count)]
            let spellings = run.flatMap { [$0, $0.lowercased()] }
            return "{\"white-list\":[\(spellings.map { JSONText.stringLiteral($0) }.joined(separator: ","))],\"ignoreWBlist\":false}"
        }
    }
}
