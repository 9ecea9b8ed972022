import BeaconCore
import HCI

/// What to do when a controller refused, failed or could not be reached: the words above the
/// protocol. `HCIError` and `HCITransportError` carry the facts (status, opcode, controller,
/// kind); this is where they become advice, naming the front end's settings and commands as
/// `UserSetting`/`UserCommand`.
public enum ControllerAdvice {
    /// The message for the user: the error's facts, then what to do.
    public static func message(for error: HCIError) -> String {
        let facts = error.description
        switch error.kind {
        case .commandFailed(let status):
            let advice = advice(for: status, opcode: error.opcode, controller: error.controller)
                ?? "retry; if it keeps failing, \(reportTheTraffic)"
            return "\(facts): \(advice)"
        case .timeout(_, let waitingForCredit):
            if waitingForCredit {
                return "\(facts); it may have hung: reset or replug it, then retry"
            }
            return "\(facts); the controller may have hung or been unplugged: check it, reset or replug it, then retry"
        case .transport(let transportError):
            return "\(error.controller): \(error.opcode.displayName) did not complete: \(message(for: transportError))"
        case .malformedAnswer:
            return "\(facts); the controller or the link is corrupting packets: \(reportTheTraffic)"
        case .unexpectedAnswer:
            return "\(facts); \(reportTheTraffic)"
        case .controllerReset:
            return "\(facts): set the controller up again"
        case .hardwareError:
            return "\(facts); reset it, and replug or replace it if the error repeats"
        case .invalidCommand, .closed, .cancelled:
            return facts
        }
    }

    /// The message for the user when a controller could not be named or reached. A transport
    /// spec that could not be parsed says what is wrong and which forms are accepted; this adds
    /// where the controllers' names come from.
    public static func message(for error: HCITransportError) -> String {
        if error.kind == .invalidSpec {
            return "\(error.message); \(UserCommand.controllers) lists this machine's controllers"
        }
        guard let cause = error.cause else { return error.message }
        switch cause {
        case .kernelWithoutBluetooth:
            return "\(error.message). Load the module (`modprobe bluetooth`), use a kernel built with CONFIG_BT, "
                + "or use tcp-client:/serial:/virtual"
        case .missingCapability:
            return "\(error.message); grant them once with `sudo setcap cap_net_raw,cap_net_admin+eip $(command -v beaconctl)`, "
                + "or run as root"
        case .controllerUpForKernel(let device):
            return "\(error.message): power it off with `sudo btmgmt --index \(device) power off` (or `sudo hciconfig "
                + "hci\(device) down`) and stop bluetoothd (`sudo systemctl stop bluetooth`)"
        case .userChannelHeld:
            return "\(error.message); stop it first (another beaconctl, or a Bluetooth stack such as Bumble)"
        case .controllerDown(let device):
            return "\(error.message); power it on with `sudo btmgmt --index \(device) power on` (or `sudo hciconfig hci\(device) up`)"
        case .rfKilled:
            return "\(error.message); unblock it with `rfkill unblock bluetooth`"
        case .noSuchController:
            return "\(error.message); \(UserCommand.controllers) lists them"
        case .controllerRemoved:
            return "\(error.message); \(UserCommand.controllers) lists the controllers present"
        case .managementRefused(let device):
            return "\(error.message); check the controller with `btmgmt --index \(device) info`"
        }
    }

    private static var reportTheTraffic: String { "capture the traffic with \(UserSetting.snoop) FILE and report it" }

    /// What the user should know and do when `opcode` failed with `status` on the controller
    /// named `controller` (a transport spec such as `hci0` or `hci-user:0`). `nil` for codes
    /// without specific advice.
    ///
    /// The advice depends on the command: Command Disallowed from an advertising command
    /// has a different usual cause than from Reset.
    public static func advice(for status: HCIStatus, opcode: HCIOpcode, controller: String) -> String? {
        let route = ControllerRoute(controller)
        let family = AdvertisingCommandFamily(opcode)
        switch status {
        case .unknownHCICommand:
            if family == .extended {
                return "this controller has no extended advertising (it predates Bluetooth 5.0 or disables it); use legacy advertising, one beacon per controller"
            }
            return "the controller does not implement this command; \(UserCommand.controllers) shows its Bluetooth version and LE features"
        case .hardwareFailure:
            return "the controller reports a hardware fault; unplug and replug it or power-cycle the machine, and replace it if the fault persists"
        case .memoryCapacityExceeded:
            return "the controller has no room left for another advertising set or for this much data; advertise fewer beacons on it or spread them over several controllers"
        case .commandDisallowed:
            if AdvertisingCommandFamily.changesAnAdvertisingSet(opcode) {
                return setInUseAdvice(route: route)
            }
            return commandDisallowedAdvice(family: family, route: route)
        case .unsupportedFeatureOrParameterValue:
            return "the controller does not support a value in this command (interval, TX power, PHY or address type); \(UserCommand.controllers) shows what it supports"
        case .invalidHCICommandParameters:
            return "the controller rejected the parameters as out of range or inconsistent; if they were accepted by beaconctl's own checks, \(reportTheTraffic)"
        case .unspecifiedError:
            return "the controller gave no reason; retry, and reset the controller if it keeps failing"
        case .controllerBusy:
            return "the controller is busy with other work (scanning, connections or another program's requests); retry in a moment or stop the other activity"
        case .unknownAdvertisingIdentifier:
            return "the advertising set does not exist on the controller (removed, or the controller was reset since it was created); set it up again"
        case .limitReached:
            return "the controller cannot hold more advertising sets (or the set reached its event limit); \(UserCommand.controllers) shows how many sets it supports"
        default:
            return nil
        }
    }

    /// A command on one advertising set was disallowed. Not the other command family: the
    /// set commands come after an extended read (LE Read Number of Supported Advertising
    /// Sets) has succeeded, which the other family would already have refused. The set is
    /// advertising (Core v5.4 Vol 4 Part E 7.8.53–7.8.59).
    private static func setInUseAdvice(route: ControllerRoute) -> String {
        switch route {
        case .kernelShared(let index):
            return "the advertising set is on the air and cannot change while it advertises; on hci\(index) it is usually another program's set (bluetoothd's advertising instance with that number, `btmgmt --index \(index) advinfo` lists them): stop that advertisement, or use hci-user:\(index)"
        case .exclusive:
            return "the advertising set is on the air and cannot change while it advertises; reset the controller and start again"
        }
    }

    private static func commandDisallowedAdvice(family: AdvertisingCommandFamily?, route: ControllerRoute) -> String {
        guard let family else {
            return "the controller does not allow this command in its current state (for example while advertising or scanning is enabled); stop that activity first"
        }
        let other = family == .legacy ? "extended" : "legacy"
        switch route {
        case .kernelShared(let index):
            return "another program (usually bluetoothd) is using \(other) advertising or scanning on this controller (the two command families exclude each other until Reset), or advertising is enabled while its parameters change; use hci-user:\(index) or stop bluetoothd"
        case .exclusive:
            return "the \(other) advertising command family was used on this controller since its last Reset (the two families exclude each other), or advertising is enabled while its parameters change; reset the controller and use one family"
        }
    }
}

extension HCIError {
    /// The facts and what to do (`ControllerAdvice.message(for:)`): the text for the user.
    public var advisedMessage: String { ControllerAdvice.message(for: self) }
}

extension HCITransportError {
    /// The facts and what to do (`ControllerAdvice.message(for:)`): the text for the user.
    public var advisedMessage: String { ControllerAdvice.message(for: self) }
}

/// Which of the two mutually exclusive LE command families an opcode belongs to
/// (Core v5.4 Vol 4 Part E 3.1.1, "Legacy and extended advertising").
enum AdvertisingCommandFamily: Equatable {
    case legacy
    case extended

    /// LE Set Advertising Set Random Address, Set Extended Advertising Parameters, Data, Scan
    /// Response Data and Enable, and LE Remove Advertising Set: commands on one set.
    static func changesAnAdvertisingSet(_ opcode: HCIOpcode) -> Bool {
        (0x2035...0x2039).contains(opcode.rawValue) || opcode.rawValue == 0x203C
    }

    init?(_ opcode: HCIOpcode) {
        switch opcode.rawValue {
        // Advertising parameters/data/enable, scan response, scanning, create connection.
        case 0x2006...0x200D:
            self = .legacy
        // Advertising sets, periodic advertising, extended scanning and connection, v2 parameters.
        case 0x2035...0x2049, 0x207F:
            self = .extended
        default:
            return nil
        }
    }
}

/// How a controller is reached, as far as advice is concerned: through the kernel's shared
/// RAW channel (where bluetoothd sends commands too) or exclusively.
enum ControllerRoute: Equatable {
    case kernelShared(index: Int)
    case exclusive

    init(_ controller: String) {
        for prefix in ["hci-socket:", "hci"] where controller.hasPrefix(prefix) {
            if let index = Int(controller.dropFirst(prefix.count)), index >= 0 {
                self = .kernelShared(index: index)
                return
            }
        }
        self = .exclusive
    }
}
