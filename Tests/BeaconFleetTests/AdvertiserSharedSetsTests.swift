import BeaconTestKit
import BeaconCore
import ClockTestKit
import HCI
import HCITransports
import Testing

@testable import BeaconFleet

/// On `hci0` bluetoothd's mgmt advertising instance N uses set handle N: beaconctl takes the
/// free handles from the top down, refuses before anything goes on the air when too few are
/// free, and moves a beacon once when a set turns out taken.
@Suite("Extended advertising next to bluetoothd's sets", .timeLimit(.minutes(1)))
struct AdvertiserSharedSetsTests {
    /// bluetoothd advertising as instances 1 and 2, as the kernel lane sets it up.
    static let bluetoothdInstances = OccupiedAdvertisingSets(instances: [1, 2])

    @Test("bluetoothd holds instances 1 and 2: four beacons take sets 15, 14, 13, 12, and the stop removes only those")
    func topDownNextToBluetoothd() async throws {
        let controller = ScriptedController(name: "hci0")
        let requests = (1...4).map { request(minor: UInt16($0)) }
        let run = try startAdvertiser(
            on: [controller], spec: "hci0", requests: requests, occupiedSets: { _ in Self.bluetoothdInstances })
        let session = try #require(try await run.recorder.waitForSessions().first)
        let expected: [UInt8] = [15, 14, 13, 12]
        #expect(try parameterHandles(controller) == expected)
        #expect(session.beacons.compactMap { $0.handle?.rawValue } == expected)
        let handles = try expected.map { try #require(AdvertisingHandle(rawValue: $0)) }
        #expect(controller.commands.last == (try packet(LESetExtendedAdvertisingEnable(enabling: handles))))

        let before = controller.commands.count
        #expect(await run.stop() == .success(.cancelled))
        #expect(Array(controller.commands.dropFirst(before)) == [
            try packet(LESetExtendedAdvertisingEnable(false, sets: handles.map { .init(handle: $0) })),
        ] + (try handles.map { try packet(LERemoveAdvertisingSet(handle: $0)) }))
    }

    @Test("the kernel is asked about the controller the spec names")
    func asksAboutTheRightController() async throws {
        let controller = ScriptedController(name: "hci3")
        let asked = RecordedLog<UInt16>()
        let run = try startAdvertiser(
            on: [controller], spec: "hci3", requests: [request(minor: 1)],
            occupiedSets: { index in
                asked.append(index)
                return OccupiedAdvertisingSets(instances: [])
            })
        try await run.recorder.waitForSessions()
        #expect(asked.elements == [3])
        // Nobody else advertises: still from the top, away from the handles bluetoothd would take next.
        #expect(try parameterHandles(controller) == [15])
        _ = await run.stop()
    }

    @Test("instances high in the range and the Advertising setting (set 0) are skipped")
    func skipsEveryOccupiedHandle() async throws {
        var configuration = ScriptedController.Configuration()
        configuration.advertisingSets = 8
        let controller = ScriptedController(name: "hci0", configuration: configuration)
        let occupied = OccupiedAdvertisingSets(instances: [7, 5], advertisingSettingOn: true)
        let run = try startAdvertiser(
            on: [controller], spec: "hci0", requests: (1...3).map { request(minor: UInt16($0)) },
            occupiedSets: { _ in occupied })
        try await run.recorder.waitForSessions()
        #expect(try parameterHandles(controller) == [6, 4, 3])
        _ = await run.stop()
    }

    @Test("more beacons than free sets: the exact refusal, and nothing created or enabled")
    func tooFewFreeSets() async throws {
        var configuration = ScriptedController.Configuration()
        configuration.advertisingSets = 4
        let controller = ScriptedController(name: "hci0", configuration: configuration)
        let run = try startAdvertiser(
            on: [controller], spec: "hci0", requests: (1...3).map { request(minor: UInt16($0)) },
            occupiedSets: { _ in Self.bluetoothdInstances })
        let result = await run.task.value
        let error = AdvertisingError.notEnoughFreeSets(
            controller: "hci0", index: 0, requested: 3, supported: 4, free: 2, occupied: Self.bluetoothdInstances)
        #expect(result == .failure(error))
        #expect(
            error.description
                == "hci0: 3 beacons need 3 advertising sets, but the controller has 4 and bluetoothd holds 2 of them "
                + "(mgmt advertising instances 1, 2), leaving 2 free; nothing was put on the air. Advertise at most 2 "
                + "beacons from this box (fewer beacons per box: the rest from another box or controller), stop the other "
                + "advertiser (the program that registered those advertisements with bluetoothd, `bluetoothctl advertise "
                + "off`, or `btmgmt --index 0 rm-adv N` for ones added with btmgmt), or rotate the 3 beacons on one "
                + "legacy advertisement with the family setting legacy on a controller of beaconctl's own (the hci setting "
                + "hci-user:0 with the device powered off: legacy and extended advertising cannot share a controller)")
        #expect(controller.opcodes.last == .leReadNumberOfSupportedAdvertisingSets)
        #expect(!error.isTransient)
    }

    @Test("the set count counts: a full controller refuses even when free handles remain")
    func capacityNotHandles() async throws {
        var configuration = ScriptedController.Configuration()
        configuration.advertisingSets = 4
        let controller = ScriptedController(name: "hci0", configuration: configuration)
        // Instance 4 uses handle 4, outside 0…3, but still one of the controller's 4 sets.
        let occupied = OccupiedAdvertisingSets(instances: [1, 4])
        let run = try startAdvertiser(
            on: [controller], spec: "hci0", requests: (1...3).map { request(minor: UInt16($0)) },
            occupiedSets: { _ in occupied })
        #expect(
            await run.task.value
                == .failure(.notEnoughFreeSets(
                    controller: "hci0", index: 0, requested: 3, supported: 4, free: 2, occupied: occupied)))
        #expect(!controller.opcodes.contains(.leSetExtendedAdvertisingParameters))
    }

    @Test("without sets of bluetoothd's, too many beacons is the plain error without bluetoothd in it")
    func tooManyWithoutBluetoothd() async throws {
        var configuration = ScriptedController.Configuration()
        configuration.advertisingSets = 2
        let controller = ScriptedController(name: "hci0", configuration: configuration)
        let run = try startAdvertiser(on: [controller], spec: "hci0", requests: (1...3).map { request(minor: UInt16($0)) })
        #expect(await run.task.value == .failure(.tooManyBeacons(controller: "hci0", requested: 3, supported: 2)))
    }

    @Test("a set taken in a race (Command Disallowed): the beacon moves to the next free set once, and says so")
    func raceTakesASpare() async throws {
        let controller = ScriptedController(name: "hci0", answer: Self.refusingParameters(for: [15]))
        let requests = (1...4).map { request(minor: UInt16($0)) }
        let run = try startAdvertiser(
            on: [controller], spec: "hci0", requests: requests, occupiedSets: { _ in Self.bluetoothdInstances })
        let session = try #require(try await run.recorder.waitForSessions().first)
        #expect(try parameterHandles(controller) == [15, 11, 14, 13, 12])
        #expect(session.beacons.compactMap { $0.handle?.rawValue } == [11, 14, 13, 12])
        #expect(run.recorder.warnings.contains(
            "hci0: set 15 was taken by another program (usually bluetoothd) after beaconctl read which advertising "
                + "sets were in use; beacon \(identity(minor: 1)) uses set 11 instead"))

        let before = controller.commands.count
        _ = await run.stop()
        // Set 15 is the other program's: never disabled or removed.
        let removed = try controller.commands.dropFirst(before).filter { $0.opcode == .leRemoveAdvertisingSet }
            .map { try $0.decode(as: LERemoveAdvertisingSet.self).handle.rawValue }
        #expect(removed == [11, 14, 13, 12])
    }

    @Test("the spare taken too: the run fails, and only the sets it made are taken off the air")
    func raceTwice() async throws {
        let controller = ScriptedController(name: "hci0", answer: Self.refusingParameters(for: [14, 11]))
        let run = try startAdvertiser(
            on: [controller], spec: "hci0", requests: (1...4).map { request(minor: UInt16($0)) },
            occupiedSets: { _ in Self.bluetoothdInstances })
        let result = await run.task.value
        let error = AdvertisingError.setsTaken(controller: "hci0", index: 0, beacon: "\(identity(minor: 2))", handles: [14, 11])
        #expect(result == .failure(error))
        #expect(error.description.hasPrefix(
            "hci0: another program (usually bluetoothd) started advertising on set 14 and set 11, chosen for beacon "))
        #expect(!error.description.contains("family"))
        let fifteen = try #require(AdvertisingHandle(rawValue: 15))
        #expect(Array(controller.commands.suffix(2)) == [
            try packet(LESetExtendedAdvertisingEnable(false, sets: [.init(handle: fifteen)])),
            try packet(LERemoveAdvertisingSet(handle: fifteen)),
        ])
        #expect(!controller.opcodes.contains(.leClearAdvertisingSets))
    }

    @Test("a set taken in a race with no free set left: the run fails and names the set")
    func raceWithoutSpare() async throws {
        var configuration = ScriptedController.Configuration()
        configuration.advertisingSets = 4
        let controller = ScriptedController(name: "hci0", configuration: configuration, answer: Self.refusingParameters(for: [3]))
        let run = try startAdvertiser(
            on: [controller], spec: "hci0", requests: [request(minor: 1), request(minor: 2)],
            occupiedSets: { _ in Self.bluetoothdInstances })
        #expect(
            await run.task.value
                == .failure(.setsTaken(controller: "hci0", index: 0, beacon: "\(identity(minor: 1))", handles: [3])))
        #expect(try parameterHandles(controller) == [3])
        #expect(!controller.opcodes.contains(.leRemoveAdvertisingSet))
    }

    @Test("the kernel's sets unreadable (no CAP_NET_ADMIN): nothing goes on the air, and the message says why")
    func occupiedSetsUnknown() async throws {
        let controller = ScriptedController(name: "hci0")
        let cause = HCITransportError(
            .permissionDenied, "hci0: the kernel's management interface refused Read Advertising Features (Permission Denied, 0x14)")
        let run = try startAdvertiser(
            on: [controller], spec: "hci0", requests: [request(minor: 1)],
            restart: RestartPolicy(),
            occupiedSets: { (_: UInt16) throws(AdvertisingError) -> OccupiedAdvertisingSets in
                throw .occupiedSetsUnknown(cause)
            })
        // Not transient: no restart attempt, even with a restart policy.
        #expect(await run.task.value == .failure(.occupiedSetsUnknown(cause)))
        #expect(controller.opcodes.last == .leReadNumberOfSupportedAdvertisingSets)
    }

    @Test("Command Disallowed on a set command blames the set, not the other command family")
    func setInUseAdvice() {
        let shared = HCIError(controller: "hci0", opcode: .leSetExtendedAdvertisingParameters, kind: .commandFailed(.commandDisallowed))
        #expect(
            shared.advisedMessage
                == "hci0: LE Set Extended Advertising Parameters was refused (0x0C Command Disallowed): the advertising "
                + "set is on the air and cannot change while it advertises; on hci0 it is usually another program's set "
                + "(bluetoothd's advertising instance with that number, `btmgmt --index 0 advinfo` lists them): stop that "
                + "advertisement, or use hci-user:0")
        // The family's first command still gets the family wording, where it is true.
        let first = HCIError(controller: "hci0", opcode: .leReadNumberOfSupportedAdvertisingSets, kind: .commandFailed(.commandDisallowed))
        #expect(first.advisedMessage.contains("the two command families exclude each other"))
    }

    /// Answers LE Set Extended Advertising Parameters for `handles` with Command Disallowed, as
    /// a controller does for a set another program has enabled.
    static func refusingParameters(for handles: Set<UInt8>) -> ScriptedController.AnswerOverride {
        { command in
            guard command.opcode == .leSetExtendedAdvertisingParameters,
                let parameters = try? command.decode(as: LESetExtendedAdvertisingParameters.self),
                handles.contains(parameters.handle.rawValue)
            else { return nil }
            return [HCIStatus.commandDisallowed.rawValue]
        }
    }

    /// The handles of every LE Set Extended Advertising Parameters sent, in order.
    private func parameterHandles(_ controller: ScriptedController) throws -> [UInt8] {
        try controller.commands.filter { $0.opcode == .leSetExtendedAdvertisingParameters }
            .map { try $0.decode(as: LESetExtendedAdvertisingParameters.self).handle.rawValue }
    }
}
