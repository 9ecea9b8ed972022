#if os(Linux)
import BeaconPlatform
import Glibc
import HCI
import HCITransports
import Testing

@testable import BeaconFleet

@Suite("Opening controllers by transport spec", .timeLimit(.minutes(1)))
struct TransportFactoryTests {
    @Test("tcp-client: reaches the TCP transport")
    func tcpClient() async throws {
        // A port bound but not listening refuses connections, and stays ours meanwhile.
        let holder = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { close(holder) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(holder, $0, length) == 0 && getsockname(holder, $0, &length) == 0
            }
        }
        try #require(bound)
        let port = UInt16(bigEndian: address.sin_port)
        let error = try await #require(throws: HCITransportError.self) {
            _ = try await ControllerTransports.open(.tcpClient(host: "127.0.0.1", port: port))
        }
        #expect(error.kind == .connectFailed)
        #expect(
            error.message.contains(
                "connection refused: is the controller/RootCanal running on 127.0.0.1:\(port)?"))
    }

    @Test("serial: reaches the serial transport")
    func serial() async throws {
        let spec = try HCITransportSpec(parsing: "serial:/dev/ttyACM-beaconctl-absent")
        let error = try await #require(throws: HCITransportError.self) {
            _ = try await ControllerTransports.open(spec)
        }
        #expect(error.kind == .connectFailed)
        #expect(
            error.message.hasPrefix(
                "serial:/dev/ttyACM-beaconctl-absent: there is no /dev/ttyACM-beaconctl-absent"))
    }

    @Test("hci0 and hci-user:0 reach the kernel socket transport")
    func kernelSockets() async throws {
        let probe = socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 1)
        let kernelHasBluetooth = probe >= 0 || errno != EAFNOSUPPORT
        if probe >= 0 { close(probe) }
        for text in ["hci0", "hci-user:0"] {
            do {
                let transport = try await ControllerTransports.open(try HCITransportSpec(parsing: text))
                #expect(kernelHasBluetooth)
                #expect(transport.name == text)
                await transport.close()
            } catch {
                #expect(error.message.hasPrefix("\(text): "), "\(error)")
                if kernelHasBluetooth {
                    // A machine with an adapter: any honest refusal will do.
                    #expect(
                        [.noSuchDevice, .deviceDown, .deviceBusy, .permissionDenied].contains(error.kind),
                        "\(error)")
                } else {
                    #expect(error.kind == .bluetoothUnsupported, "\(error)")
                }
            }
        }
    }
}
#endif
