#if os(Linux)
import Glibc

/// H4 over a UART: Zephyr `hci_uart` dongles, ESP32 HCI firmware, a Raspberry Pi's UART.
public enum SerialTransport {
    /// Opens `path` for exclusive use, configures it raw 8N1 at `baudRate` (with RTS/CTS
    /// flow control if asked) and starts reading H4 packets from it.
    public static func open(
        path: String, baudRate: Int = SerialBaudRates.standard, hardwareFlowControl: Bool = false
    ) async throws(HCITransportError) -> any HCITransport {
        let name = HCITransportSpec.serial(
            path: path, baudRate: baudRate, hardwareFlowControl: hardwareFlowControl
        ).description
        let port = SerialPortSetup(
            path: path, baudRate: baudRate, hardwareFlowControl: hardwareFlowControl, name: name)
        // Opening a tty runs its driver's open (a USB adapter talks to the device first):
        // keep that wait off Swift's cooperative threads, as for the other transports.
        let opened: Result<Int32, HCITransportError>
        do {
            opened = try await POSIXThread.run { port.openResult() }
        } catch {
            throw HCITransportError(.connectFailed, "\(name): cannot start opening \(path): \(error)")
        }
        let descriptor = try opened.get()
        let configuration = PacketLinkConfiguration(
            name: name, framing: .h4Stream(maximumPayloadLength: H4StreamParser.largestPossiblePayload)
        ) { failure in
            explain(failure, name: name, path: path, baudRate: baudRate)
        }
        return try POSIXPacketTransport.start(
            descriptor: descriptor, io: SystemDescriptorIO(isSocket: false), configuration: configuration)
    }

    static func explain(
        _ failure: LinkFailure, name: String, path: String, baudRate: Int
    ) -> HCITransportError {
        switch failure {
        case .endOfStream:
            return gone(name: name, path: path)
        case .readFailed(let error) where error.code == EIO || error.code == ENXIO:
            return gone(name: name, path: path)
        case .framing(let error):
            return HCITransportError(
                .framing,
                "\(name): \(error.message). Check that the controller's UART runs at \(baudRate) baud "
                    + "and that its firmware speaks H4 (e.g. Zephyr's hci_uart sample)")
        case .writeStalled(let timeout):
            return HCITransportError(
                .ioFailure,
                "\(name): the controller accepted no data for \(timeout.spokenForMessages); if flow "
                    + "control is on (rtscts), check that the CTS line is wired")
        default:
            return PacketLinkConfiguration.genericExplanation(of: failure, name: name)
        }
    }

    private static func gone(name: String, path: String) -> HCITransportError {
        HCITransportError(.ioFailure, "\(name): \(path) went away (unplugged, or its firmware reset?)")
    }
}

/// Opens and configures one serial port; the descriptor it returns is ready for H4.
private struct SerialPortSetup: Sendable {
    let path: String
    let baudRate: Int
    let hardwareFlowControl: Bool
    let name: String

    func openResult() -> Result<Int32, HCITransportError> {
        do throws(HCITransportError) {
            return .success(try open())
        } catch {
            return .failure(error)
        }
    }

    func open() throws(HCITransportError) -> Int32 {
        guard let speed = Self.termiosSpeed(baudRate) else {
            let rates = SerialBaudRates.supported.map(String.init).joined(separator: ", ")
            throw HCITransportError(
                .invalidSpec, "\(name): \(baudRate) baud is not supported; use one of \(rates)")
        }
        // O_NOCTTY: the dongle must never become this process's controlling terminal.
        // O_NONBLOCK: open must not wait for a modem carrier, and the reader polls anyway.
        let descriptor = Glibc.open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw openFailure(.lastError(of: "open")) }
        do {
            try claimExclusively(descriptor)
            try configure(descriptor, speed: speed)
        } catch {
            Glibc.close(descriptor)
            throw error
        }
        return descriptor
    }

    private func openFailure(_ error: POSIXCallError) -> HCITransportError {
        switch error.code {
        case ENOENT:
            return HCITransportError(
                .connectFailed,
                "\(name): there is no \(path); is the controller plugged in? "
                    + "`ls /dev/ttyACM* /dev/ttyUSB*` lists serial devices")
        case EACCES, EPERM:
            return HCITransportError(
                .permissionDenied,
                "\(name): permission denied opening \(path); add your user to the group that owns it "
                    + "(usually dialout: `sudo usermod -aG dialout $USER`, then log in again)")
        case EBUSY:
            return busy()
        case ENXIO, ENODEV:
            return HCITransportError(
                .noSuchDevice, "\(name): \(path) exists but no device answers behind it (unplugged?)")
        default:
            return HCITransportError(.connectFailed, "\(name): cannot open \(path): \(error)")
        }
    }

    private func busy() -> HCITransportError {
        HCITransportError(
            .deviceBusy,
            "\(name): another program has \(path) open (`fuser -v \(path)` shows which; "
                + "ModemManager often grabs new ttyACM devices)")
    }

    /// Two programs reading one UART would each get half the packets: take an advisory lock
    /// (what other serial tools honour) and TIOCEXCL (so that further opens fail with EBUSY).
    private func claimExclusively(_ descriptor: Int32) throws(HCITransportError) {
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let error = POSIXCallError.lastError(of: "flock")
            if error.code == EWOULDBLOCK { throw busy() }
            throw HCITransportError(.connectFailed, "\(name): cannot lock \(path): \(error)")
        }
        _ = ioctl(descriptor, UInt(TIOCEXCL))
    }

    /// Raw 8N1 at `speed` (Linux termios(3)): no echo, no line editing, no CR/LF
    /// translation, no software flow control; RTS/CTS only if asked for.
    private func configure(_ descriptor: Int32, speed: speed_t) throws(HCITransportError) {
        var settings = termios()
        guard tcgetattr(descriptor, &settings) == 0 else {
            let error = POSIXCallError.lastError(of: "tcgetattr")
            if error.code == ENOTTY {
                throw HCITransportError(
                    .connectFailed, "\(name): \(path) is not a serial port (it has no terminal settings)")
            }
            throw HCITransportError(.connectFailed, "\(name): cannot read the settings of \(path): \(error)")
        }
        cfmakeraw(&settings)
        settings.c_cflag &= ~tcflag_t(PARENB | CSTOPB | CSIZE)
        settings.c_cflag |= tcflag_t(CS8 | CLOCAL | CREAD)
        if hardwareFlowControl {
            settings.c_cflag |= tcflag_t(CRTSCTS)
        } else {
            settings.c_cflag &= ~tcflag_t(CRTSCTS)
        }
        // Reads return whatever has arrived; the reader waits in poll, not in read.
        withUnsafeMutableBytes(of: &settings.c_cc) { controlCharacters in
            controlCharacters[Int(VMIN)] = 1
            controlCharacters[Int(VTIME)] = 0
        }
        guard cfsetispeed(&settings, speed) == 0, cfsetospeed(&settings, speed) == 0,
            tcsetattr(descriptor, TCSANOW, &settings) == 0
        else {
            let error = POSIXCallError.lastError(of: "tcsetattr")
            throw HCITransportError(
                .connectFailed, "\(name): the driver of \(path) refused \(baudRate) baud 8N1: \(error)")
        }
        // tcsetattr succeeds if any one setting took: read back what the driver kept.
        var applied = termios()
        guard tcgetattr(descriptor, &applied) == 0, cfgetospeed(&applied) == speed else {
            throw HCITransportError(
                .connectFailed, "\(name): the driver of \(path) did not accept \(baudRate) baud")
        }
        if hardwareFlowControl && applied.c_cflag & tcflag_t(CRTSCTS) == 0 {
            throw HCITransportError(
                .connectFailed, "\(name): the driver of \(path) does not support RTS/CTS flow control")
        }
        // Bytes queued before we opened (the tail of an earlier session) would desynchronise
        // H4 from the first read: discard them.
        tcflush(descriptor, TCIOFLUSH)
    }

    private static func termiosSpeed(_ baudRate: Int) -> speed_t? {
        let speed: Int32? =
            switch baudRate {
            case 9_600: B9600
            case 19_200: B19200
            case 38_400: B38400
            case 57_600: B57600
            case 115_200: B115200
            case 230_400: B230400
            case 460_800: B460800
            case 500_000: B500000
            case 576_000: B576000
            case 921_600: B921600
            case 1_000_000: B1000000
            case 1_152_000: B1152000
            case 1_500_000: B1500000
            case 2_000_000: B2000000
            case 2_500_000: B2500000
            case 3_000_000: B3000000
            case 3_500_000: B3500000
            case 4_000_000: B4000000
            default: nil
            }
        return speed.map { speed_t($0) }
    }
}
#endif
import HCI
