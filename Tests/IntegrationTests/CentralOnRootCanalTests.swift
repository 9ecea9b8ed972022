import BeaconCore
import Foundation
import HCI
import HCITransports
import LECentral
import Testing

/// beaconctl's LE central against an independent peripheral: Bumble running a GATT server
/// (Peripherals/gatt_peripheral.py) on RootCanal, the central on another RootCanal
/// controller. Connect, MTU exchange, discovery, read, long read, write (long at MTU 23),
/// notification, confirmed indication, a Security Request refused, a parameter update
/// accepted, disconnect from either side, a deadline.
@Suite("LE central on RootCanal against a Bumble GATT peripheral", .requiresRootCanal, .timeLimit(.minutes(3)))
struct CentralOnRootCanalTests {
    /// A static random address (top two bits set, Core v5.4 Vol 6 Part B 1.3.2.1).
    static let peripheralAddress = BluetoothAddress("F0:4C:0A:00:00:01") ?? .zero
    static let service = AttributeUUID("3c0f0000-2c4b-4e4b-8f1c-6a2b2c3d4e5f") ?? AttributeUUID(0)
    static let name = AttributeUUID("3c0f0001-2c4b-4e4b-8f1c-6a2b2c3d4e5f") ?? AttributeUUID(0)
    static let long = AttributeUUID("3c0f0002-2c4b-4e4b-8f1c-6a2b2c3d4e5f") ?? AttributeUUID(0)
    static let events = AttributeUUID("3c0f0003-2c4b-4e4b-8f1c-6a2b2c3d4e5f") ?? AttributeUUID(0)
    static let longValue = (0..<300).map { UInt8($0 % 251) }
    /// RootCanal's timing is real and the machine may be loaded: a safety deadline.
    static let connectDeadline: Duration = .seconds(30)

    @Test("connect, exchange the MTU, discover, read, long read, write, notification, indication, disconnect",
        arguments: [23, 247])
    func wholeExchange(serverMTU: Int) async throws {
        try await withRootCanal { rootCanal in
            let peripheral = try await BumblePeripheral.start(on: rootCanal, address: Self.peripheralAddress, ["--mtu", String(serverMTU)])
            defer { peripheral.signal(SIGKILL) }
            let central = try await Self.startCentral(on: rootCanal)

            let connection = try await central.connect(to: Self.peripheralAddress, type: .random, timeout: Self.connectDeadline)
            _ = try await peripheral.waitForLine("connected") { $0 == "connected" }
            #expect(connection.peer == Self.peripheralAddress)

            let mtu = try await connection.att.exchangeMTU()
            #expect(mtu == min(serverMTU, 247))

            let gatt = connection.gatt
            let services = try await gatt.discoverPrimaryServices()
            let service = try #require(services.first { $0.uuid == Self.service }, "services found: \(services)")
            let characteristics = try await gatt.discoverCharacteristics(of: service)
            #expect(characteristics.map(\.uuid) == [Self.name, Self.long, Self.events])
            let name = try #require(characteristics.first { $0.uuid == Self.name })
            let long = try #require(characteristics.first { $0.uuid == Self.long })
            let events = try #require(characteristics.first { $0.uuid == Self.events })
            #expect(long.properties == [.read, .write])
            #expect(events.properties == [.read, .notify, .indicate])
            #expect(try await gatt.discoverDescriptors(of: events).map(\.uuid).contains(.clientCharacteristicConfiguration))

            #expect(try await gatt.read(name.valueHandle) == Array("beaconctl".utf8))
            // 300 bytes: Read Blob after the first part at either MTU.
            #expect(try await gatt.read(long.valueHandle) == Self.longValue)
            // 120 bytes: a long write (Prepare / Execute) at MTU 23, one Write at 247.
            let written = (0..<120).map { UInt8(200 - $0) }
            try await gatt.write(long.valueHandle, written)
            #expect(try await gatt.read(long.valueHandle) == written)

            let values = await connection.att.handleValues()
            var iterator = values.makeAsyncIterator()
            try await gatt.subscribe(to: events, .notifications)
            #expect(await iterator.next() == ATTHandleValue(handle: events.valueHandle, value: [0x01, 0x02], isIndication: false))
            try await gatt.subscribe(to: events, .indications)
            #expect(await iterator.next() == ATTHandleValue(handle: events.valueHandle, value: [0x03], isIndication: true))
            _ = try await peripheral.waitForLine("the indication confirmed") { $0 == "confirmed" }

            #expect(try await connection.disconnect() == .connectionTerminatedByLocalHost)
            // 0x13 Remote User Terminated Connection, as the peripheral hears it.
            _ = try await peripheral.waitForLine("its disconnection") { $0 == "disconnected 19" }
            await #expect(throws: LECentralError.self) { try await gatt.read(name.valueHandle) }
            #expect(await central.packetsInFlight(on: connection.handle) == 0)
            await central.host.close()
        }
    }

    @Test("a peripheral asking for security is refused cleanly; its parameter update is accepted and applied")
    func securityRequestAndParameterUpdate() async throws {
        try await withRootCanal { rootCanal in
            let peripheral = try await BumblePeripheral.start(
                on: rootCanal, address: Self.peripheralAddress, ["--security-request", "--parameter-update"])
            defer { peripheral.signal(SIGKILL) }
            let central = try await Self.startCentral(on: rootCanal)
            let connection = try await central.connect(to: Self.peripheralAddress, type: .random, timeout: Self.connectDeadline)
            // SMP reason 5, Pairing Not Supported (Core v5.4 Vol 3 Part H 3.5.5).
            _ = try await peripheral.waitForLine("the refused pairing") { $0 == "pairing failed 5" }
            #expect(connection.peripheralAskedForSecurity)
            _ = try await peripheral.waitForLine("the accepted parameters") { $0 == "parameters accepted" }
            _ = try await peripheral.waitForLine("the new parameters in force") { $0 == "parameters updated" }
            // The link still carries attribute requests.
            let services = try await connection.gatt.discoverPrimaryServices()
            #expect(services.contains { $0.uuid == Self.service })
            #expect(try await connection.disconnect() == .connectionTerminatedByLocalHost)
            await central.host.close()
        }
    }

    @Test("the peripheral hangs up: the link ends with its reason, in words, and requests fail with it")
    func peripheralHangsUp() async throws {
        try await withRootCanal { rootCanal in
            let peripheral = try await BumblePeripheral.start(
                on: rootCanal, address: Self.peripheralAddress, ["--hang-up-after-notification"])
            defer { peripheral.signal(SIGKILL) }
            let central = try await Self.startCentral(on: rootCanal)
            let connection = try await central.connect(to: Self.peripheralAddress, type: .random, timeout: Self.connectDeadline)
            let gatt = connection.gatt
            let service = try #require(try await gatt.discoverPrimaryServices().first { $0.uuid == Self.service })
            let events = try #require(try await gatt.discoverCharacteristics(of: service).first { $0.uuid == Self.events })
            try await gatt.subscribe(to: events, .notifications)
            #expect(await connection.waitForDisconnection() == .remoteUserTerminatedConnection)
            do {
                _ = try await gatt.read(events.valueHandle)
                Issue.record("a read went through after the peripheral hung up")
            } catch let error as LECentralError {
                #expect(error.kind == .disconnected(reason: .remoteUserTerminatedConnection))
                #expect(error.description.hasSuffix("not connected: the peripheral ended the connection (0x13)"))
            }
            #expect(try await connection.disconnect() == .remoteUserTerminatedConnection)
            await central.host.close()
        }
    }

    @Test("nobody at the address: the attempt ends at its deadline, cancelled on the controller")
    func connectionDeadline() async throws {
        try await withRootCanal { rootCanal in
            let central = try await Self.startCentral(on: rootCanal)
            let absent = BluetoothAddress("F0:4C:0A:00:00:99") ?? .zero
            do {
                _ = try await central.connect(to: absent, type: .random, timeout: .seconds(1))
                Issue.record("connected to an address nobody advertises from")
            } catch let error as LECentralError {
                #expect(error.kind == .connectionTimeout(.seconds(1)))
                #expect(error.description.contains("advertising connectably"))
            }
            // The controller is free again: a second attempt is accepted (and times out too).
            await #expect(throws: LECentralError.self) {
                _ = try await central.connect(to: absent, type: .random, timeout: .milliseconds(300))
            }
            await central.host.close()
        }
    }

    static func startCentral(on rootCanal: RootCanal) async throws -> Central {
        let transport = try await TCPClientTransport.connect(host: "127.0.0.1", port: rootCanal.hciPort)
        let host = HostController(transport: transport, defaultTimeout: .seconds(60))
        let central = Central(host: host)
        try await central.start()
        return central
    }
}

/// `Peripherals/gatt_peripheral.py` run by the venv's Python (Bumble pinned in
/// scripts/requirements-test.txt) on a new RootCanal controller.
enum BumblePeripheral {
    static func start(on rootCanal: RootCanal, address: BluetoothAddress, _ options: [String]) async throws -> BeaconctlProcess {
        let installation = try RootCanalInstallation.current.get()
        let python = installation.venv.appendingPathComponent("bin/python3")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Peripherals/gatt_peripheral.py")
        let process = try BeaconctlProcess(
            program: python, arguments: [script.path, rootCanal.hciTransportSpec, "\(address)"] + options,
            environment: ["PYTHONUNBUFFERED": "1"])
        _ = try await process.waitForLine("ready (advertising)") { $0 == "ready" }
        return process
    }
}
