import BeaconCore
import HCI

/// The command sequences both controllers are put through. Every command is well formed:
/// RootCanal aborts on one it cannot parse.
enum ComparedSequences {
    static let beaconAddress = BluetoothAddress("C4:5B:BE:12:34:56") ?? .zero
    static let iBeacon = IBeaconAdvertisement(
        identity: BeaconIdentity(uuid: ProximityUUID(high: 0x89D6_E936_F61F_4227, low: 0xBCD2_6E94_C5A6_B2E3), major: 1, minor: 2),
        measuredPower: -59
    ).advertisingData

    struct InvalidHandle: Error {
        let raw: UInt8
    }

    static func handle(_ raw: UInt8) throws -> AdvertisingHandle {
        guard let handle = AdvertisingHandle(rawValue: raw) else { throw InvalidHandle(raw: raw) }
        return handle
    }

    /// LE Set Extended Advertising Parameters bytes (Core v5.4 Vol 4 Part E 7.8.53) for
    /// handle `handle`: properties, 3-octet intervals, TX power as given.
    static func extendedParameters(
        handle: UInt8, properties: UInt16 = 0x0010, intervalUnits: UInt32 = 0xA0, maximumUnits: UInt32? = nil,
        ownAddressType: UInt8 = 0x00, txPower: UInt8 = 0x7F
    ) -> [UInt8] {
        let maximum = maximumUnits ?? intervalUnits
        return [handle, UInt8(properties & 0xFF), UInt8(properties >> 8),
                UInt8(intervalUnits & 0xFF), UInt8((intervalUnits >> 8) & 0xFF), UInt8(intervalUnits >> 16),
                UInt8(maximum & 0xFF), UInt8((maximum >> 8) & 0xFF), UInt8(maximum >> 16),
                0x07, ownAddressType, 0x00, 0, 0, 0, 0, 0, 0, 0x00, txPower, 0x01, 0x00, 0x01, 0x00, 0x00]
    }

    /// LE Set Advertising Parameters bytes (7.8.5): intervals, type, own address type, all channels.
    static func legacyParameters(minimum: UInt16 = 0xA0, maximum: UInt16 = 0xA0, type: UInt8 = 0x03, ownAddressType: UInt8 = 0, channels: UInt8 = 0x07) -> [UInt8] {
        [UInt8(minimum & 0xFF), UInt8(minimum >> 8), UInt8(maximum & 0xFF), UInt8(maximum >> 8), type, ownAddressType,
         0x00, 0, 0, 0, 0, 0, 0, channels, 0x00]
    }

    static func bringUp() throws -> [ComparedStep] {
        [
            try ComparedStep("Reset", Reset()),
            try ComparedStep("Set Event Mask", SetEventMask(mask: .beaconHost)),
            try ComparedStep("LE Set Event Mask", LESetEventMask(mask: .beaconHost)),
        ]
    }

    /// Reset, masks, what the controller is; commands it does not know.
    static func controllerInformation() throws -> [ComparedStep] {
        try bringUp() + [
            // Both say Bluetooth 5.3 (HCI and LMP version 0x0C); manufacturers and
            // subversions differ (Google 0x00E0 for RootCanal, 0xFFFF for the virtual one).
            try ComparedStep("Read Local Version Information", ReadLocalVersionInformation(), .bytes(at: [0, 3])),
            // Each controller has its own address.
            try ComparedStep("Read BD_ADDR", ReadBDADDR(), .shape),
            // RootCanal reports many more features; bit 12, extended advertising, matters here.
            try ComparedStep("LE Read Local Supported Features", LEReadLocalSupportedFeatures(), .bits(LEFeatures.extendedAdvertising.rawValue)),
            try ComparedStep("LE Read Buffer Size", LEReadBufferSize(), .shape),
            try ComparedStep("unknown OGF 0x03 command", opcode: 0x0C7F),
            try ComparedStep("unknown LE command", opcode: 0x20FE, [0x01]),
            try ComparedStep("unknown vendor command", opcode: 0xFC77),
        ]
    }

    /// Legacy advertising of an iBeacon from a static random address, and legacy scanning,
    /// with the refusals the specification requires along the way.
    static func legacyBringUp() throws -> [ComparedStep] {
        try bringUp() + [
            try ComparedStep("LE Set Random Address", LESetRandomAddress(address: beaconAddress)),
            try ComparedStep("LE Set Advertising Parameters", opcode: 0x2006, legacyParameters(ownAddressType: 0x01)),
            try ComparedStep("LE Read Advertising Physical Channel Tx Power", LEReadAdvertisingPhysicalChannelTxPower()),
            try ComparedStep("LE Set Advertising Data", LESetAdvertisingData(data: iBeacon)),
            try ComparedStep("LE Set Advertising Enable", LESetAdvertisingEnable(true)),
            try ComparedStep("LE Set Advertising Enable, already enabled", LESetAdvertisingEnable(true)),
            try ComparedStep("LE Set Advertising Parameters while advertising", opcode: 0x2006, legacyParameters()),
            try ComparedStep("LE Set Advertising Data while advertising", LESetAdvertisingData(data: iBeacon)),
            try ComparedStep("LE Set Random Address while advertising", LESetRandomAddress(address: beaconAddress)),
            try ComparedStep("LE Set Advertising Enable off", LESetAdvertisingEnable(false)),
            try ComparedStep("LE Set Advertising Enable off, already off", LESetAdvertisingEnable(false)),
            try ComparedStep("LE Set Scan Parameters", opcode: 0x200B, [0x00, 0x10, 0x00, 0x10, 0x00, 0x00, 0x00]),
            try ComparedStep("LE Set Scan Enable", LESetScanEnable(true)),
            try ComparedStep("LE Set Scan Parameters while scanning", opcode: 0x200B, [0x00, 0x10, 0x00, 0x10, 0x00, 0x00, 0x00]),
            try ComparedStep("LE Set Scan Enable, again with duplicate filtering", LESetScanEnable(true, filterDuplicates: true)),
            try ComparedStep("LE Set Scan Enable off", LESetScanEnable(false)),
        ]
    }

    /// Four advertising sets with random addresses and iBeacon data, all enabled; the
    /// refusals for enabled and unknown sets; the capacity of 16 sets; extended scanning.
    static func extendedBringUp() throws -> [ComparedStep] {
        var steps = try bringUp() + [
            try ComparedStep("LE Read Number of Supported Advertising Sets", LEReadNumberOfSupportedAdvertisingSets()),
            try ComparedStep("LE Read Maximum Advertising Data Length", LEReadMaximumAdvertisingDataLength()),
        ]
        for raw: UInt8 in 0..<4 {
            // An explicit −5 dBm is within both controllers' range: both select it.
            steps += [
                try ComparedStep("LE Set Extended Advertising Parameters, set \(raw)", opcode: 0x2036,
                                 extendedParameters(handle: raw, ownAddressType: 0x01, txPower: UInt8(bitPattern: -5))),
                try ComparedStep("LE Set Advertising Set Random Address, set \(raw)",
                                 LESetAdvertisingSetRandomAddress(handle: try handle(raw), address: beaconAddress)),
                try ComparedStep("LE Set Extended Advertising Data, set \(raw)",
                                 LESetExtendedAdvertisingData(handle: try handle(raw), data: iBeacon)),
            ]
        }
        steps += [
            try ComparedStep("LE Set Extended Advertising Enable, sets 0–3",
                             LESetExtendedAdvertisingEnable(enabling: (0..<4).map { try handle($0) })),
            // Refused while the set advertises (RootCanal keeps a Selected_Tx_Power byte in the
            // refusal, the virtual controller a zero one: same shape).
            try ComparedStep("LE Set Extended Advertising Parameters, enabled set", opcode: 0x2036, extendedParameters(handle: 0), .shape),
            try ComparedStep("LE Set Extended Advertising Data, enabled set", LESetExtendedAdvertisingData(handle: try handle(0), data: iBeacon)),
            try ComparedStep("LE Set Advertising Set Random Address, enabled set",
                             LESetAdvertisingSetRandomAddress(handle: try handle(0), address: beaconAddress)),
            try ComparedStep("LE Remove Advertising Set, enabled set", LERemoveAdvertisingSet(handle: try handle(0))),
            try ComparedStep("LE Clear Advertising Sets, a set enabled", LEClearAdvertisingSets()),
            try ComparedStep("LE Set Extended Advertising Enable, unknown set", LESetExtendedAdvertisingEnable(enabling: [try handle(9)])),
            try ComparedStep("LE Remove Advertising Set, unknown set", LERemoveAdvertisingSet(handle: try handle(9))),
            try ComparedStep("LE Set Extended Advertising Data, unknown set", LESetExtendedAdvertisingData(handle: try handle(9), data: iBeacon)),
            try ComparedStep("LE Set Advertising Set Random Address, unknown set",
                             LESetAdvertisingSetRandomAddress(handle: try handle(9), address: beaconAddress)),
            try ComparedStep("LE Set Extended Advertising Enable off, all sets", LESetExtendedAdvertisingEnable.disableAll),
            try ComparedStep("LE Remove Advertising Set", LERemoveAdvertisingSet(handle: try handle(0))),
            try ComparedStep("LE Set Extended Advertising Enable, removed set", LESetExtendedAdvertisingEnable(enabling: [try handle(0)])),
        ]
        for raw: UInt8 in 4...16 {
            // The 17th set (handle 16, with 1–3 still there) exceeds the 16 both have.
            steps.append(try ComparedStep("LE Set Extended Advertising Parameters, set \(raw)", opcode: 0x2036,
                                          extendedParameters(handle: raw, txPower: UInt8(bitPattern: -5))))
        }
        steps += [
            try ComparedStep("LE Clear Advertising Sets", LEClearAdvertisingSets()),
            try ComparedStep("LE Set Extended Scan Parameters", opcode: 0x2041, [0x00, 0x00, 0x01, 0x00, 0x20, 0x00, 0x10, 0x00]),
            try ComparedStep("LE Set Extended Scan Enable", LESetExtendedScanEnable(true)),
            try ComparedStep("LE Set Extended Scan Parameters while scanning", opcode: 0x2041, [0x00, 0x00, 0x01, 0x00, 0x20, 0x00, 0x10, 0x00]),
            try ComparedStep("LE Set Extended Scan Enable off", LESetExtendedScanEnable.disable),
        ]
        return steps
    }

    /// One family after the other, each side of a Reset.
    static func mixedFamilies() throws -> [ComparedStep] {
        try bringUp() + [
            try ComparedStep("LE Set Advertising Parameters (legacy first)", opcode: 0x2006, legacyParameters()),
            try ComparedStep("LE Set Extended Advertising Parameters after legacy", opcode: 0x2036, extendedParameters(handle: 0), .shape),
            try ComparedStep("LE Set Extended Scan Parameters after legacy", opcode: 0x2041, [0x00, 0x00, 0x01, 0x00, 0x10, 0x00, 0x10, 0x00]),
            try ComparedStep("LE Set Extended Advertising Enable after legacy", LESetExtendedAdvertisingEnable.disableAll),
            try ComparedStep("Reset", Reset()),
            try ComparedStep("LE Set Extended Advertising Parameters (extended first)", opcode: 0x2036, extendedParameters(handle: 0), .shape),
            try ComparedStep("LE Set Advertising Parameters after extended", opcode: 0x2006, legacyParameters()),
            try ComparedStep("LE Set Advertising Data after extended", LESetAdvertisingData(data: iBeacon)),
            try ComparedStep("LE Set Scan Enable after extended", LESetScanEnable(false)),
        ]
    }

    /// Values out of range or contradicting each other, and enabling without the random
    /// address the parameters ask for.
    static func invalidParameters() throws -> [ComparedStep] {
        try bringUp() + [
            try ComparedStep("LE Set Advertising Parameters, minimum above maximum", opcode: 0x2006, legacyParameters(minimum: 0xA0, maximum: 0x90)),
            try ComparedStep("LE Set Advertising Parameters, no channel", opcode: 0x2006, legacyParameters(channels: 0x00)),
            try ComparedStep("LE Set Advertising Parameters, random own address", opcode: 0x2006, legacyParameters(ownAddressType: 0x01)),
            try ComparedStep("LE Set Advertising Enable without a random address", LESetAdvertisingEnable(true)),
            try ComparedStep("LE Set Scan Parameters, window longer than interval", opcode: 0x200B, [0x00, 0x10, 0x00, 0x20, 0x00, 0x00, 0x00]),
            try ComparedStep("Reset", Reset()),
            try ComparedStep("LE Set Extended Advertising Parameters, properties 0x0011", opcode: 0x2036, extendedParameters(handle: 0, properties: 0x0011), .shape),
            try ComparedStep("LE Set Extended Advertising Parameters, minimum above maximum", opcode: 0x2036,
                             extendedParameters(handle: 0, intervalUnits: 0xA0, maximumUnits: 0x90), .shape),
            try ComparedStep("LE Set Extended Advertising Parameters, random own address", opcode: 0x2036,
                             extendedParameters(handle: 0, ownAddressType: 0x01, txPower: UInt8(bitPattern: -5))),
            try ComparedStep("LE Set Extended Advertising Enable without a random address", LESetExtendedAdvertisingEnable(enabling: [try handle(0)])),
            try ComparedStep("LE Set Extended Advertising Enable, no set", opcode: 0x2039, [0x01, 0x00]),
            try ComparedStep("LE Set Extended Advertising Data, 40 bytes for legacy PDUs", LESetExtendedAdvertisingData(
                handle: try handle(0), data: [UInt8](repeating: 0, count: 40))),
            try ComparedStep("LE Set Extended Scan Parameters, window longer than interval", opcode: 0x2041,
                             [0x00, 0x00, 0x01, 0x00, 0x10, 0x00, 0x20, 0x00]),
        ]
    }
}
