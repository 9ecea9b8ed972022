/// The LE features a controller supports: the 64-bit page 0 returned by
/// LE Read Local Supported Features (Core v5.4 Vol 6 Part B 4.6, "Feature support").
public struct LEFeatures: OptionSet, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt64

    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    private init(bit: Int) {
        self.rawValue = 1 << UInt64(bit)
    }

    public static let encryption = LEFeatures(bit: 0)
    public static let connectionParametersRequestProcedure = LEFeatures(bit: 1)
    public static let extendedRejectIndication = LEFeatures(bit: 2)
    public static let peripheralInitiatedFeaturesExchange = LEFeatures(bit: 3)
    public static let ping = LEFeatures(bit: 4)
    public static let dataPacketLengthExtension = LEFeatures(bit: 5)
    public static let llPrivacy = LEFeatures(bit: 6)
    public static let extendedScanningFilterPolicies = LEFeatures(bit: 7)
    public static let le2MPhy = LEFeatures(bit: 8)
    public static let stableModulationIndexTransmitter = LEFeatures(bit: 9)
    public static let stableModulationIndexReceiver = LEFeatures(bit: 10)
    public static let leCodedPhy = LEFeatures(bit: 11)
    /// Advertising sets and the extended command family: several beacons on one controller.
    public static let extendedAdvertising = LEFeatures(bit: 12)
    public static let periodicAdvertising = LEFeatures(bit: 13)
    public static let channelSelectionAlgorithm2 = LEFeatures(bit: 14)
    public static let powerClass1 = LEFeatures(bit: 15)
    public static let minimumNumberOfUsedChannelsProcedure = LEFeatures(bit: 16)
    public static let connectionCTERequest = LEFeatures(bit: 17)
    public static let connectionCTEResponse = LEFeatures(bit: 18)
    public static let connectionlessCTETransmitter = LEFeatures(bit: 19)
    public static let connectionlessCTEReceiver = LEFeatures(bit: 20)
    public static let antennaSwitchingDuringCTETransmission = LEFeatures(bit: 21)
    public static let antennaSwitchingDuringCTEReception = LEFeatures(bit: 22)
    public static let receivingConstantToneExtensions = LEFeatures(bit: 23)
    public static let periodicAdvertisingSyncTransferSender = LEFeatures(bit: 24)
    public static let periodicAdvertisingSyncTransferRecipient = LEFeatures(bit: 25)
    public static let sleepClockAccuracyUpdates = LEFeatures(bit: 26)
    public static let remotePublicKeyValidation = LEFeatures(bit: 27)
    public static let connectedIsochronousStreamCentral = LEFeatures(bit: 28)
    public static let connectedIsochronousStreamPeripheral = LEFeatures(bit: 29)
    public static let isochronousBroadcaster = LEFeatures(bit: 30)
    public static let synchronizedReceiver = LEFeatures(bit: 31)
    public static let connectedIsochronousStreamHostSupport = LEFeatures(bit: 32)
    public static let powerControlRequest = LEFeatures(bit: 33)
    /// Bit 34 mirrors bit 33: the spec requires both to be set together.
    public static let powerControlRequestDuplicate = LEFeatures(bit: 34)
    public static let pathLossMonitoring = LEFeatures(bit: 35)
    public static let periodicAdvertisingADISupport = LEFeatures(bit: 36)
    public static let connectionSubrating = LEFeatures(bit: 37)
    public static let connectionSubratingHostSupport = LEFeatures(bit: 38)
    public static let channelClassification = LEFeatures(bit: 39)
    public static let advertisingCodingSelection = LEFeatures(bit: 40)
    public static let advertisingCodingSelectionHostSupport = LEFeatures(bit: 41)
    public static let decisionBasedAdvertisingFiltering = LEFeatures(bit: 42)
    public static let periodicAdvertisingWithResponsesAdvertiser = LEFeatures(bit: 43)
    public static let periodicAdvertisingWithResponsesScanner = LEFeatures(bit: 44)
    public static let unsegmentedFramedMode = LEFeatures(bit: 45)
    public static let channelSounding = LEFeatures(bit: 46)
    public static let channelSoundingHostSupport = LEFeatures(bit: 47)
    public static let channelSoundingToneQualityIndication = LEFeatures(bit: 48)

    /// Bit number and name of every feature this table knows, in bit order.
    static let namedBits: [(bit: Int, name: String)] = [
        (0, "LE Encryption"),
        (1, "Connection Parameters Request Procedure"),
        (2, "Extended Reject Indication"),
        (3, "Peripheral-initiated Features Exchange"),
        (4, "LE Ping"),
        (5, "LE Data Packet Length Extension"),
        (6, "LL Privacy"),
        (7, "Extended Scanning Filter Policies"),
        (8, "LE 2M PHY"),
        (9, "Stable Modulation Index - Transmitter"),
        (10, "Stable Modulation Index - Receiver"),
        (11, "LE Coded PHY"),
        (12, "LE Extended Advertising"),
        (13, "LE Periodic Advertising"),
        (14, "Channel Selection Algorithm #2"),
        (15, "LE Power Class 1"),
        (16, "Minimum Number of Used Channels Procedure"),
        (17, "Connection CTE Request"),
        (18, "Connection CTE Response"),
        (19, "Connectionless CTE Transmitter"),
        (20, "Connectionless CTE Receiver"),
        (21, "Antenna Switching During CTE Transmission (AoD)"),
        (22, "Antenna Switching During CTE Reception (AoA)"),
        (23, "Receiving Constant Tone Extensions"),
        (24, "Periodic Advertising Sync Transfer - Sender"),
        (25, "Periodic Advertising Sync Transfer - Recipient"),
        (26, "Sleep Clock Accuracy Updates"),
        (27, "Remote Public Key Validation"),
        (28, "Connected Isochronous Stream - Central"),
        (29, "Connected Isochronous Stream - Peripheral"),
        (30, "Isochronous Broadcaster"),
        (31, "Synchronized Receiver"),
        (32, "Connected Isochronous Stream (Host Support)"),
        (33, "LE Power Control Request"),
        (34, "LE Power Control Request"),
        (35, "LE Path Loss Monitoring"),
        (36, "Periodic Advertising ADI support"),
        (37, "Connection Subrating"),
        (38, "Connection Subrating (Host Support)"),
        (39, "Channel Classification"),
        (40, "Advertising Coding Selection"),
        (41, "Advertising Coding Selection (Host Support)"),
        (42, "Decision-Based Advertising Filtering"),
        (43, "Periodic Advertising with Responses - Advertiser"),
        (44, "Periodic Advertising with Responses - Scanner"),
        (45, "Unsegmented Framed Mode"),
        (46, "Channel Sounding"),
        (47, "Channel Sounding (Host Support)"),
        (48, "Channel Sounding Tone Quality Indication"),
    ]

    /// The spec's names of the features present, in bit order; unnamed bits as `bit N`.
    /// Bit 34 is folded into bit 33, which it duplicates.
    public var names: [String] {
        var result: [String] = []
        for bit in 0..<64 where rawValue & (1 << UInt64(bit)) != 0 && bit != 34 {
            result.append(Self.namedBits.first { $0.bit == bit }?.name ?? "bit \(bit)")
        }
        return result
    }

    public var description: String {
        rawValue == 0 ? "none" : names.joined(separator: ", ")
    }
}
