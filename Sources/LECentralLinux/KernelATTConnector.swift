#if os(Linux)
import BeaconCore
import Glibc
import HCI
import HCILinux
import HCITransports
import LECentral

/// Connects to a peripheral's ATT channel through the Linux kernel, as BlueZ's btgatt-client
/// does, for a controller the kernel owns (`hciN` beside bluetoothd): an L2CAP socket bound
/// to the controller's address on channel 0x0004, at security level low (nothing is paired
/// or encrypted), connected to the peer's address with its LE address type. The kernel
/// creates the LE connection with its own parameters (net/bluetooth/l2cap_core.c,
/// l2cap_chan_connect) and takes it down once the socket is closed and no one else uses it.
public enum KernelATTConnector {
    /// `BT_SECURITY_LOW` (BlueZ lib/bluetooth.h): no pairing, no encryption asked for.
    static let securityLevelLow: UInt8 = 1

    /// Connects from `hci<controller>` to `peer` within `timeout`. On the deadline, or when the
    /// calling task is cancelled, the socket is closed, which ends the kernel's attempt.
    public static func connect(
        controller: UInt16, to peer: BluetoothAddress, type: PeerAddressType, timeout: Duration
    ) async throws(LECentralError) -> KernelATTBearer {
        try await connect(
            controller: controller, to: peer, type: type, timeout: timeout, syscalls: LinuxKernelL2CAPSyscalls()
        ) { (index) throws(HCITransportError) -> BluetoothAddress in
            let info = try KernelHCIControllers.upController(index)
            guard let address = BluetoothAddress(littleEndianBytes: info.addressBytes), address != .zero else {
                throw HCITransportError(
                    .noSuchDevice,
                    "hci\(index): the controller has no public address, and the kernel's ATT sockets are bound to one")
            }
            return address
        }
    }

    /// The same through `syscalls`, with the controller's address from `controllerAddress`.
    static func connect(
        controller: UInt16, to peer: BluetoothAddress, type: PeerAddressType, timeout: Duration,
        syscalls: any KernelL2CAPSyscalls,
        controllerAddress: @escaping @Sendable (UInt16) throws(HCITransportError) -> BluetoothAddress
    ) async throws(LECentralError) -> KernelATTBearer {
        let context = "hci\(controller): peripheral \(peer)"
        guard !Task.isCancelled else { throw LECentralError(context: context, kind: .cancelled) }
        let stop: SignalChannel
        do {
            stop = try SignalChannel()
        } catch {
            throw LECentralError(context: context, kind: .socket("cannot prepare the connection: \(error)"))
        }
        let deadline = ContinuousClock.now.advanced(by: timeout)
        let attempt = Attempt(
            controller: controller, peer: KernelL2CAPAddress(address: peer, kind: .init(type)), timeout: timeout,
            deadline: deadline, context: context, syscalls: syscalls, stop: stop, controllerAddress: controllerAddress)
        let outcome: Result<KernelATTBearer, LECentralError>
        do {
            outcome = try await withTaskCancellationHandler {
                try await POSIXThread.run { attempt.run() }
            } onCancel: {
                stop.signal()
            }
        } catch {
            throw LECentralError(context: context, kind: .socket("cannot start the connection's thread: \(error)"))
        }
        return try outcome.get()
    }

    /// One attempt, run on a thread of its own: every call in it may wait on the kernel.
    private struct Attempt: Sendable {
        let controller: UInt16
        let peer: KernelL2CAPAddress
        let timeout: Duration
        let deadline: ContinuousClock.Instant
        let context: String
        let syscalls: any KernelL2CAPSyscalls
        let stop: SignalChannel
        let controllerAddress: @Sendable (UInt16) throws(HCITransportError) -> BluetoothAddress

        func run() -> Result<KernelATTBearer, LECentralError> {
            let local: BluetoothAddress
            do {
                local = try controllerAddress(controller)
            } catch {
                return .failure(LECentralError(context: context, kind: .transport(error)))
            }
            let socket: Int32
            do {
                socket = try syscalls.openSocket()
            } catch {
                return .failure(socketFailed(error))
            }
            switch connect(socket, from: local) {
            case .failure(let error):
                syscalls.close(socket)
                return .failure(error)
            case .success:
                break
            }
            do {
                let bearer = try KernelATTBearer(
                    socket: socket, peer: peer.address, context: context, mtu: syscalls.mtu(socket), syscalls: syscalls)
                return .success(bearer)
            } catch {
                return .failure(failure("cannot start reading the connection: \(error)"))
            }
        }

        private func connect(_ socket: Int32, from local: BluetoothAddress) -> Result<Void, LECentralError> {
            do {
                try syscalls.bind(socket, to: KernelL2CAPAddress(address: local, kind: .lePublic))
            } catch {
                return .failure(failure(
                    "cannot bind an ATT socket to hci\(controller)'s address \(local): \(KernelL2CAPErrno.words(error.code, while: .connecting))"))
            }
            do {
                try syscalls.setSecurityLevel(socket, KernelATTConnector.securityLevelLow)
            } catch {
                return .failure(failure("cannot set the ATT socket's security level: \(KernelL2CAPErrno.words(error.code, while: .connecting))"))
            }
            let connectedAtOnce: Bool
            do {
                connectedAtOnce = try syscalls.connect(socket, to: peer)
            } catch {
                return .failure(failure("the connection failed: \(KernelL2CAPErrno.words(error.code, while: .connecting))"))
            }
            return connectedAtOnce ? .success(()) : waitForConnection(socket)
        }

        /// Waits in `poll` until the socket is writable (connected) or fails, the stop channel
        /// rings (cancelled) or the deadline passes.
        private func waitForConnection(_ socket: Int32) -> Result<Void, LECentralError> {
            while true {
                let remaining = ContinuousClock.now.duration(to: deadline)
                guard remaining > .zero else {
                    return .failure(LECentralError(context: context, kind: .connectionTimeout(timeout)))
                }
                var descriptors = [
                    pollfd(fd: socket, events: Int16(POLLOUT), revents: 0),
                    pollfd(fd: stop.readEnd, events: Int16(POLLIN), revents: 0),
                ]
                do {
                    _ = try syscalls.poll(&descriptors, timeoutMilliseconds: remaining.pollTimeoutMilliseconds)
                } catch where error.code == EINTR {
                    continue
                } catch {
                    return .failure(failure("waiting for the connection failed: \(error)"))
                }
                if descriptors[1].revents != 0 {
                    return .failure(LECentralError(context: context, kind: .cancelled))
                }
                let events = descriptors[0].revents
                guard events != 0 else { continue }
                let code = syscalls.pendingError(socket)
                if code != 0 {
                    return .failure(failure("the connection failed: \(KernelL2CAPErrno.words(code, while: .connecting))"))
                }
                if events & Int16(POLLOUT) != 0 { return .success(()) }
                return .failure(failure("the kernel closed the socket before the connection completed"))
            }
        }

        private func socketFailed(_ error: POSIXCallError) -> LECentralError {
            switch error.code {
            case EAFNOSUPPORT:
                return failure("this kernel has no Bluetooth support (AF_BLUETOOTH: address family not supported)")
            case EPROTONOSUPPORT:
                return failure("this kernel's Bluetooth has no L2CAP sockets (BTPROTO_L2CAP: protocol not supported)")
            case EPERM, EACCES:
                return failure("not allowed to open a Bluetooth socket (\(error.reason)); a sandbox or security policy forbids AF_BLUETOOTH for this process")
            default:
                return failure("cannot open an L2CAP socket: \(error)")
            }
        }

        private func failure(_ what: String) -> LECentralError {
            LECentralError(context: context, kind: .socket(what))
        }
    }
}
#endif
