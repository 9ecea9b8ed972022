import BeaconCore

/// One value a configuration profile can read and write.
public enum BeaconField: String, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    case uuid
    case major
    case minor
    /// The RSSI a receiver 1 m away should see (the iBeacon frame's measured power), dBm.
    case measuredPower = "measured-power"
    /// The radio's transmit power, dBm.
    case txPower = "tx-power"
    /// Time between advertising events, milliseconds.
    case advertisingInterval = "advertising-interval"

    public var description: String { rawValue }
}

/// What a beacon advertises with, as far as a profile reads and writes it. `nil` is "not
/// known" in a reading and "leave as it is" in a target.
public struct BeaconSettings: Equatable, Sendable, CustomStringConvertible {
    public var uuid: ProximityUUID?
    public var major: UInt16?
    public var minor: UInt16?
    public var measuredPower: Int?
    public var txPower: Int?
    public var advertisingInterval: Int?

    public init(
        uuid: ProximityUUID? = nil, major: UInt16? = nil, minor: UInt16? = nil, measuredPower: Int? = nil, txPower: Int? = nil,
        advertisingInterval: Int? = nil
    ) {
        self.uuid = uuid
        self.major = major
        self.minor = minor
        self.measuredPower = measuredPower
        self.txPower = txPower
        self.advertisingInterval = advertisingInterval
    }

    public init(identity: BeaconIdentity, measuredPower: Int? = nil, txPower: Int? = nil, advertisingInterval: Int? = nil) {
        self.init(
            uuid: identity.uuid, major: identity.major, minor: identity.minor, measuredPower: measuredPower, txPower: txPower,
            advertisingInterval: advertisingInterval)
    }

    /// The identity when all three parts are known.
    public var identity: BeaconIdentity? {
        guard let uuid, let major, let minor else { return nil }
        return BeaconIdentity(uuid: uuid, major: major, minor: minor)
    }

    /// The fields this target sets, in `BeaconField` order.
    public var setFields: [BeaconField] {
        BeaconField.allCases.filter { text(of: $0) != nil }
    }

    /// The fields this target sets whose value differs from `current` (unknown counts as
    /// different): what a profile has to write.
    public func differences(from current: BeaconSettings) -> [BeaconField] {
        setFields.filter { text(of: $0) != current.text(of: $0) }
    }

    /// A field's value as beaconctl writes it (`-59 dBm`, `100 ms`), `nil` when not set.
    public func text(of field: BeaconField) -> String? {
        switch field {
        case .uuid: uuid.map { "\($0)" }
        case .major: major.map { "\($0)" }
        case .minor: minor.map { "\($0)" }
        case .measuredPower: measuredPower.map { "\($0) dBm" }
        case .txPower: txPower.map { "\($0) dBm" }
        case .advertisingInterval: advertisingInterval.map { "\($0) ms" }
        }
    }

    /// `uuid=… major=1 minor=2 measured-power=-59 dBm`, the fields that are set.
    public var description: String {
        let parts = setFields.compactMap { field in text(of: field).map { "\(field)=\($0)" } }
        return parts.isEmpty ? "(nothing)" : parts.joined(separator: " ")
    }
}

/// What a profile read from a beacon: its settings and what it says about itself.
public struct BeaconReading: Equatable, Sendable {
    public var settings: BeaconSettings
    public var model: String?
    public var firmware: String?
    /// Battery level as the beacon reports it, percent.
    public var batteryPercent: Int?

    public init(settings: BeaconSettings, model: String? = nil, firmware: String? = nil, batteryPercent: Int? = nil) {
        self.settings = settings
        self.model = model
        self.firmware = firmware
        self.batteryPercent = batteryPercent
    }
}
