import BeaconCore
import HCI

/// Why advertising could not start or could not go on. `description` is the message for the
/// user: what happened, on which controller, and what to do.
public enum AdvertisingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Nothing to advertise, or a beacon whose values no controller accepts.
    case invalidRequest(String)
    /// The controller could not be opened.
    case transport(HCITransportError)
    /// A command failed while the controller was set up or the beacons started.
    case command(HCIError, context: String?)
    /// More beacons than the controller has advertising sets.
    case tooManyBeacons(controller: String, requested: Int, supported: Int)
    /// On a controller shared with the kernel: fewer sets free than beacons, because another
    /// program (bluetoothd) holds some. Raised before anything goes on the air.
    case notEnoughFreeSets(
        controller: String, index: UInt16, requested: Int, supported: Int, free: Int, occupied: OccupiedAdvertisingSets)
    /// On a controller shared with the kernel, another program took the set handles chosen
    /// for a beacon (`handles`, in the order tried) between the read of its sets and their creation.
    case setsTaken(controller: String, index: UInt16, beacon: String, handles: [UInt8])
    /// On a controller shared with the kernel, which sets another program holds could not be
    /// read, so no set handle is known to be free.
    case occupiedSetsUnknown(HCITransportError)
    /// `--family extended` on a controller without LE Extended Advertising.
    case extendedAdvertisingUnsupported(controller: String, version: BluetoothCoreVersion)
    /// The beacons went off the air and no restart was asked for.
    case fault(AdvertisingFault)
    /// The beacons went off the air and every restart attempt failed.
    case restartsExhausted(attempts: Int, last: String)
    /// Asked to stop (`reason`), but the controller did not acknowledge taking the beacons
    /// off the air: they may still be advertising.
    case stopNotConfirmed(controller: String, reason: StopReason, failures: [String])

    public var description: String {
        switch self {
        case .invalidRequest(let message):
            return message
        case .transport(let error):
            return error.advisedMessage
        case .command(let error, let context):
            guard let context else { return error.advisedMessage }
            return "\(error.advisedMessage) (while \(context))"
        case .tooManyBeacons(let controller, let requested, let supported):
            return "\(controller): \(requested) beacons need \(requested) advertising sets but the controller has "
                + "\(supported); advertise at most \(supported) here and put the rest on a second controller "
                + "(another \(UserSetting.hci)), or use \(UserSetting.family) legacy to rotate them on one advertisement"
        case .notEnoughFreeSets(let controller, let index, let requested, let supported, let free, let occupied):
            let beacons = "\(NumberText.count(requested, "beacon"))"
            return "\(controller): \(beacons) need\(requested == 1 ? "s" : "") \(NumberText.count(requested, "advertising set")), but "
                + "the controller has \(supported) and bluetoothd holds \(occupied.setCount) of them (\(occupied.described)), "
                + "leaving \(free) free; nothing was put on the air. Advertise at most \(NumberText.count(free, "beacon")) "
                + "from this box (fewer beacons per box: the rest from another box or controller), stop the other advertiser "
                + "(the program that registered those advertisements with bluetoothd, `bluetoothctl advertise off`, or "
                + "`btmgmt --index \(index) rm-adv N` for ones added with btmgmt), or rotate the \(beacons) on one legacy "
                + "advertisement with \(UserSetting.family) legacy on a controller of beaconctl's own "
                + "(\(UserSetting.hci) hci-user:\(index) with the device powered off: legacy and extended advertising "
                + "cannot share a controller)"
        case .setsTaken(let controller, let index, let beacon, let handles):
            let sets = handles.map { "set \($0)" }.joined(separator: " and ")
            return "\(controller): another program (usually bluetoothd) started advertising on \(sets), chosen for beacon "
                + "\(beacon) as free, while beaconctl was setting its beacons up; none of beaconctl's sets had been "
                + "enabled yet. Run again once the other program's advertisements are in place (`btmgmt --index "
                + "\(index) advinfo` lists them), or pass \(UserSetting.restart) to retry by itself"
        case .occupiedSetsUnknown(let error):
            return "\(error.advisedMessage); without that list beaconctl cannot tell which advertising sets are free next to "
                + "bluetoothd's, so nothing was put on the air"
        case .extendedAdvertisingUnsupported(let controller, let version):
            return "\(controller): this Bluetooth \(version) controller has no LE Extended Advertising (LE feature "
                + "bit 12 is clear): use \(UserSetting.family) legacy (or auto), which advertises several beacons in rotation"
        case .fault(let fault):
            return "\(fault.description); pass \(UserSetting.restart) to bring them back automatically"
        case .restartsExhausted(let attempts, let last):
            return "gave up after \(NumberText.count(attempts, "restart attempt")): \(last)"
        case .stopNotConfirmed(let controller, let reason, let failures):
            return "\(controller): stopping (\(reason)), the controller did not confirm that the beacons went off the air: "
                + failures.joined(separator: "; ")
                + "; they may still be advertising: reset or power-cycle the controller, then check with `beaconctl scan` from another one"
        }
    }

    /// Whether retrying could help: the controller or its link misbehaved, rather than
    /// refusing what was asked.
    var isTransient: Bool {
        switch self {
        case .transport, .fault, .setsTaken: return true
        case .occupiedSetsUnknown(let error): return error.kind != .permissionDenied
        case .command(let error, _):
            switch error.kind {
            case .timeout, .transport, .controllerReset, .hardwareError, .closed: return true
            case .commandFailed(let status):
                // Busy and hardware failure may pass; every other refusal will come again.
                return [.controllerBusy, .hardwareFailure, .unspecifiedError].contains(status)
            case .malformedAnswer, .unexpectedAnswer, .invalidCommand, .cancelled: return false
            }
        case .invalidRequest, .tooManyBeacons, .notEnoughFreeSets, .extendedAdvertisingUnsupported, .restartsExhausted,
            .stopNotConfirmed:
            return false
        }
    }
}
