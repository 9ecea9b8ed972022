/// Names of the Bluetooth SIG company identifiers (Assigned Numbers, "Company Identifiers")
/// that controllers commonly report in Read Local Version Information: the chip makers a
/// Linux box is likely to carry, plus the virtual controllers used in tests.
public enum CompanyIdentifiers {
    private static let names: [UInt16: String] = [
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
        0x00D2: "Dialog Semiconductor",
        0x00E0: "Google",
        0x0131: "Cypress Semiconductor",
        0x0211: "Telink Semiconductor",
        0x02B0: "Bestechnic",
        0x02E5: "Espressif Systems",
        0x02FF: "Silicon Laboratories",
        0x03E0: "Actions Technology",
        // Zephyr's open-source controller reports the Linux Foundation.
        0x05F1: "The Linux Foundation (Zephyr)",
    ]

    /// The company's name, or `nil` when this short table does not know it.
    public static func name(of identifier: UInt16) -> String? {
        names[identifier]
    }

    /// `Intel (0x0002)`, or `company 0x1234` for one this table does not know.
    public static func describe(_ identifier: UInt16) -> String {
        let number = hexCode(identifier, digits: 4)
        if let name = names[identifier] { return "\(name) (\(number))" }
        return "company \(number)"
    }
}
