/// The identity an iBeacon advertises: proximity UUID, major and minor.
///
/// Two beacons with the same identity are indistinguishable to every iOS app; the manifest
/// and the verification pass exist to keep identities unique.
public struct BeaconIdentity: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var uuid: ProximityUUID
    public var major: UInt16
    public var minor: UInt16

    public init(uuid: ProximityUUID, major: UInt16, minor: UInt16) {
        self.uuid = uuid
        self.major = major
        self.minor = minor
    }

    /// `UUID/major/minor`, the form used in logs, reports and JSON.
    public var description: String { "\(uuid)/\(major)/\(minor)" }

    public static func < (lhs: BeaconIdentity, rhs: BeaconIdentity) -> Bool {
        (lhs.uuid, lhs.major, lhs.minor) < (rhs.uuid, rhs.major, rhs.minor)
    }
}

/// A region in the sense of CoreLocation's `CLBeaconRegion`: a UUID, optionally narrowed by
/// major, and by minor only when major is given. Absent values are wildcards.
public struct BeaconRegion: Hashable, Sendable, CustomStringConvertible {
    public var identifier: String
    public var uuid: ProximityUUID
    public private(set) var major: UInt16?
    public private(set) var minor: UInt16?

    /// `nil` when a minor is given without a major: CoreLocation has no such region
    /// (`CLBeaconRegion` offers UUID, UUID+major, UUID+major+minor).
    public init?(identifier: String, uuid: ProximityUUID, major: UInt16? = nil, minor: UInt16? = nil) {
        if minor != nil && major == nil { return nil }
        self.identifier = identifier
        self.uuid = uuid
        self.major = major
        self.minor = minor
    }

    public func matches(_ identity: BeaconIdentity) -> Bool {
        guard identity.uuid == uuid else { return false }
        if let major, identity.major != major { return false }
        if let minor, identity.minor != minor { return false }
        return true
    }

    public var description: String {
        var text = "\(identifier) (\(uuid)"
        if let major { text += "/\(major)" }
        if let minor { text += "/\(minor)" }
        return text + ")"
    }
}
