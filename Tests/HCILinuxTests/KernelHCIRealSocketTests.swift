#if os(Linux)
import Glibc
import HCI
import Testing

@testable import HCILinux

/// These use the real system calls. On a kernel without Bluetooth (this project's CI) the
/// outcome is exact; on a machine with an adapter any honest outcome is accepted.
@Suite("Kernel HCI sockets, real system calls", .timeLimit(.minutes(1)))
struct KernelHCIRealSocketTests {
    /// Whether this kernel can create Bluetooth sockets at all.
    private static var kernelHasBluetooth: Bool {
        let probe = socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 1)
        guard probe >= 0 else { return errno != EAFNOSUPPORT }
        close(probe)
        return true
    }

    @Test("opening hci-socket:0 fails plainly on a kernel without Bluetooth")
    func openRawChannel() async throws {
        do {
            let transport = try await KernelHCISocketTransport.open(device: 0, channel: .raw)
            #expect(Self.kernelHasBluetooth)
            await transport.close()
        } catch {
            if Self.kernelHasBluetooth {
                #expect([.noSuchDevice, .deviceDown, .permissionDenied].contains(error.kind), "\(error)")
            } else {
                #expect(
                    error
                        == HCITransportError(
                            .bluetoothUnsupported,
                            "hci0: this kernel has no Bluetooth support (AF_BLUETOOTH: address family not supported)",
                            cause: .kernelWithoutBluetooth))
            }
        }
    }

    @Test("listing controllers fails plainly on a kernel without Bluetooth")
    func listControllers() throws {
        do {
            let controllers = try KernelHCIControllers.list()
            #expect(Self.kernelHasBluetooth)
            #expect(controllers.allSatisfy { $0.name.hasPrefix("hci") })
        } catch {
            #expect(!Self.kernelHasBluetooth, "\(error)")
            #expect(error.kind == .bluetoothUnsupported)
        }
    }
}
#endif
