import BeaconTestKit
import ClockTestKit
import HCI
import Testing

@testable import BeaconFleet

@Suite("Advertising watchdog", .timeLimit(.minutes(1)))
struct AdvertiserWatchdogTests {
    @Test("Hardware Error without --restart: the run ends with the fault, after taking the beacons off the air")
    func hardwareErrorStops() async throws {
        let controller = ScriptedController(name: exclusiveTestSpec)
        let run = try startAdvertiser(on: [controller], requests: [request(minor: 1)])
        try await run.recorder.waitForSessions()
        let before = controller.commands.count
        try await controller.send(.hardwareError(code: 0x2A))

        let fault = AdvertisingFault.hardwareError(controller: "tcp-client:127.0.0.1:6402", code: 0x2A)
        #expect(await run.task.value == .failure(.fault(fault)))
        #expect(run.recorder.events.last == .interrupted(fault, retryIn: nil))
        #expect(
            AdvertisingError.fault(fault).description
                == "tcp-client:127.0.0.1:6402: the controller reported hardware error 0x2A: it crashed or restarted and "
                + "the beacons are off the air; pass the restart setting to bring them back automatically")
        #expect(Array(controller.opcodes.dropFirst(before)) == [.leSetExtendedAdvertisingEnable, .leClearAdvertisingSets])
    }

    @Test("Hardware Error with --restart: Reset and everything set up again on the same link")
    func hardwareErrorRestarts() async throws {
        let controller = ScriptedController(name: exclusiveTestSpec)
        let policy = RestartPolicy(maximumAttempts: 3, initialBackoff: .milliseconds(10), maximumBackoff: .milliseconds(40))
        let clock = TestClock()
        let run = try startAdvertiser(on: [controller], requests: [request(minor: 1)], restart: policy, clock: clock)
        try await run.recorder.waitForSessions()
        try await controller.send(.hardwareError(code: 0x01))
        #expect(try await passBackoff(1, of: run, on: clock) == .milliseconds(10))
        let sessions = try await run.recorder.waitForSessions(2)
        #expect(sessions.map(\.restartCount) == [0, 1])
        #expect(sessions[1].beacons == sessions[0].beacons)
        #expect(controller.opcodes.filter { $0 == .reset }.count == 2)
        #expect(controller.opcodes.filter { $0 == .leSetExtendedAdvertisingEnable }.count == 3)  // on, off, on
        #expect(run.recorder.events.contains(
            .interrupted(.hardwareError(controller: "tcp-client:127.0.0.1:6402", code: 0x01), retryIn: .milliseconds(10))))
        #expect(await run.stop() == .success(.cancelled))
    }

    @Test("a dropped link with --restart: the controller is opened again")
    func droppedLinkReopens() async throws {
        let first = ScriptedController(name: exclusiveTestSpec)
        let second = ScriptedController(name: exclusiveTestSpec)
        let policy = RestartPolicy(maximumAttempts: 3, initialBackoff: .milliseconds(10))
        let clock = TestClock()
        let run = try startAdvertiser(on: [first, second], requests: [request(minor: 1)], restart: policy, clock: clock)
        try await run.recorder.waitForSessions()
        first.dropLink()
        try await passBackoff(1, of: run, on: clock)
        try await run.recorder.waitForSessions(2)
        #expect(second.opcodes.first == .reset)
        #expect(second.opcodes.contains(.leSetExtendedAdvertisingEnable))
        let interrupted = run.recorder.events.contains { event in
            if case .interrupted(.transportEnded(let error), _) = event {
                return error.message == "tcp-client:127.0.0.1:6402: connection reset by peer"
            }
            return false
        }
        #expect(interrupted)
        _ = await run.stop()
    }

    @Test("restarts are bounded: when the controller cannot be opened again, the run gives up")
    func restartsExhausted() async throws {
        let only = ScriptedController(name: exclusiveTestSpec)
        let policy = RestartPolicy(maximumAttempts: 3, initialBackoff: .milliseconds(5))
        let clock = TestClock()
        let run = try startAdvertiser(on: [only], requests: [request(minor: 1)], restart: policy, clock: clock)
        try await run.recorder.waitForSessions()
        only.dropLink()
        // After the fault, then after each failed attempt but the last, each twice as long.
        #expect(try await passBackoff(1, of: run, on: clock) == .milliseconds(5))
        #expect(try await passBackoff(2, of: run, on: clock) == .milliseconds(10))
        #expect(try await passBackoff(3, of: run, on: clock) == .milliseconds(20))
        let result = await run.task.value
        #expect(
            result
                == .failure(.restartsExhausted(attempts: 3, last: "tcp-client:127.0.0.1:6402: no more scripted controllers")))
        let failedAttempts = run.recorder.events.compactMap { event -> Int? in
            if case .restartFailed(_, let attempt, _) = event { return attempt }
            return nil
        }
        #expect(failedAttempts == [1, 2])
    }

    @Test("an advertising set the controller ends on its own is a fault naming the beacon")
    func setTerminated() async throws {
        let controller = ScriptedController(name: exclusiveTestSpec)
        let run = try startAdvertiser(on: [controller], requests: [request(minor: 1, id: "door"), request(minor: 2, id: "till")])
        try await run.recorder.waitForSessions()
        let handle = try #require(AdvertisingHandle(rawValue: 1))
        try await controller.send(.le(.advertisingSetTerminated(.init(
            status: .limitReached, handle: handle, connectionHandle: 0, completedExtendedAdvertisingEvents: 0))))
        let fault = AdvertisingFault.advertisingSetTerminated(
            controller: "tcp-client:127.0.0.1:6402", handle: handle, beacon: "till", status: .limitReached)
        #expect(await run.task.value == .failure(.fault(fault)))
        #expect(fault.description.contains("stopped advertising set 1 (beacon till) on its own (0x43 Limit Reached)"))
    }

    @Test("a Reset someone else sent is a fault, with no stop sequence after it (the sets are gone)")
    func unsolicitedReset() async throws {
        let controller = ScriptedController(name: "hci0")
        let run = try startAdvertiser(on: [controller], spec: "hci0", requests: [request(minor: 1)])
        try await run.recorder.waitForSessions()
        let before = controller.commands.count
        try await controller.send(.commandComplete(.init(answering: Reset.self)))
        #expect(await run.task.value == .failure(.fault(.unsolicitedReset(controller: "hci0"))))
        #expect(controller.commands.count == before)
    }

    @Test("another program clearing every advertising set on hci0 (the kernel powering it off) is a fault")
    func setsClearedByAnotherProgram() async throws {
        let controller = ScriptedController(name: "hci0")
        let run = try startAdvertiser(on: [controller], spec: "hci0", requests: [request(minor: 1)])
        try await run.recorder.waitForSessions()
        let before = controller.commands.count
        try await controller.send(.commandComplete(.init(answering: LEClearAdvertisingSets.self)))
        let fault = AdvertisingFault.advertisingSetsCleared(controller: "hci0")
        #expect(await run.task.value == .failure(.fault(fault)))
        // Nothing left to stop: no stop command that could only fail or hit another program's new set.
        #expect(controller.commands.count == before)
        #expect(run.recorder.events.contains(.interrupted(fault, retryIn: nil)))
        #expect(!run.recorder.warnings.contains { $0.contains("another program") })
        #expect(
            fault.description
                == "hci0: another program cleared every advertising set (LE Clear Advertising Sets; the kernel does so "
                + "when the controller is powered off, e.g. by `btmgmt power off`): the beacons are off the air")
    }

    @Test("another program's failed LE Clear Advertising Sets is only a warning")
    func failedClearIsAWarning() async throws {
        let controller = ScriptedController(name: "hci0")
        let run = try startAdvertiser(on: [controller], spec: "hci0", requests: [request(minor: 1)])
        try await run.recorder.waitForSessions()
        try await controller.send(.commandComplete(.init(answering: LEClearAdvertisingSets.self, failure: .commandDisallowed)))
        try await controller.send(.hardwareError(code: 0x2A))
        #expect(await run.task.value == .failure(.fault(.hardwareError(controller: "hci0", code: 0x2A))))
        #expect(run.recorder.warnings.contains { $0.contains("another program sent LE Clear Advertising Sets") })
    }

    @Test("another program's advertising command on hci0 is a warning naming it, once")
    func foreignAdvertisingCommand() async throws {
        let controller = ScriptedController(name: "hci0")
        let run = try startAdvertiser(on: [controller], spec: "hci0", requests: [request(minor: 1)])
        try await run.recorder.waitForSessions()
        for _ in 0..<2 {
            try await controller.send(.commandComplete(.init(answering: LESetExtendedAdvertisingEnable.self)))
        }
        // The watchdog takes events in order: once the Hardware Error sent after them has
        // ended the run, both foreign answers were seen, so "once" is a fact, not a guess.
        try await controller.send(.hardwareError(code: 0x2A))
        #expect(await run.task.value == .failure(.fault(.hardwareError(controller: "hci0", code: 0x2A))))
        #expect(run.recorder.warnings.filter { $0.contains("another program") } == [
            "hci0: another program sent LE Set Extended Advertising Enable to this controller while beaconctl "
                + "advertises; if it changed or stopped advertising, beacons may be off the air. Usually bluetoothd: "
                + "stop its advertising, or use hci-user:0 to have the controller to yourself"
        ])
    }
}

@Suite("Advertising watchdog: a flapping controller", .timeLimit(.minutes(1)))
struct AdvertiserFlappingTests {
    @Test("beacons that keep going off the air soon after each start end the run after the attempts allowed")
    func flapping() async throws {
        let controller = ScriptedController(name: exclusiveTestSpec)
        let policy = RestartPolicy(maximumAttempts: 3, initialBackoff: .milliseconds(5), stableAfter: .seconds(60))
        let clock = TestClock()
        let run = try startAdvertiser(on: [controller], requests: [request(minor: 1)], restart: policy, clock: clock)
        for session in 1...3 {
            try await run.recorder.waitForSessions(session)
            // Each session ends at once on the clock: well within the 60 s of a stable one.
            try await controller.send(.hardwareError(code: 0x07))
            if session < 3 { try await passBackoff(session, of: run, on: clock) }
        }
        let result = await run.task.value
        guard case .failure(.restartsExhausted(let attempts, let last)) = result else {
            Issue.record("expected the run to give up, got \(result)")
            return
        }
        #expect(attempts == 3)
        #expect(last.hasPrefix("the beacons went off the air 3 times in a row within 60 s of starting; the last time: "))
        #expect(run.recorder.sessions.count == 3)
    }
}
