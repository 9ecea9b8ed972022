import HCITestKit
import Testing

@testable import HCI
import HCITransports

@Suite("Transport spec strings")
struct TransportSpecTests {
    @Test(
        "canonical specs print back to themselves",
        arguments: [
            ("hci0", HCITransportSpec.kernelSocket(device: 0)),
            ("hci12", .kernelSocket(device: 12)),
            ("hci65534", .kernelSocket(device: 65534)),
            ("hci-user:0", .kernelUserChannel(device: 0)),
            ("hci-user:3", .kernelUserChannel(device: 3)),
            ("tcp-client:127.0.0.1:6402", .tcpClient(host: "127.0.0.1", port: 6402)),
            ("tcp-client:localhost:1", .tcpClient(host: "localhost", port: 1)),
            (
                "tcp-client:rootcanal.lab-2.example:65535",
                .tcpClient(host: "rootcanal.lab-2.example", port: 65535)
            ),
            ("tcp-client:[::1]:6402", .tcpClient(host: "::1", port: 6402)),
            ("tcp-client:[fe80::1%eth0]:6402", .tcpClient(host: "fe80::1%eth0", port: 6402)),
            (
                "serial:/dev/ttyACM0",
                .serial(path: "/dev/ttyACM0", baudRate: 115_200, hardwareFlowControl: false)
            ),
            (
                "serial:/dev/ttyUSB1,1000000",
                .serial(path: "/dev/ttyUSB1", baudRate: 1_000_000, hardwareFlowControl: false)
            ),
            (
                "serial:/dev/ttyAMA0,rtscts",
                .serial(path: "/dev/ttyAMA0", baudRate: 115_200, hardwareFlowControl: true)
            ),
            (
                "serial:/dev/serial/by-id/usb-ZEPHYR,921600,rtscts",
                .serial(path: "/dev/serial/by-id/usb-ZEPHYR", baudRate: 921_600, hardwareFlowControl: true)
            ),
            ("virtual", .virtual(scenario: nil)),
            ("virtual:cupertino", .virtual(scenario: "cupertino")),
            ("virtual:venues/cupertino.yaml", .virtual(scenario: "venues/cupertino.yaml")),
        ])
    func canonicalRoundTrip(text: String, spec: HCITransportSpec) throws {
        #expect(try HCITransportSpec(parsing: text) == spec)
        #expect(spec.description == text)
        #expect(HCITransportSpec(text) == spec)
    }

    @Test(
        "other spellings parse to the same spec and print canonically",
        arguments: [
            ("hci-socket:0", "hci0"),
            ("hci-socket:7", "hci7"),
            ("hci007", "hci7"),
            ("serial:/dev/ttyACM0,115200", "serial:/dev/ttyACM0"),
            ("serial:/dev/ttyACM0,rtscts,1000000", "serial:/dev/ttyACM0,1000000,rtscts"),
        ])
    func alternativeSpellings(text: String, canonical: String) throws {
        let spec = try HCITransportSpec(parsing: text)
        #expect(spec.description == canonical)
        #expect(try HCITransportSpec(parsing: canonical) == spec)
    }

    @Test(
        "each invalid form says what is wrong",
        arguments: [
            ("", "unknown kind of transport"),
            ("bluetooth", "unknown kind of transport"),
            ("hci-foo:0", "unknown kind of transport"),
            ("HCI0", "unknown kind of transport"),
            ("hci", "the controller index must be a number from 0 to 65534"),
            ("hci-socket:", "the controller index must be a number from 0 to 65534"),
            ("hci-user:-1", "the controller index must be a number from 0 to 65534"),
            ("hci65535", "the controller index must be a number from 0 to 65534"),
            ("hci0x1", "the controller index must be a number from 0 to 65534"),
            ("tcp-client:localhost", "missing port: write tcp-client:HOST:PORT"),
            ("tcp-client:127.0.0.1:", "the port must be a number from 1 to 65535, not \"\""),
            ("tcp-client:127.0.0.1:0", "the port must be a number from 1 to 65535, not \"0\""),
            ("tcp-client:127.0.0.1:65536", "the port must be a number from 1 to 65535"),
            ("tcp-client:127.0.0.1:+80", "the port must be a number from 1 to 65535"),
            ("tcp-client::6402", "\"\" is not a host name or IPv4 address"),
            ("tcp-client:my host:6402", "\"my host\" is not a host name or IPv4 address"),
            ("tcp-client:::1:6402", "put an IPv6 address in brackets, as in tcp-client:[::1]:6402"),
            ("tcp-client:[::1:6402", "the IPv6 address has no closing \"]\""),
            ("tcp-client:[::1]6402", "missing \":PORT\" after the IPv6 address"),
            ("tcp-client:[localhost]:6402", "\"localhost\" is not an IPv6 address"),
            ("serial:", "give the serial device's full path, as in serial:/dev/ttyACM0"),
            ("serial:ttyACM0", "give the serial device's full path, as in serial:/dev/ttyACM0"),
            ("serial:/dev/ttyACM0,115201", "115201 baud is not supported; use one of 9600, 19200"),
            ("serial:/dev/ttyACM0,115200,9600", "more than one baud rate is given"),
            ("serial:/dev/ttyACM0,rtscts,rtscts", "\"rtscts\" is given twice"),
            ("serial:/dev/ttyACM0,fast", "unknown serial option \"fast\": give a baud rate or \"rtscts\""),
            ("serial:/dev/ttyACM0,", "unknown serial option \"\""),
            ("virtual:", "name a scenario after \"virtual:\", or write just \"virtual\""),
            ("virtual:a\nb", "name a scenario after \"virtual:\""),
        ])
    func invalidForms(text: String, reason: String) throws {
        let error = try #require(throws: HCITransportError.self) { try HCITransportSpec(parsing: text) }
        #expect(error.kind == .invalidSpec)
        #expect(error.message.hasPrefix("invalid transport \"\(text)\": \(reason)"), "\(error.message)")
        #expect(
            error.message.hasSuffix(
                "Accepted forms: hciN or hci-socket:N (kernel socket); hci-user:N (kernel user channel); "
                    + "tcp-client:HOST:PORT (IPv6: tcp-client:[::1]:PORT); serial:PATH[,BAUD][,rtscts]; "
                    + "virtual[:SCENARIO]"))
        #expect(HCITransportSpec(text) == nil)
    }

    @Test("every supported baud rate parses and prints")
    func supportedBaudRates() throws {
        for rate in SerialBaudRates.supported {
            let spec = try HCITransportSpec(parsing: "serial:/dev/ttyS0,\(rate)")
            #expect(spec == .serial(path: "/dev/ttyS0", baudRate: rate, hardwareFlowControl: false))
            #expect(try HCITransportSpec(parsing: spec.description) == spec)
        }
    }
}
