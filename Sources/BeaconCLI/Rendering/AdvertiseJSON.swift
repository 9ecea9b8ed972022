import BeaconCore
import BeaconFleet
import HCI

/// The JSON objects `advertise --format json` prints, one per line. Keys are camelCase;
/// every object has `event`. Documented in docs/advertising.md.
enum AdvertiseJSONEvent: Encodable {
    case started(AdvertisingSession)
    case message(event: String, message: String)
    case interrupted(reason: String, retryInSeconds: Double?)
    case restartFailed(reason: String, attempt: Int, retryInSeconds: Double)
    case stopped(reason: StopReason, signal: String?, uptimeSeconds: Double?)

    private enum Key: String, CodingKey {
        case event, message, reason, retryInSeconds, attempt, signal, uptimeSeconds
        case controller, family, restart, rotationSlotMs, effectiveIntervalMs, beacons
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        switch self {
        case .started(let session):
            try container.encode("started", forKey: .event)
            try container.encode(ControllerJSON(session.controller), forKey: .controller)
            try container.encode(session.family.rawValue, forKey: .family)
            try container.encode(session.restartCount, forKey: .restart)
            try container.encode(session.rotationSlot.map(Self.milliseconds), forKey: .rotationSlotMs)
            try container.encode(session.effectiveInterval.map(Self.milliseconds), forKey: .effectiveIntervalMs)
            try container.encode(session.beacons.map(BeaconJSON.init), forKey: .beacons)
        case .message(let event, let message):
            try container.encode(event, forKey: .event)
            try container.encode(message, forKey: .message)
        case .interrupted(let reason, let retryInSeconds):
            try container.encode("interrupted", forKey: .event)
            try container.encode(reason, forKey: .reason)
            try container.encode(retryInSeconds, forKey: .retryInSeconds)
        case .restartFailed(let reason, let attempt, let retryInSeconds):
            try container.encode("restart-failed", forKey: .event)
            try container.encode(reason, forKey: .reason)
            try container.encode(attempt, forKey: .attempt)
            try container.encode(retryInSeconds, forKey: .retryInSeconds)
        case .stopped(let reason, let signal, let uptimeSeconds):
            try container.encode("stopped", forKey: .event)
            try container.encode(reason == .cancelled ? "stop-requested" : "duration-elapsed", forKey: .reason)
            try container.encode(signal, forKey: .signal)
            try container.encode(uptimeSeconds, forKey: .uptimeSeconds)
        }
    }

    static func milliseconds(_ duration: Duration) -> Double {
        duration.secondsValue * 1000
    }
}

/// A controller as JSON shows it (`advertise` and `controllers --hci`).
struct ControllerJSON: Encodable {
    var hci: String
    var access: String
    var bluetoothVersion: String
    var companyId: UInt16
    var manufacturer: String
    var address: String
    var extendedAdvertising: Bool

    init(_ info: ControllerInfo) {
        hci = info.name
        access = info.access.isExclusive ? "exclusive" : "shared-with-kernel"
        bluetoothVersion = info.version.hciVersion.description
        companyId = info.version.companyIdentifier
        manufacturer = CompanyIdentifiers.name(of: info.version.companyIdentifier) ?? "unknown"
        address = info.address.description
        extendedAdvertising = info.supportsExtendedAdvertising
    }
}

/// One accepted beacon as JSON shows it.
struct BeaconJSON: Encodable {
    var id: String?
    var uuid: String
    var major: UInt16
    var minor: UInt16
    var intervalMs: Double
    var txPowerDbm: Int8
    var requestedTxPowerDbm: Int8
    var measuredPowerDbm: Int8
    var measuredPowerAuto: Bool
    var address: String
    var addressType: String
    var handle: UInt8?

    init(_ beacon: AcceptedBeacon) {
        id = beacon.beaconID
        uuid = beacon.identity.uuid.description
        major = beacon.identity.major
        minor = beacon.identity.minor
        intervalMs = beacon.interval.milliseconds
        txPowerDbm = beacon.txPower
        requestedTxPowerDbm = beacon.request.txPower
        measuredPowerDbm = beacon.measuredPower
        measuredPowerAuto = beacon.measuredPowerIsEstimated
        address = beacon.address.description
        addressType = beacon.addressType == .random ? "random" : "public"
        handle = beacon.handle?.rawValue
    }

    // Absent values are written as null so that every object has the same keys.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(uuid, forKey: .uuid)
        try container.encode(major, forKey: .major)
        try container.encode(minor, forKey: .minor)
        try container.encode(intervalMs, forKey: .intervalMs)
        try container.encode(txPowerDbm, forKey: .txPowerDbm)
        try container.encode(requestedTxPowerDbm, forKey: .requestedTxPowerDbm)
        try container.encode(measuredPowerDbm, forKey: .measuredPowerDbm)
        try container.encode(measuredPowerAuto, forKey: .measuredPowerAuto)
        try container.encode(address, forKey: .address)
        try container.encode(addressType, forKey: .addressType)
        try container.encode(handle, forKey: .handle)
    }

    private enum CodingKeys: String, CodingKey {
        case id, uuid, major, minor, intervalMs, txPowerDbm, requestedTxPowerDbm, measuredPowerDbm, measuredPowerAuto
        case address, addressType, handle
    }
}
