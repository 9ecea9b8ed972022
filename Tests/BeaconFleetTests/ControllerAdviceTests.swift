import BeaconCore
import HCI
import Testing
@testable import BeaconFleet

/// What the user reads when a controller refuses or fails: the HCI layer's facts, then the
/// advice chosen here, above the protocol.
@Suite struct ControllerAdviceTests {
    @Test func refusedAdvertisingParametersOnASharedSocket() {
        let error = HCIError(controller: "hci0", opcode: .leSetAdvertisingParameters, kind: .commandFailed(.commandDisallowed))
        #expect(error.advisedMessage == "hci0: LE Set Advertising Parameters was refused (0x0C Command Disallowed): another program (usually bluetoothd) is using extended advertising or scanning on this controller (the two command families exclude each other until Reset), or advertising is enabled while its parameters change; use hci-user:0 or stop bluetoothd")
    }

    @Test func statusWithoutSpecificAdviceStillSaysWhatToDo() {
        let error = HCIError(controller: "tcp-client:127.0.0.1:6402", opcode: .reset, kind: .commandFailed(.pageTimeout))
        #expect(error.advisedMessage == "tcp-client:127.0.0.1:6402: Reset was refused (0x04 Page Timeout): retry; if it keeps failing, capture the traffic with the snoop setting FILE and report it")
    }

    @Test func hardwareFailureFails() {
        let error = HCIError(controller: "hci0", opcode: .reset, kind: .commandFailed(.hardwareFailure))
        #expect(error.advisedMessage.hasPrefix("hci0: Reset failed (0x03 Hardware Failure): "))
    }

    @Test func timeoutsSayWhatToDo() {
        let answer = HCIError(controller: "hci0", opcode: .leSetAdvertisingEnable, kind: .timeout(.seconds(2), waitingForCredit: false))
        #expect(answer.advisedMessage == "hci0: no answer to LE Set Advertising Enable within 2 s; the controller may have hung or been unplugged: check it, reset or replug it, then retry")
        let credit = HCIError(controller: "hci0", opcode: .reset, kind: .timeout(.milliseconds(250), waitingForCredit: true))
        #expect(credit.advisedMessage == "hci0: Reset could not be sent within 250 ms: the controller has not finished earlier commands (no command credit); it may have hung: reset or replug it, then retry")
    }

    @Test func everyOtherKindKeepsItsAdvice() {
        let readAddress = { (kind: HCIError.Kind) in HCIError(controller: "hci3", opcode: .readBDADDR, kind: kind).advisedMessage }
        #expect(readAddress(.malformedAnswer(.truncated(structure: "Read BD_ADDR return parameters", offset: 0, needed: 6, available: 2)))
            .hasSuffix("; the controller or the link is corrupting packets: capture the traffic with the snoop setting FILE and report it"))
        #expect(readAddress(.unexpectedAnswer("Command Status success"))
            == "hci3: Read BD_ADDR got an answer the specification does not allow: Command Status success; capture the traffic with the snoop setting FILE and report it")
        #expect(readAddress(.controllerReset).hasSuffix("; its effect is unknown: set the controller up again"))
        #expect(readAddress(.hardwareError(code: 0x2A))
            == "hci3: the controller reported hardware error 0x2A while Read BD_ADDR was pending; reset it, and replug or replace it if the error repeats")
        #expect(readAddress(.transport(HCITransportError(.ioFailure, "hci3: read failed: EIO")))
            == "hci3: Read BD_ADDR did not complete: hci3: read failed: EIO")
        #expect(readAddress(.closed) == HCIError(controller: "hci3", opcode: .readBDADDR, kind: .closed).description)
    }

    @Test func commandLineSpelling() {
        let error = HCIError(controller: "hci0", opcode: .reset, kind: .commandFailed(.pageTimeout))
        let message = UserTerms.$spelling.withValue(.commandLine) { error.advisedMessage }
        #expect(message.hasSuffix("capture the traffic with --snoop FILE and report it"))
    }

    @Test func anInvalidSpecSaysWhereControllerNamesComeFrom() {
        let error = HCITransportError(.invalidSpec, "invalid transport \"hci70000\": the controller index must be a number from 0 to 65534, as in hci0")
        let message = UserTerms.$spelling.withValue(.commandLine) { error.advisedMessage }
        #expect(message.hasPrefix(error.message))
        #expect(message.hasSuffix("; `beaconctl controllers` lists this machine's controllers"))
        let other = HCITransportError(.ioFailure, "hci0: read failed")
        #expect(other.advisedMessage == other.message)
    }

    /// The kernel's failures carry their cause; the words for what to run are these.
    static let grant =
        "grant them once with `sudo setcap cap_net_raw,cap_net_admin+eip $(command -v beaconctl)`, or run as root"
    static let kernelFailures: [(HCITransportError, String)] = [
        (
            HCITransportError(
                .bluetoothUnsupported, "hci0: this kernel has no Bluetooth support (AF_BLUETOOTH: address family not supported)",
                cause: .kernelWithoutBluetooth),
            "hci0: this kernel has no Bluetooth support (AF_BLUETOOTH: address family not supported). "
                + "Load the module (`modprobe bluetooth`), use a kernel built with CONFIG_BT, or use tcp-client:/serial:/virtual"
        ),
        (
            HCITransportError(.permissionDenied, "hci-user:0: the user channel needs the CAP_NET_ADMIN capability", cause: .missingCapability),
            "hci-user:0: the user channel needs the CAP_NET_ADMIN capability; " + grant
        ),
        (
            HCITransportError(
                .deviceBusy, "hci-user:0: hci0 is up or being set up by the kernel, and the user channel needs it down and unused",
                cause: .controllerUpForKernel(device: 0)),
            "hci-user:0: hci0 is up or being set up by the kernel, and the user channel needs it down and "
                + "unused: power it off with `sudo btmgmt --index 0 power off` (or `sudo hciconfig hci0 down`) "
                + "and stop bluetoothd (`sudo systemctl stop bluetooth`)"
        ),
        (
            HCITransportError(
                .deviceBusy, "hci-user:0: another program already holds the user channel of hci0", cause: .userChannelHeld(device: 0)),
            "hci-user:0: another program already holds the user channel of hci0; stop it first "
                + "(another beaconctl, or a Bluetooth stack such as Bumble)"
        ),
        (
            HCITransportError(.deviceDown, "hci-user:0: hci0 is blocked by RF-kill", cause: .rfKilled(device: 0)),
            "hci-user:0: hci0 is blocked by RF-kill; unblock it with `rfkill unblock bluetooth`"
        ),
        (
            HCITransportError(.deviceDown, "hci1: hci1 is down", cause: .controllerDown(device: 1)),
            "hci1: hci1 is down; power it on with `sudo btmgmt --index 1 power on` (or `sudo hciconfig hci1 up`)"
        ),
        (
            HCITransportError(.noSuchDevice, "hci3: no controller hci3", cause: .noSuchController(device: 3)),
            "hci3: no controller hci3; `beaconctl controllers` lists them"
        ),
        (
            HCITransportError(
                .ioFailure, "hci0: hci0 went away (unplugged, or its driver reset)", cause: .controllerRemoved(device: 0)),
            "hci0: hci0 went away (unplugged, or its driver reset); `beaconctl controllers` lists the controllers present"
        ),
        (
            HCITransportError(
                .ioFailure, "hci2: the kernel's management interface refused Read Advertising Features (Busy, 0x0A)",
                cause: .managementRefused(device: 2)),
            "hci2: the kernel's management interface refused Read Advertising Features (Busy, 0x0A); "
                + "check the controller with `btmgmt --index 2 info`"
        ),
    ]

    @Test(arguments: 0..<kernelFailures.count)
    func kernelFailuresSayWhatToDo(index: Int) {
        let (error, expected) = Self.kernelFailures[index]
        #expect(UserTerms.$spelling.withValue(.commandLine) { error.advisedMessage } == expected)
    }

    @Test func aTransportFailureInsideACommandKeepsItsAdvice() {
        let gone = HCITransportError(
            .ioFailure, "hci0: hci0 went away (unplugged, or its driver reset)", cause: .controllerRemoved(device: 0))
        let error = HCIError(controller: "hci0", opcode: .reset, kind: .transport(gone))
        #expect(error.description == "hci0: Reset did not complete: hci0: hci0 went away (unplugged, or its driver reset)")
        #expect(error.advisedMessage.hasSuffix("went away (unplugged, or its driver reset); the controllers command lists the controllers present"))
    }

    @Test func adviceForTheCommonCodes() {
        for code: UInt8 in [0x01, 0x03, 0x07, 0x0C, 0x11, 0x12, 0x1F, 0x3A, 0x42, 0x43] {
            #expect(ControllerAdvice.advice(for: HCIStatus(rawValue: code), opcode: .leSetAdvertisingParameters, controller: "hci0") != nil, "\(code)")
        }
        #expect(ControllerAdvice.advice(for: .pageTimeout, opcode: .reset, controller: "hci0") == nil)
    }

    @Test func commandDisallowedAdviceDependsOnFamilyAndRoute() throws {
        let legacyShared = try #require(ControllerAdvice.advice(for: .commandDisallowed, opcode: .leSetAdvertisingParameters, controller: "hci1"))
        #expect(legacyShared.contains("using extended advertising"))
        #expect(legacyShared.contains("use hci-user:1 or stop bluetoothd"))
        let extendedShared = try #require(
            ControllerAdvice.advice(for: .commandDisallowed, opcode: .leReadNumberOfSupportedAdvertisingSets, controller: "hci-socket:2"))
        #expect(extendedShared.contains("using legacy advertising"))
        #expect(extendedShared.contains("hci-user:2"))
        // A command on one set comes after an extended read succeeded: the family is never the
        // cause there, the set's state is.
        let setShared = try #require(ControllerAdvice.advice(for: .commandDisallowed, opcode: .leSetExtendedAdvertisingEnable, controller: "hci-socket:2"))
        #expect(!setShared.contains("legacy"))
        #expect(setShared.contains("another program's set"))
        #expect(setShared.contains("hci-user:2"))
        let exclusive = try #require(ControllerAdvice.advice(for: .commandDisallowed, opcode: .leSetAdvertisingParameters, controller: "hci-user:0"))
        #expect(!exclusive.contains("bluetoothd"))
        #expect(exclusive.contains("since its last Reset"))
        let other = try #require(ControllerAdvice.advice(for: .commandDisallowed, opcode: .readBDADDR, controller: "hci0"))
        #expect(other.contains("current state"))
    }

    @Test func unknownCommandOnExtendedCommandsPointsToLegacy() throws {
        let advice = try #require(ControllerAdvice.advice(for: .unknownHCICommand, opcode: .leSetExtendedAdvertisingParameters, controller: "hci0"))
        #expect(advice.contains("legacy advertising"))
    }
}
