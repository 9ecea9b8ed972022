import BeaconCore

/// The manifest's `regions` as a Swift source file for an app target (docs/apps.md): each
/// region's values, the `CLBeaconIdentityConstraint` and `CLBeaconRegion` Core Location has
/// taken since iOS 13, and the `CLMonitor.BeaconIdentityCondition` of iOS 17's `CLMonitor`,
/// with the manifest's region ids as their identifiers. Only declarations Apple documents
/// are used: `CLBeaconIdentityConstraint(uuid:)`, `(uuid:major:)`, `(uuid:major:minor:)`;
/// `CLBeaconRegion(beaconIdentityConstraint:identifier:)`; `CLRegion.notifyOnEntry`,
/// `.notifyOnExit`; `CLMonitor.BeaconIdentityCondition(uuid:)`, `(uuid:major:)`,
/// `(uuid:major:minor:)`; `CLMonitor.add(_:identifier:assuming:)`.
public enum AppRegionSwiftSource {
    /// The whole file. `typeName` is the enum that holds the regions.
    public static func file(_ regions: [ResolvedRegion], fleet: String, budget: RegionBudget, typeName: String = "FleetRegions") -> String {
        var text = """
            // Written by `beaconctl fleet export --format swift` from fleet \(stringLiteral(fleet)).
            // Export again rather than edit: the manifest is where regions change.

            import CoreLocation

            /// The beacon regions of fleet \(stringLiteral(fleet)), named by the manifest's region ids.
            public enum \(typeName) {
                /// Regions this app gives to beacons: Core Location monitors \(RegionBudget.iOSLimit) per app,
                /// geofences included.
                public static let budget = \(budget.limit)

                public struct Region: Sendable {
                    public let identifier: String
                    public let uuid: UUID
                    /// `nil`: any major (a wildcard).
                    public let major: CLBeaconMajorValue?
                    /// `nil`: any minor (a wildcard).
                    public let minor: CLBeaconMinorValue?
                    public let notifyOnEntry: Bool
                    public let notifyOnExit: Bool
                    /// Ask for the region's state (`requestState(for:)`) once monitoring starts.
                    public let requestStateOnStart: Bool

                    /// For `CLLocationManager.startRangingBeacons(satisfying:)`.
                    public var constraint: CLBeaconIdentityConstraint {
                        if let major, let minor { return CLBeaconIdentityConstraint(uuid: uuid, major: major, minor: minor) }
                        if let major { return CLBeaconIdentityConstraint(uuid: uuid, major: major) }
                        return CLBeaconIdentityConstraint(uuid: uuid)
                    }

                    /// For `CLLocationManager.startMonitoring(for:)`.
                    public var beaconRegion: CLBeaconRegion {
                        let region = CLBeaconRegion(beaconIdentityConstraint: constraint, identifier: identifier)
                        region.notifyOnEntry = notifyOnEntry
                        region.notifyOnExit = notifyOnExit
                        return region
                    }

                    /// For iOS 17's `CLMonitor`.
                    @available(iOS 17.0, macOS 14.0, *)
                    public var condition: CLMonitor.BeaconIdentityCondition {
                        if let major, let minor { return CLMonitor.BeaconIdentityCondition(uuid: uuid, major: major, minor: minor) }
                        if let major { return CLMonitor.BeaconIdentityCondition(uuid: uuid, major: major) }
                        return CLMonitor.BeaconIdentityCondition(uuid: uuid)
                    }
                }

                /// In the manifest's order.
                public static let all: [Region] = [

            """
        for resolved in regions {
            let region = resolved.region
            text += "        Region(\n"
            text += "            identifier: \(stringLiteral(region.identifier)),\n"
            text += "            uuid: \(uuidLiteral(region.uuid)),\n"
            text += "            major: \(region.major.map(String.init) ?? "nil"), minor: \(region.minor.map(String.init) ?? "nil"),\n"
            text += "            notifyOnEntry: \(resolved.notifyOnEntry), notifyOnExit: \(resolved.notifyOnExit),\n"
            text += "            requestStateOnStart: \(resolved.notifyStateOnStart)),\n"
        }
        text += """
                ]

                /// Adds every region to `monitor` under its identifier, its state not yet known.
                @available(iOS 17.0, macOS 14.0, *)
                public static func add(to monitor: CLMonitor) async {
                    for region in all {
                        await monitor.add(region.condition, identifier: region.identifier, assuming: .unknown)
                    }
                }
            }

            """
        return text
    }

    /// `UUID(uuid: (0x89, 0xD6, …))`: Foundation's non-failable initialiser from the 16
    /// bytes, so the file has no force-unwrap.
    static func uuidLiteral(_ uuid: ProximityUUID) -> String {
        "UUID(uuid: (" + uuid.bytes.map { byte in
            let hex = String(byte, radix: 16, uppercase: true)
            return "0x" + (hex.count < 2 ? "0" : "") + hex
        }.joined(separator: ", ") + "))"
    }

    /// A Swift string literal of `text`: backslash, quote and every scalar outside printable
    /// ASCII escaped (The Swift Programming Language, "Special Characters in String Literals").
    static func stringLiteral(_ text: String) -> String {
        var literal = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": literal += "\\\\"
            case "\"": literal += "\\\""
            case " "..."~": literal.unicodeScalars.append(scalar)
            default: literal += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return literal + "\""
    }
}
