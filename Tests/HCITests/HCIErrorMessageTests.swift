import HCITestKit
import Testing
@testable import HCI

/// The messages a user reads: controller, command, status name and code, what to do.
@Suite struct HCIErrorMessageTests {
    @Test func refusalSaysControllerCommandAndStatus() {
        let error = HCIError(controller: "hci0", opcode: .leSetAdvertisingParameters, kind: .commandFailed(.commandDisallowed))
        // The facts only: what to do is chosen above the protocol (BeaconFleet's ControllerAdvice).
        #expect(error.description == "hci0: LE Set Advertising Parameters was refused (0x0C Command Disallowed)")
        #expect(error.status == .commandDisallowed)
    }

    @Test func hardwareFailureFails() {
        let error = HCIError(controller: "hci0", opcode: .reset, kind: .commandFailed(.hardwareFailure))
        #expect(error.description == "hci0: Reset failed (0x03 Hardware Failure)")
    }

    @Test func timeouts() {
        let answer = HCIError(controller: "hci0", opcode: .leSetAdvertisingEnable, kind: .timeout(.seconds(2), waitingForCredit: false))
        #expect(answer.description == "hci0: no answer to LE Set Advertising Enable within 2 s")
        let credit = HCIError(controller: "hci0", opcode: .reset, kind: .timeout(.milliseconds(250), waitingForCredit: true))
        #expect(credit.description == "hci0: Reset could not be sent within 250 ms: the controller has not finished earlier commands (no command credit)")
        #expect(credit.status == nil)
    }

    @Test func descriptionsNameNoCommandOrSetting() {
        // Advice (settings, commands, programs to run) lives above the protocol.
        let kinds: [HCIError.Kind] = [
            .commandFailed(.commandDisallowed), .commandFailed(.unknownHCICommand), .commandFailed(.pageTimeout),
            .timeout(.seconds(2), waitingForCredit: false), .timeout(.seconds(2), waitingForCredit: true),
            .malformedAnswer(.truncated(structure: "Read BD_ADDR return parameters", offset: 0, needed: 6, available: 2)),
            .unexpectedAnswer("Command Status success"), .controllerReset, .hardwareError(code: 0x2A),
        ]
        for kind in kinds {
            let message = HCIError(controller: "hci0", opcode: .leSetAdvertisingParameters, kind: kind).description
            for advice in ["snoop", "controllers", "hci-user", "bluetoothd", "retry", "replug", "set the controller up"] {
                #expect(!message.contains(advice), "\(message)")
            }
        }
    }

    @Test func everyKindNamesControllerAndCommand() {
        let kinds: [HCIError.Kind] = [
            .transport(HCITransportError(.ioFailure, "hci0: read failed: EIO")),
            .malformedAnswer(.truncated(structure: "Read BD_ADDR return parameters", offset: 0, needed: 6, available: 2)),
            .unexpectedAnswer("Command Status success"),
            .controllerReset, .hardwareError(code: 0x2A),
            .invalidCommand(HCIParameterError("too long")), .closed, .cancelled,
        ]
        for kind in kinds {
            let message = HCIError(controller: "hci3", opcode: .readBDADDR, kind: kind).description
            #expect(message.hasPrefix("hci3: "), "\(message)")
            #expect(message.contains("Read BD_ADDR"), "\(message)")
        }
        #expect(HCIError(controller: "hci3", opcode: .readBDADDR, kind: .hardwareError(code: 0x2A)).description.contains("hardware error 0x2A"))
    }

    @Test func decodingErrorsSayWhere() {
        #expect(HCIDecodingError.truncated(structure: "LE Advertising Report event", offset: 10, needed: 5, available: 2).description
                == "LE Advertising Report event: cut short at byte 10: 5 more bytes needed, 2 left")
        #expect(HCIDecodingError.invalidValue(structure: "LE Set Advertising Enable parameters", field: "Advertising_Enable", value: 2, expected: "0x00 or 0x01").description
                == "LE Set Advertising Enable parameters: Advertising_Enable is 0x02, expected 0x00 or 0x01")
    }
}
