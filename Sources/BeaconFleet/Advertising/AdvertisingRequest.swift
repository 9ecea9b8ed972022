import BeaconCore
import FleetManifest
import HCI

/// One beacon to put on the air, as asked: from command-line flags or from a manifest.
public struct AdvertisingRequest: Hashable, Sendable {
    /// The manifest's beacon id, or `nil` for a beacon given by flags.
    public var beaconID: String?
    public var identity: BeaconIdentity
    public var measuredPower: MeasuredPower
    public var interval: AdvertisingInterval
    /// TX power asked of the controller, dBm (−127…+20). Extended advertising asks for it per
    /// set; legacy advertising has no way to ask, and reports what the controller uses.
    public var txPower: Int8

    /// The advertising intervals both families accept: 20 ms to 10.24 s.
    public static let intervalRange: ClosedRange<Double> = 20...10_240
    public static let txPowerRange = TransmitPower.validRange

    public init(
        beaconID: String? = nil, identity: BeaconIdentity, measuredPower: MeasuredPower = .auto,
        interval: AdvertisingInterval = .beaconDefault, txPower: Int8 = 0
    ) {
        self.beaconID = beaconID
        self.identity = identity
        self.measuredPower = measuredPower
        self.interval = interval
        self.txPower = txPower
    }

    /// A manifest beacon; fails when its interval or TX power is outside what a controller
    /// accepts (the manifest validator already rejects those, so this is a second line).
    public init(_ beacon: ResolvedBeacon) throws(AdvertisingError) {
        let milliseconds = Double(beacon.intervalMilliseconds)
        guard Self.intervalRange.contains(milliseconds),
            let interval = try? AdvertisingInterval(milliseconds: milliseconds)
        else {
            throw .invalidRequest(
                "beacon `\(beacon.id)` (\(beacon.location)): interval \(beacon.intervalMilliseconds) ms is outside "
                    + "20 to 10240 ms; fix interval_ms in the manifest")
        }
        guard Self.txPowerRange.contains(beacon.txPower) else {
            throw .invalidRequest(
                "beacon `\(beacon.id)` (\(beacon.location)): TX power \(beacon.txPower) dBm is outside −127 to +20 dBm; "
                    + "fix tx_power in the manifest")
        }
        self.init(
            beaconID: beacon.id, identity: beacon.identity, measuredPower: beacon.measuredPower,
            interval: interval, txPower: Int8(beacon.txPower))
    }

    /// `cupertino-door`, or the identity for a beacon given by flags.
    public var label: String { beaconID ?? identity.description }
}

extension AdvertisingRequest {
    /// The measured power for the frame when the controller advertises at `txPower`: the
    /// calibrated value, or the estimate for `auto`.
    public func measuredPower(advertisingAt txPower: Int8) -> Int8 {
        switch measuredPower {
        case .auto: return MeasuredPower.estimate(forTxPower: Int(txPower))
        case .dBm(let value): return value
        }
    }
}
