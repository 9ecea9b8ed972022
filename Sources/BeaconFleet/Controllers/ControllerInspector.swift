import HCI
import Logging

/// What `beaconctl controllers --hci SPEC` shows about one controller.
public struct ControllerReport: Hashable, Sendable {
    public var info: ControllerInfo
    /// The family `advertise --family auto` would use.
    public var family: AdvertisingFamily
    /// Extended family only: LE Read Number of Supported Advertising Sets.
    public var advertisingSets: Int?
    /// Extended family only: LE Read Maximum Advertising Data Length.
    public var maximumAdvertisingDataLength: Int?
    public var advertisingTxPower: AdvertisingTxPower

    public init(
        info: ControllerInfo, family: AdvertisingFamily, advertisingSets: Int?, maximumAdvertisingDataLength: Int?,
        advertisingTxPower: AdvertisingTxPower
    ) {
        self.info = info
        self.family = family
        self.advertisingSets = advertisingSets
        self.maximumAdvertisingDataLength = maximumAdvertisingDataLength
        self.advertisingTxPower = advertisingTxPower
    }
}

/// The power a controller advertises with, as far as it can be known without advertising.
public enum AdvertisingTxPower: Hashable, Sendable, CustomStringConvertible {
    /// Legacy family: LE Read Advertising Physical Channel Tx Power.
    case fixed(dBm: Int8)
    /// Extended family with LE Read Transmit Power: what the radio can do.
    case range(minimum: Int8, maximum: Int8)
    /// Extended family without LE Read Transmit Power: each set reports its selected power.
    case reportedPerSet

    public var description: String {
        switch self {
        case .fixed(let dBm): return "\(dBm) dBm"
        case .range(let minimum, let maximum): return "\(minimum) to \(maximum) dBm"
        case .reportedPerSet: return "reported per set when advertising"
        }
    }
}

/// Reads what a controller is and can do, without advertising.
///
/// Like the advertiser it never mixes the two advertising families: the legacy TX power
/// command is only sent to a controller without extended advertising, whose family is
/// legacy anyway; the extended ones only to a controller with it.
public enum ControllerInspector {
    public static func inspect(
        _ host: HostController, access: ControllerAccess, logger: Logger
    ) async throws(HCIError) -> ControllerReport {
        let info = try await ControllerBringUp.run(on: host, access: access, logger: logger)
        guard info.supportsExtendedAdvertising else {
            let txPower = try await host.send(LEReadAdvertisingPhysicalChannelTxPower())
            return ControllerReport(
                info: info, family: .legacy, advertisingSets: nil, maximumAdvertisingDataLength: nil,
                advertisingTxPower: .fixed(dBm: txPower))
        }
        let sets = try await host.send(LEReadNumberOfSupportedAdvertisingSets())
        let maximumLength = try await host.send(LEReadMaximumAdvertisingDataLength())
        let supported = try await host.send(ReadLocalSupportedCommands())
        let bit = LEReadTransmitPower.supportedCommandsBit
        let txPower: AdvertisingTxPower
        if supported.contains(octet: bit.octet, bit: bit.bit) {
            let range = try await host.send(LEReadTransmitPower())
            txPower = .range(minimum: range.minimum, maximum: range.maximum)
        } else {
            txPower = .reportedPerSet
        }
        return ControllerReport(
            info: info, family: .extended, advertisingSets: Int(sets), maximumAdvertisingDataLength: Int(maximumLength),
            advertisingTxPower: txPower)
    }
}
