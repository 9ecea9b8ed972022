import HCI

/// The two LE command families a controller with extended advertising keeps apart
/// (Core v5.4 Vol 4 Part E 3.1.1): once the host has used one since power-on or Reset,
/// every command of the other is refused with Command Disallowed (0x0C).
///
/// The lists are the specification's, restricted to the commands this controller
/// implements (the others are Unknown HCI Command before any family check). Reading the
/// number of advertising sets or the maximum data length counts as extended and reading
/// the legacy advertising TX power as legacy, as the specification lists them; RootCanal
/// 1.10 tracks neither read, which is a difference worth knowing when comparing the two.
enum CommandFamily: Hashable, Sendable, CustomStringConvertible {
    case legacy
    case extended

    init?(_ opcode: HCIOpcode) {
        switch opcode {
        case .leSetAdvertisingParameters, .leReadAdvertisingPhysicalChannelTxPower, .leSetAdvertisingData,
            .leSetAdvertisingEnable, .leSetScanParameters, .leSetScanEnable:
            self = .legacy
        case .leSetAdvertisingSetRandomAddress, .leSetExtendedAdvertisingParameters,
            .leSetExtendedAdvertisingData, .leSetExtendedAdvertisingEnable,
            .leReadMaximumAdvertisingDataLength, .leReadNumberOfSupportedAdvertisingSets,
            .leRemoveAdvertisingSet, .leClearAdvertisingSets, .leSetExtendedScanParameters,
            .leSetExtendedScanEnable:
            self = .extended
        default:
            return nil
        }
    }

    var description: String {
        switch self {
        case .legacy: return "legacy"
        case .extended: return "extended"
        }
    }
}
