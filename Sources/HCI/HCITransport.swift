/// A way to reach one controller: a sink for packets to it and a source of packets from it.
///
/// Kernel sockets, H4 over TCP or a UART, and the virtual radio all conform; everything
/// above (the host-controller actor, advertising, scanning) is the same code for each.
public protocol HCITransport: AnyObject, Sendable {
    /// The transport spec it was opened from, e.g. `hci0` or `tcp-client:127.0.0.1:6402`:
    /// used to prefix every error message so the user knows which controller spoke.
    var name: String { get }

    /// Sends one packet to the controller.
    func send(_ packet: HCIPacket) async throws(HCITransportError)

    /// The packets from the controller, in order. There is one consumer; the stream ends
    /// when the transport is closed and finishes with an error when the link drops.
    var incoming: AsyncThrowingStream<HCIPacket, any Error> { get }

    /// Closes the link. Idempotent. Pending `send`s fail with `.closed`.
    func close() async
}

/// What a transport reports when it cannot move packets. `message` says what happened and on
/// which controller; `cause` carries the facts a front end needs to say what to do next
/// (BeaconFleet's `ControllerAdvice` words them), so that no protocol layer names a command.
public struct HCITransportError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: Equatable, Sendable {
        /// The transport spec string could not be understood.
        case invalidSpec
        /// The kernel has no Bluetooth support (EAFNOSUPPORT).
        case bluetoothUnsupported
        /// Missing CAP_NET_RAW / CAP_NET_ADMIN.
        case permissionDenied
        /// No such controller (ENODEV).
        case noSuchDevice
        /// Device is down (RAW channel needs it up).
        case deviceDown
        /// Device is up or in use by another program (USER channel needs it down and exclusive).
        case deviceBusy
        /// Could not connect / open (TCP refused, serial port missing...).
        case connectFailed
        /// The link dropped or a read/write failed mid-stream.
        case ioFailure
        /// The byte stream could not be framed into HCI packets.
        case framing
        /// The transport was closed.
        case closed
        /// This transport is not available on this platform or build.
        case unsupported
    }

    /// What the kernel reported, beyond `kind`, that decides what the user can do about it.
    public enum Cause: Equatable, Sendable {
        /// The kernel has no AF_BLUETOOTH (EAFNOSUPPORT): built or booted without Bluetooth.
        case kernelWithoutBluetooth
        /// The process lacks the CAP_NET_RAW or CAP_NET_ADMIN capability the message names.
        case missingCapability
        /// Controller `device` is up or being set up by the kernel; the user channel needs it
        /// down and unused (EBUSY).
        case controllerUpForKernel(device: UInt16)
        /// Another process holds the user channel of controller `device` (EUSERS, EALREADY).
        case userChannelHeld(device: UInt16)
        /// Controller `device` is down (ENETDOWN on the RAW channel).
        case controllerDown(device: UInt16)
        /// Controller `device` is blocked by RF-kill (ERFKILL).
        case rfKilled(device: UInt16)
        /// There is no controller with this index (ENODEV at bind).
        case noSuchController(device: UInt16)
        /// The controller went away while in use (unplugged, driver reset).
        case controllerRemoved(device: UInt16)
        /// The kernel's management interface refused a request about controller `device`.
        case managementRefused(device: UInt16)
    }

    public var kind: Kind
    public var message: String
    /// `nil` when `message` says all there is.
    public var cause: Cause?

    public init(_ kind: Kind, _ message: String, cause: Cause? = nil) {
        self.kind = kind
        self.message = message
        self.cause = cause
    }

    public var description: String { message }
}
