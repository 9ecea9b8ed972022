import BeaconCore
import HCI

/// One advertising set as the link layer runs it. Legacy advertising is the set under
/// ``legacyKey``; extended sets are keyed by their handle.
struct AdvertisingSet {
    /// The key of the legacy advertising "set", outside the handle range 0x00–0xEF.
    static let legacyKey: UInt16 = 0x100

    /// ``legacyKey`` or the advertising handle.
    let key: UInt16
    /// Advertising_Event_Properties; legacy advertising types are mapped onto the legacy
    /// property combinations of Core v5.4 Vol 4 Part E 7.8.53, Table 7.2.
    var properties: AdvertisingEventProperties
    /// The interval between advertising event starts before advDelay: the minimum the host allowed.
    var intervalMicroseconds: UInt64
    /// The primary channels used, in the order an event visits them (37, 38, 39).
    var channels: [UInt8]
    var ownAddressType: OwnAddressType
    /// The set's own random address (extended sets; legacy advertising uses the controller's).
    var randomAddress: BluetoothAddress?
    var peerAddressType: PeerAddressType
    var peerAddress: BluetoothAddress
    var txPower: Int8
    var primaryPHY: LEPhy
    var secondaryPHY: LEPhy
    var sid: UInt8
    var data: [UInt8] {
        didSet { beaconIdentity = IBeaconAdvertisement(advertisingData: data)?.identity }
    }
    /// A second frame each advertising event sends on every channel after `data`: a
    /// peripheral's (a beacon's second slot). Never set by a host's commands.
    var secondData: [UInt8]?
    /// Data received in fragments and not yet completed (LE Set Extended Advertising Data
    /// with operation first/intermediate).
    var pendingFragments: [UInt8]?
    /// The iBeacon identity the data carries, if any: a scenario may place that beacon
    /// somewhere else than its controller.
    private(set) var beaconIdentity: BeaconIdentity?

    var isEnabled = false
    /// Changes whenever the set starts or stops, so that queued events of an earlier run
    /// of the set are recognised as stale and dropped.
    var generation: UInt32 = 0
    /// When the current advertising event started.
    var eventStart = AirTime.zero
    var completedEvents = 0
    /// Max_Extended_Advertising_Events of the last enable; 0 for no limit.
    var maximumEvents = 0
    /// The set's own random stream: advDelay is drawn from it.
    var generator: SeededGenerator

    /// A set with the defaults of LE Set Advertising Parameters.
    init(key: UInt16, generator: SeededGenerator, txPower: Int8) {
        self.key = key
        // LE Set Advertising Parameters defaults (Core v5.4 Vol 4 Part E 7.8.5): 1.28 s,
        // ADV_IND, public address, all three channels.
        properties = [.legacy, .connectable, .scannable]
        intervalMicroseconds = 0x0800 * 625
        channels = [37, 38, 39]
        ownAddressType = .public
        peerAddressType = .public
        peerAddress = .zero
        self.txPower = txPower
        primaryPHY = .le1M
        secondaryPHY = .le1M
        sid = 0
        data = []
        self.generator = generator
    }

    var isLegacy: Bool { properties.contains(.legacy) }

    /// Counts the event that just ended and moves `eventStart` to the next one.
    mutating func completeEvent(maximumDelayMicroseconds: UInt64) -> ControllerState.AdvertisingEventEnd {
        completedEvents += 1
        if maximumEvents > 0 && completedEvents >= maximumEvents { return .limitReached }
        let delay = generator.next(upperBound: maximumDelayMicroseconds + 1)
        eventStart = eventStart.advanced(byMicroseconds: intervalMicroseconds + delay)
        return .next(eventStart)
    }
    var isDirected: Bool { properties.contains(.directed) }

    /// Bytes of payload the primary-channel PDU carries besides the data (AdvA, TargetA),
    /// for its duration on air.
    var primaryPDUDurationMicroseconds: UInt64 {
        // LE 1M: 8 µs per octet of preamble (1), access address (4), header (2), payload, CRC (3)
        // (Core v5.4 Vol 6 Part B 2.1 and 2.3).
        let payload: Int
        if isLegacy {
            payload = isDirected ? 12 : 6 + data.count  // AdvA + TargetA, or AdvA + AdvData
        } else {
            // ADV_EXT_IND: extended header length and flags, AdvA, ADI, AuxPtr; the data
            // travels in AUX_ADV_IND on a secondary channel.
            payload = 2 + (properties.contains(.anonymous) ? 0 : 6) + 2 + 3
        }
        let octets = UInt64(1 + 4 + 2 + payload + 3)
        // LE Coded with S=8 sends eight symbols per bit: roughly eight times as long.
        return primaryPHY == .leCoded ? octets * 64 : octets * 8
    }

    /// The start-to-start spacing of the PDUs of one event: the PDU plus 150 µs for the
    /// radio to retune (the inter-frame space of Core v5.4 Vol 6 Part B 4.1.1), well
    /// within the 10 ms the specification allows between them (4.4.2.2.1).
    var pduSpacingMicroseconds: UInt64 { primaryPDUDurationMicroseconds + 150 }
}
