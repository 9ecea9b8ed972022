#if os(Linux)
import CBlueZ
import Glibc
import HCI
import Testing

@testable import HCILinux

@Suite("Kernel controller listing")
struct KernelHCIControllersTests {
    @Test("each registered controller is listed with its name, address, state and bus")
    func listsControllers() throws {
        let kernel = try FakeKernelHCISyscalls(
            .init(devices: [
                .fake(index: 0, isUp: true),
                KernelHCIDeviceInfo(
                    index: 1, name: "hci1", addressBytes: [0x01, 0x02, 0x03, 0x04, 0x05, 0xC6], flags: 0,
                    type: 3),
            ]))
        let controllers = try KernelHCIControllers.list(syscalls: kernel)
        #expect(controllers.map(\.name) == ["hci0", "hci1"])
        #expect(controllers.map(\.address) == ["00:1A:7D:DA:71:13", "C6:05:04:03:02:01"])
        #expect(controllers.map(\.isUp) == [true, false])
        #expect(controllers.map(\.bus) == ["USB", "UART"])
        #expect(controllers.map(\.transportSpec) == [.kernelSocket(device: 0), .kernelSocket(device: 1)])
        #expect(kernel.log.closed == [kernel.socketEnd])
    }

    @Test("controllers are listed by index, whatever order the kernel gives (it puts the newest first)")
    func listsByIndex() throws {
        let kernel = try FakeKernelHCISyscalls(
            .init(devices: [.fake(index: 2, isUp: true), .fake(index: 0, isUp: true), .fake(index: 1, isUp: false)]))
        #expect(try KernelHCIControllers.list(syscalls: kernel).map(\.info.index) == [0, 1, 2])
    }

    @Test("upController: the state of a controller that is up; one down or missing is the error opening it gives")
    func upController() throws {
        let kernel = try FakeKernelHCISyscalls(.init(devices: [.fake(index: 0, isUp: true), .fake(index: 1, isUp: false)]))
        #expect(try KernelHCIControllers.upController(0, syscalls: kernel).address == "00:1A:7D:DA:71:13")
        let down = try #require(throws: HCITransportError.self) { try KernelHCIControllers.upController(1, syscalls: kernel) }
        #expect(down.kind == .deviceDown)
        #expect(down.cause == .controllerDown(device: 1))
        let missing = try #require(throws: HCITransportError.self) { try KernelHCIControllers.upController(7, syscalls: kernel) }
        #expect(missing.cause == .noSuchController(device: 7))
        #expect(kernel.log.closed.count == 3)
    }

    @Test("no Bluetooth in the kernel is reported, not an empty list")
    func noBluetooth() throws {
        let kernel = try FakeKernelHCISyscalls(.init(socketError: EAFNOSUPPORT))
        let error = try #require(throws: HCITransportError.self) {
            try KernelHCIControllers.list(syscalls: kernel)
        }
        #expect(error.kind == .bluetoothUnsupported)
        #expect(error.message.hasPrefix("kernel controllers: this kernel has no Bluetooth support"))
    }

    @Test("the structures handed to the kernel have the kernel's layout")
    func kernelStructureLayouts() {
        #expect(MemoryLayout<sockaddr_hci>.size == 6)
        #expect(MemoryLayout<hci_filter>.size == 16)
        #expect(MemoryLayout<hci_dev_req>.stride == 8)
        #expect(LinuxKernelHCISyscalls.deviceListEntriesOffset == 4)
        #expect(MemoryLayout<hci_dev_info>.offset(of: \.flags) == 16)
        #expect(MemoryLayout<hci_dev_info>.size == 92)
        #if arch(x86_64) || arch(arm64)
        // _IOR('H', 210, int) and _IOR('H', 211, int) in the generic ioctl encoding.
        #expect(cbluez_hci_get_device_list_request() == 0x8004_48D2)
        #expect(cbluez_hci_get_device_info_request() == 0x8004_48D3)
        #endif
    }

    @Test("the filter survives the trip through its socket option bytes")
    func filterRoundTrip() throws {
        let filter = KernelHCIFilter(packetTypes: 0x14, eventCodes: 0x4000_0000_0000_8001, opcode: 0x200C)
        #expect(filter.socketOptionBytes.count == 16)
        #expect(KernelHCIFilter(socketOptionBytes: filter.socketOptionBytes) == filter)
        #expect(KernelHCIFilter(socketOptionBytes: Array(filter.socketOptionBytes.prefix(13))) == nil)
        #expect(
            filter.passes(eventCode: 0x3E) && filter.passes(eventCode: 0x0F)
                && !filter.passes(eventCode: 0x0E))
        #expect(filter.passes(.acl) && filter.passes(.event) && !filter.passes(.command))
    }
}
#endif
