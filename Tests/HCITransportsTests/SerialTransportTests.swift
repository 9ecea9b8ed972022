#if os(Linux)
import HCITestKit
import Glibc
import Testing

@testable import HCI
import HCITransports

@Suite(
    "H4 over a serial port", .timeLimit(.minutes(1)),
    .enabled(if: SerialPseudoTerminal.isAvailable, "needs posix_openpt from the C library"))
struct SerialTransportTests {
    @Test("a pseudo-terminal carries packets both ways, bytes untouched by the line discipline")
    func roundTrip() async throws {
        let terminal = try SerialPseudoTerminal()
        let transport = try await SerialTransport.open(path: terminal.path, baudRate: 1_000_000)
        #expect(transport.name == "serial:\(terminal.path),1000000")

        // CR, LF, ^C, ^S, ^Q and DEL: a cooked tty would translate or swallow each of them.
        let awkward = HCIPacket(type: .command, body: [0x08, 0x20, 0x06, 0x0D, 0x0A, 0x03, 0x13, 0x11, 0x7F])
        try await transport.send(awkward)
        #expect(try await terminal.controller.read(count: awkward.h4Bytes.count) == awkward.h4Bytes)

        let answers = Array(H4Captures.rootCanalScanSession[0...9])
        // Split after the second packet's header (7 + 3 bytes), before its payload: the reader
        // holds the header while the rest is unwritten.
        let received = try await deliverSplit(answers, cutAt: [10], from: terminal.controller, to: transport)
        #expect(received == answers)
        await transport.close()
    }

    @Test("the port is left raw 8N1 at the asked speed, with RTS/CTS only when asked")
    func termiosSettings() async throws {
        for flowControl in [false, true] {
            let terminal = try SerialPseudoTerminal()
            let transport = try await SerialTransport.open(
                path: terminal.path, baudRate: 921_600, hardwareFlowControl: flowControl)
            var settings = try terminal.settings()
            #expect(cfgetospeed(&settings) == speed_t(B921600))
            #expect(cfgetispeed(&settings) == speed_t(B921600))
            #expect(settings.c_cflag & tcflag_t(CSIZE) == tcflag_t(CS8))
            #expect(settings.c_cflag & tcflag_t(PARENB | CSTOPB) == 0)
            #expect(settings.c_cflag & tcflag_t(CREAD | CLOCAL) == tcflag_t(CREAD | CLOCAL))
            #expect((settings.c_cflag & tcflag_t(CRTSCTS) != 0) == flowControl)
            #expect(settings.c_lflag & tcflag_t(ICANON | ECHO | ISIG | IEXTEN) == 0)
            #expect(settings.c_iflag & tcflag_t(ICRNL | IXON | IXOFF | ISTRIP) == 0)
            #expect(settings.c_oflag & tcflag_t(OPOST) == 0)
            await transport.close()
        }
    }

    @Test("a second opener is told the port is taken")
    func exclusiveUse() async throws {
        let terminal = try SerialPseudoTerminal()
        let first = try await SerialTransport.open(path: terminal.path)
        let error = try await #require(throws: HCITransportError.self) {
            _ = try await SerialTransport.open(path: terminal.path)
        }
        #expect(error.kind == .deviceBusy)
        #expect(
            error.message.contains("another program has \(terminal.path) open (`fuser -v \(terminal.path)`"))
        await first.close()
        // Closing releases the port for the next program. A child process that another test
        // spawns at this moment holds a copy of every descriptor, lock included, until its
        // exec closes them (close-on-exec): wait for the release, not for a time. A port
        // never released fails at the suite's time limit.
        var second: (any HCITransport)?
        while second == nil {
            do {
                second = try await SerialTransport.open(path: terminal.path)
            } catch {
                guard error.kind == .deviceBusy else { throw error }
                // The kernel's lock on a real device announces its release to nobody: tried again.
                try await Task.sleep(for: .milliseconds(10))
            }
        }
        await second?.close()
    }

    @Test("a missing device says how to find the right one")
    func missingDevice() async throws {
        let error = try await #require(throws: HCITransportError.self) {
            _ = try await SerialTransport.open(path: "/dev/ttyACM-beaconctl-absent")
        }
        #expect(error.kind == .connectFailed)
        #expect(
            error.message
                == "serial:/dev/ttyACM-beaconctl-absent: there is no /dev/ttyACM-beaconctl-absent; is the "
                + "controller plugged in? `ls /dev/ttyACM* /dev/ttyUSB*` lists serial devices")
    }

    @Test("a file that is not a terminal is refused")
    func notATerminal() async throws {
        let error = try await #require(throws: HCITransportError.self) {
            _ = try await SerialTransport.open(path: "/dev/null")
        }
        #expect(error.kind == .connectFailed)
        #expect(
            error.message == "serial:/dev/null: /dev/null is not a serial port (it has no terminal settings)")
    }

    @Test("an unsupported speed is refused before the device is touched")
    func unsupportedSpeed() async throws {
        let error = try await #require(throws: HCITransportError.self) {
            _ = try await SerialTransport.open(path: "/dev/null", baudRate: 115_201)
        }
        #expect(error.kind == .invalidSpec)
        #expect(
            error.message.hasPrefix("serial:/dev/null,115201: 115201 baud is not supported; use one of 9600"))
    }

    @Test("the device going away ends the stream with an error")
    func hangUp() async throws {
        var terminal: SerialPseudoTerminal? = try SerialPseudoTerminal()
        let path = try #require(terminal?.path)
        let transport = try await SerialTransport.open(path: path)
        // Closing every leader and follower descriptor but the transport's is a hang-up.
        terminal = nil
        let error = try await #require(throws: HCITransportError.self) {
            for try await _ in transport.incoming {}
        }
        #expect(error.kind == .ioFailure)
        #expect(error.message == "serial:\(path): \(path) went away (unplugged, or its firmware reset?)")
    }
}
#endif
