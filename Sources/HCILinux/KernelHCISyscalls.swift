#if os(Linux)
import BeaconCore
import Glibc
import HCI
import HCITransports

/// The system calls behind Linux kernel HCI sockets, as a seam: ``LinuxKernelHCISyscalls``
/// makes the real calls; tests substitute a fake that scripts results and `errno`s, so that
/// every path of the transport runs even on a kernel without Bluetooth.
public protocol KernelHCISyscalls: Sendable {
    /// `socket(AF_BLUETOOTH, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, BTPROTO_HCI)`.
    func openHCISocket() throws(POSIXCallError) -> Int32
    /// `bind` to `sockaddr_hci { AF_BLUETOOTH, device, channel }`.
    func bind(_ socket: Int32, device: UInt16, channel: UInt16) throws(POSIXCallError)
    /// `setsockopt(socket, level, option, value)`.
    func setSocketOption(_ socket: Int32, level: Int32, option: Int32, value: [UInt8]) throws(POSIXCallError)
    /// `getsockopt(socket, level, option)`, returning at most `length` bytes.
    func socketOption(
        _ socket: Int32, level: Int32, option: Int32, length: Int
    ) throws(POSIXCallError) -> [UInt8]
    /// `ioctl(socket, HCIGETDEVLIST)`: the indices of the registered controllers.
    func deviceList(_ socket: Int32) throws(POSIXCallError) -> [UInt16]
    /// `ioctl(socket, HCIGETDEVINFO)` for one controller.
    func deviceInfo(_ socket: Int32, device: UInt16) throws(POSIXCallError) -> KernelHCIDeviceInfo
    /// `read(2)`: on an HCI socket, one whole packet, indicator first.
    func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(POSIXCallError) -> Int
    /// `write(2)`: one whole packet, indicator first.
    func write(_ descriptor: Int32, from bytes: UnsafeRawBufferPointer) throws(POSIXCallError) -> Int
    /// `poll(2)`.
    func poll(_ descriptors: inout [pollfd], timeoutMilliseconds: Int32) throws(POSIXCallError) -> Int32
    /// `close(2)`.
    func close(_ descriptor: Int32)
}

/// What `HCIGETDEVINFO` reports about a controller (`struct hci_dev_info`, BlueZ lib/hci.h).
public struct KernelHCIDeviceInfo: Hashable, Sendable {
    /// The N of hciN.
    public var index: UInt16
    /// The kernel's name for it, e.g. "hci0".
    public var name: String
    /// The public device address as the kernel stores it: least significant byte first.
    public var addressBytes: [UInt8]
    /// `HCI_UP` (bit 0), `HCI_INIT` (1), `HCI_RUNNING` (2), … from BlueZ lib/hci.h.
    public var flags: UInt32
    /// The bus in the low nibble: 0 virtual, 1 USB, 2 PC Card, 3 UART, 4 RS232, 5 PCI,
    /// 6 SDIO, 7 SPI, 8 I2C, 9 SMD, 10 virtio.
    public var type: UInt8

    public init(index: UInt16, name: String, addressBytes: [UInt8], flags: UInt32, type: UInt8) {
        self.index = index
        self.name = name
        self.addressBytes = addressBytes
        self.flags = flags
        self.type = type
    }

    /// The controller is powered and initialised (`HCI_UP`).
    public var isUp: Bool { flags & 1 != 0 }

    /// The address as people write it, most significant byte first: "00:1A:7D:DA:71:13"
    /// (as every address is written); bytes that are not six are shown as they are.
    public var address: String {
        BluetoothAddress(littleEndianBytes: addressBytes)?.description ?? HexText.bytes(addressBytes.reversed(), separator: ":")
    }

    /// The bus the controller sits on, e.g. "USB".
    public var bus: String {
        let names = [
            "virtual", "USB", "PC Card", "UART", "RS232", "PCI", "SDIO", "SPI", "I2C", "SMD", "virtio",
        ]
        let bus = Int(type & 0x0F)
        return bus < names.count ? names[bus] : "bus \(bus)"
    }
}
#endif
