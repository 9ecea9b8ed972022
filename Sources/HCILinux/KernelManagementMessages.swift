import HCI

/// What the kernel's Bluetooth management interface (BlueZ doc/mgmt-api.txt, the "mgmt"
/// protocol on HCI_CHANNEL_CONTROL) says about a controller's advertising: which
/// advertising instances bluetoothd (or `btmgmt add-adv`, or any other mgmt user) has
/// registered, and whether the Advertising setting is on.
///
/// The kernel advertises mgmt instance N from extended advertising set handle N, and the
/// Advertising setting (Set Advertising, instance 0) from set 0; a program on the shared RAW
/// channel must keep away from those sets.
public struct KernelAdvertisingInstances: Hashable, Sendable {
    /// The registered instances (Read Advertising Features' Instance[i]), 1…254.
    public var instances: [UInt8]
    /// How many instances the kernel allows on this controller (Max_Instances).
    public var maximumInstances: UInt8
    /// Current_Settings bit 10 (Advertising) of Read Controller Information: advertising
    /// through Set Advertising, which the kernel sends as instance 0.
    public var advertisingSettingOn: Bool

    public init(instances: [UInt8], maximumInstances: UInt8, advertisingSettingOn: Bool) {
        self.instances = instances
        self.maximumInstances = maximumInstances
        self.advertisingSettingOn = advertisingSettingOn
    }
}

/// The mgmt packets beaconctl sends and reads (BlueZ doc/mgmt-api.txt, "Packet Structures"):
/// every command and event is a 6-byte header — code, controller index, parameter length,
/// each 2 bytes little-endian — then the parameters.
enum KernelManagementMessage {
    /// "Read Controller Information Command": Address (6), Bluetooth_Version (1),
    /// Manufacturer (2), Supported_Settings (4), Current_Settings (4), …
    static let readControllerInformation: UInt16 = 0x0004
    /// "Read Advertising Features Command": Supported_Flags (4), Max_Adv_Data_Len (1),
    /// Max_Scan_Rsp_Len (1), Max_Instances (1), Num_Instances (1), Instance[i] (1 each).
    static let readAdvertisingFeatures: UInt16 = 0x003D
    /// "Command Complete Event": Command_Opcode (2), Status (1), Return_Parameters.
    static let commandCompleteEvent: UInt16 = 0x0001
    /// "Command Status Event": Command_Opcode (2), Status (1).
    static let commandStatusEvent: UInt16 = 0x0002
    static let headerLength = 6
    /// Current_Settings bit 10: "Advertising".
    static let advertisingSettingBit: UInt32 = 1 << 10
    /// Offset of Current_Settings in Read Controller Information's return parameters.
    static let currentSettingsOffset = 6 + 1 + 2 + 4

    /// A command without parameters for controller `index`.
    static func command(_ code: UInt16, index: UInt16) -> [UInt8] {
        [UInt8(code & 0xFF), UInt8(code >> 8), UInt8(index & 0xFF), UInt8(index >> 8), 0, 0]
    }

    /// What a received packet is, as far as one command's exchange is concerned.
    enum Reply: Equatable {
        /// The answer to the command: its status and return parameters.
        case answer(status: UInt8, parameters: [UInt8])
        /// An event for something else (another command, another controller, a notice).
        case unrelated
        /// Too short for what its header claims.
        case malformed
    }

    /// Reads `packet` as a possible answer to command `code` for controller `index`.
    static func reply(_ packet: [UInt8], to code: UInt16, index: UInt16) -> Reply {
        guard packet.count >= headerLength else { return .malformed }
        let event = littleEndian16(packet, at: 0)
        let eventIndex = littleEndian16(packet, at: 2)
        let length = Int(littleEndian16(packet, at: 4))
        guard packet.count >= headerLength + length else { return .malformed }
        guard event == commandCompleteEvent || event == commandStatusEvent, eventIndex == index else {
            return .unrelated
        }
        // Command_Opcode and Status come first in both events.
        guard length >= 3 else { return .malformed }
        guard littleEndian16(packet, at: headerLength) == code else { return .unrelated }
        let status = packet[headerLength + 2]
        let parameters = Array(packet[(headerLength + 3)..<(headerLength + length)])
        return .answer(status: status, parameters: parameters)
    }

    /// Current_Settings has the Advertising bit; `nil` when the parameters are too short.
    static func advertisingSetting(inControllerInformation parameters: [UInt8]) -> Bool? {
        guard parameters.count >= currentSettingsOffset + 4 else { return nil }
        let settings = (0..<4).reduce(UInt32(0)) { value, byte in
            value | UInt32(parameters[currentSettingsOffset + byte]) << (8 * UInt32(byte))
        }
        return settings & advertisingSettingBit != 0
    }

    /// Max_Instances and the Instance list; `nil` when the parameters are shorter than
    /// Num_Instances says.
    static func instances(inAdvertisingFeatures parameters: [UInt8]) -> (maximum: UInt8, instances: [UInt8])? {
        guard parameters.count >= 8 else { return nil }
        let count = Int(parameters[7])
        guard parameters.count >= 8 + count else { return nil }
        return (parameters[6], Array(parameters[8..<(8 + count)]))
    }

    /// The mgmt status names of doc/mgmt-api.txt's "Error Codes".
    static func statusName(_ status: UInt8) -> String {
        let names = [
            "Success", "Unknown Command", "Not Connected", "Failed", "Connect Failed", "Authentication Failed",
            "Not Paired", "No Resources", "Timeout", "Already Connected", "Busy", "Rejected", "Not Supported",
            "Invalid Parameters", "Disconnected", "Not Powered", "Cancelled", "Invalid Index", "RFKilled",
            "Already Paired", "Permission Denied",
        ]
        let name = Int(status) < names.count ? names[Int(status)] : "status"
        return "\(name), \(HexText.code(status))"
    }

    /// Permission Denied: the socket is not trusted (no CAP_NET_ADMIN).
    static let permissionDenied: UInt8 = 0x14

    private static func littleEndian16(_ bytes: [UInt8], at offset: Int) -> UInt16 {
        UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }
}
