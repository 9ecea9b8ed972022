import HCI
/// The UART speeds a `serial:` transport accepts: the standard rates Linux termios can set
/// by name (`B9600` … `B4000000`). HCI UART firmware usually runs at 115200 or 1000000.
public enum SerialBaudRates {
    /// Used when a `serial:` spec names no rate: the usual HCI UART default.
    public static let standard = 115_200

    public static let supported: [Int] = [
        9_600, 19_200, 38_400, 57_600, 115_200, 230_400, 460_800, 500_000, 576_000, 921_600,
        1_000_000, 1_152_000, 1_500_000, 2_000_000, 2_500_000, 3_000_000, 3_500_000, 4_000_000,
    ]
}
