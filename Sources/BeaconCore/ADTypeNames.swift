/// Names for what appears in advertising data, from the Bluetooth SIG Assigned Numbers
/// ("Common Data Types", "Company Identifiers", "16-bit UUIDs") and the Core Specification
/// Supplement (CSS) Part A, for people reading captures. The tables hold what is common
/// around beacons, not the whole registries: an unknown value is shown as its number.
public enum ADTypeNames {
    /// The name of an AD type (Assigned Numbers 2.3, "Common Data Types"), or `nil`.
    public static func typeName(_ type: UInt8) -> String? {
        typeNames[type]
    }

    private static let typeNames: [UInt8: String] = [
        0x01: "Flags",
        0x02: "Incomplete List of 16-bit Service UUIDs",
        0x03: "Complete List of 16-bit Service UUIDs",
        0x04: "Incomplete List of 32-bit Service UUIDs",
        0x05: "Complete List of 32-bit Service UUIDs",
        0x06: "Incomplete List of 128-bit Service UUIDs",
        0x07: "Complete List of 128-bit Service UUIDs",
        0x08: "Shortened Local Name",
        0x09: "Complete Local Name",
        0x0A: "Tx Power Level",
        0x0D: "Class of Device",
        0x0E: "Simple Pairing Hash C-192",
        0x0F: "Simple Pairing Randomizer R-192",
        0x10: "Device ID",
        0x11: "Security Manager Out of Band Flags",
        0x12: "Peripheral Connection Interval Range",
        0x14: "List of 16-bit Service Solicitation UUIDs",
        0x15: "List of 128-bit Service Solicitation UUIDs",
        0x16: "Service Data - 16-bit UUID",
        0x17: "Public Target Address",
        0x18: "Random Target Address",
        0x19: "Appearance",
        0x1A: "Advertising Interval",
        0x1B: "LE Bluetooth Device Address",
        0x1C: "LE Role",
        0x1D: "Simple Pairing Hash C-256",
        0x1E: "Simple Pairing Randomizer R-256",
        0x1F: "List of 32-bit Service Solicitation UUIDs",
        0x20: "Service Data - 32-bit UUID",
        0x21: "Service Data - 128-bit UUID",
        0x22: "LE Secure Connections Confirmation Value",
        0x23: "LE Secure Connections Random Value",
        0x24: "URI",
        0x25: "Indoor Positioning",
        0x26: "Transport Discovery Data",
        0x27: "LE Supported Features",
        0x28: "Channel Map Update Indication",
        0x29: "PB-ADV",
        0x2A: "Mesh Message",
        0x2B: "Mesh Beacon",
        0x2C: "BIGInfo",
        0x2D: "Broadcast_Code",
        0x2E: "Resolvable Set Identifier",
        0x2F: "Advertising Interval - long",
        0x30: "Broadcast_Name",
        0x31: "Encrypted Advertising Data",
        0x32: "Periodic Advertising Response Timing Information",
        0x34: "Electronic Shelf Label",
        0x3D: "3D Information Data",
        0xFF: "Manufacturer Specific Data",
    ]

    /// The bits of the Flags AD type (CSS Part A 1.3), bit 0 first. Bits 5–7 are reserved.
    public static let flagBits: [(bit: Int, name: String)] = [
        (0, "LE Limited Discoverable Mode"),
        (1, "LE General Discoverable Mode"),
        (2, "BR/EDR Not Supported"),
        (3, "Simultaneous LE and BR/EDR (Controller)"),
        (4, "Simultaneous LE and BR/EDR (Host)"),
    ]

    /// The names of the flags set in `flags`, bit 0 first; reserved bits as `reserved bit N`.
    public static func flagNames(_ flags: UInt8) -> [String] {
        (0..<8).compactMap { bit in
            guard flags & (1 << UInt8(bit)) != 0 else { return nil }
            return flagBits.first { $0.bit == bit }?.name ?? "reserved bit \(bit)"
        }
    }

    /// The name of a Bluetooth SIG company identifier (Assigned Numbers 7.1), or `nil`
    /// when this short table does not hold it: the controller makers `controllers` meets,
    /// the beacon makers, and the platforms whose manufacturer data shows up next to beacons.
    public static func companyName(_ identifier: UInt16) -> String? {
        companyNames[identifier]
    }

    private static let companyNames: [UInt16: String] = [
        0x0000: "Ericsson",
        0x0002: "Intel",
        0x0006: "Microsoft",
        0x0009: "Infineon Technologies",
        0x000A: "Qualcomm Technologies International (CSR)",
        0x000D: "Texas Instruments",
        0x000F: "Broadcom",
        0x001D: "Qualcomm",
        0x0025: "NXP Semiconductors",
        0x0030: "STMicroelectronics",
        0x0046: "MediaTek",
        0x0048: "Marvell",
        0x004C: "Apple",
        0x0059: "Nordic Semiconductor",
        0x005D: "Realtek Semiconductor",
        0x0060: "RivieraWaves",
        0x0075: "Samsung Electronics",
        0x0087: "Garmin International",
        0x00D2: "Dialog Semiconductor",
        0x00E0: "Google",
        0x0118: "Radius Networks",
        0x0131: "Cypress Semiconductor",
        0x015D: "Estimote",
        0x0171: "Amazon.com Services",
        0x0211: "Telink Semiconductor",
        0x02B0: "Bestechnic",
        0x02E5: "Espressif Systems",
        0x02FF: "Silicon Laboratories",
        0x038F: "Xiaomi",
        0x03E0: "Actions Technology",
        0x0499: "Ruuvi Innovations",
        // Zephyr's open-source controller reports the Linux Foundation.
        0x05F1: "The Linux Foundation (Zephyr)",
    ]

    /// The name of a 16-bit service UUID (Assigned Numbers 3.4 and 3.10), or `nil`.
    public static func serviceName(_ uuid: UInt16) -> String? {
        serviceNames[uuid]
    }

    private static let serviceNames: [UInt16: String] = [
        0x1800: "Generic Access",
        0x1801: "Generic Attribute",
        0x180A: "Device Information",
        0x180F: "Battery",
        0x181A: "Environmental Sensing",
        0xFD6F: "Exposure Notification",
        0xFEAA: "Eddystone (Google)",
    ]
}
