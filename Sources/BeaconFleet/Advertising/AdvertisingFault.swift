import HCI

/// Something that took the beacons off the air after they were started: what the watchdog
/// reacts to.
public enum AdvertisingFault: Error, Equatable, Sendable, CustomStringConvertible {
    /// The controller sent Hardware Error: it crashed or restarted, and lost its state.
    case hardwareError(controller: String, code: UInt8)
    /// A Reset this program did not send completed.
    case unsolicitedReset(controller: String)
    /// Another program cleared every advertising set of a shared controller (the kernel does
    /// so when the controller is powered off).
    case advertisingSetsCleared(controller: String)
    /// The controller ended an advertising set on its own.
    case advertisingSetTerminated(controller: String, handle: AdvertisingHandle, beacon: String, status: HCIStatus)
    /// The link to the controller ended (unplugged, RootCanal stopped, TCP dropped).
    case transportEnded(HCITransportError)
    /// A command of the running session failed (legacy rotation changes the data every slot).
    case commandFailed(HCIError)

    public var description: String {
        switch self {
        case .hardwareError(let controller, let code):
            return "\(controller): the controller reported hardware error \(HexText.code(code)): it crashed or restarted "
                + "and the beacons are off the air"
        case .unsolicitedReset(let controller):
            return "\(controller): the controller was reset by someone else (another program on the shared kernel "
                + "socket, or the controller restarting): the beacons are off the air"
        case .advertisingSetsCleared(let controller):
            return "\(controller): another program cleared every advertising set (LE Clear Advertising Sets; the "
                + "kernel does so when the controller is powered off, e.g. by `btmgmt power off`): the beacons are "
                + "off the air"
        case .advertisingSetTerminated(let controller, let handle, let beacon, let status):
            return "\(controller): the controller stopped advertising \(handle) (beacon \(beacon)) on its own "
                + "(\(status)): that beacon is off the air"
        case .transportEnded(let error):
            return "the connection to the controller ended: \(error.advisedMessage)"
        case .commandFailed(let error):
            return error.advisedMessage
        }
    }

    /// Whether the controller holds no advertising sets any more (a Reset, or every set
    /// cleared), so that there is nothing to stop: on a shared controller a stop command could
    /// only fail, or hit a set another program created since with the same handle.
    public var leftNoAdvertisingSets: Bool {
        switch self {
        case .unsolicitedReset, .advertisingSetsCleared: return true
        default: return false
        }
    }

    /// Whether the link is gone, so that a restart must open the transport again.
    public var transportIsGone: Bool {
        switch self {
        case .transportEnded: return true
        case .commandFailed(let error):
            switch error.kind {
            case .transport, .closed: return true
            default: return false
            }
        default: return false
        }
    }
}
