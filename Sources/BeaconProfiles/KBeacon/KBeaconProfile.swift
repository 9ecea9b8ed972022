import BeaconCore
import HCI
import LECentral

/// The `kbeacon` profile: KKM's KBeacon and Blue Charm beacons (BC011, BC04P, …), configured
/// through the vendor's service 0xFEA0 with JSON messages after an MD5 challenge-response,
/// as its MIT-licensed SDK does it (kkmhogen/android_kbeaconlib2; see `KBeaconFrame`,
/// `KBeaconAuthentication`, `KBeaconConfiguration` for the files each part follows).
public actor KBeaconProfile: BeaconProfile {
    public struct Options: Sendable {
        /// How long each answer of the beacon may take (the SDK's `MAX_READ_CFG_TIMEOUT`
        /// and `MAX_WRITE_CFG_TIMEOUT` are 15 s for a whole message).
        public var answerTimeout: Duration
        public var clock: any Clock<Duration>
        /// The central's 4-byte challenge; random unless a test fixes it.
        public var challenge: @Sendable () -> [UInt8]

        public init(
            answerTimeout: Duration = .seconds(15), clock: any Clock<Duration> = ContinuousClock(),
            challenge: @escaping @Sendable () -> [UInt8] = { (0..<4).map { _ in UInt8.random(in: 0...255) } }
        ) {
            self.answerTimeout = answerTimeout
            self.clock = clock
            self.challenge = challenge
        }
    }

    /// KBUtility.java: `KB_CFG_SERVICE_UUID`, `KB_WRITE_CHAR_UUID`, `KB_NTF_CHAR_UUID`.
    public static let service = AttributeUUID(0xFEA0)
    static let writeCharacteristic = AttributeUUID(0xFEA1)
    static let notifyCharacteristic = AttributeUUID(0xFEA2)
    /// KBUtility.java `KKM_MANUFACTURE_ID`, and the service data UUID 0x2080 its beacons
    /// carry their battery level in (`PARCE_UUID_EXT_DATA`, KBAdvPacketHandler.java).
    static let manufacturerID: UInt16 = 0x0A53
    static let extensionServiceData: UInt16 = 0x2080
    /// The password KBeacons leave the factory with: sixteen ASCII zeros.
    public static let factoryPassword = KBeaconAuthentication.factoryPassword

    public nonisolated let name = "kbeacon"
    public nonisolated let context: String
    public nonisolated let writableFields = Set(BeaconField.allCases)

    public nonisolated func problem(with password: BeaconPassword) -> String? {
        KBeaconAuthentication.problem(with: password)
    }

    private let gatt: GATTClient
    private let address: BluetoothAddress
    private let writeHandle: UInt16
    private let writeWithResponse: Bool
    private let inbox: NotificationInbox
    private let options: Options
    private var attempted = false
    private var authenticated = false
    /// Bytes of a message per part: 17 until the beacon tells its MTU.
    private var partCapacity = KBeaconFrame.defaultFrameLength - KBeaconFrame.partHeaderLength
    private var configuration: KBeaconConfiguration?
    /// A bound on the frames one exchange may take (a 4096-byte answer in 1-byte parts, and room).
    static let maximumFramesPerExchange = KBeaconFrame.maximumMessageLength + 64

    private init(gatt: GATTClient, address: BluetoothAddress, writeHandle: UInt16, writeWithResponse: Bool, inbox: NotificationInbox, options: Options) {
        self.gatt = gatt
        self.address = address
        self.writeHandle = writeHandle
        self.writeWithResponse = writeWithResponse
        self.inbox = inbox
        self.options = options
        self.context = "kbeacon: \(gatt.att.context)"
    }

    // MARK: Recognition

    /// Whether an advertisement (with its scan response) looks like a KBeacon's: KKM's
    /// manufacturer data, or the 0x2080 service data KBeacons add to their frames.
    public static func recognises(advertising structures: [ADStructure]) -> Bool {
        structures.contains { structure in
            let data = structure.data
            guard data.count >= 2 else { return false }
            let prefix = UInt16(data[0]) | UInt16(data[1]) << 8
            switch structure.type {
            case ADStructure.manufacturerSpecificType: return prefix == manufacturerID
            case 0x16: return prefix == extensionServiceData  // Service Data – 16-bit UUID
            default: return false
            }
        }
    }

    /// Whether the beacon's services include KBeacon's configuration service.
    public static func recognises(services: [GATTService]) -> Bool {
        services.contains { $0.uuid == service }
    }

    // MARK: Opening

    /// Opens the profile on a connection: exchanges the MTU, finds 0xFEA0 with its write and
    /// notify characteristics, and enables notifications.
    public static func open(on connection: LEConnection, options: Options = Options()) async throws(BeaconProfileError) -> KBeaconProfile {
        try await open(gatt: connection.gatt, address: connection.peer, options: options)
    }

    /// The same on any GATT client; `address` is the beacon's own address (the
    /// authentication digests it).
    public static func open(gatt: GATTClient, address: BluetoothAddress, options: Options = Options()) async throws(BeaconProfileError) -> KBeaconProfile {
        let context = "kbeacon: \(gatt.att.context)"
        func central<T>(_ operation: () async throws(LECentralError) -> T) async throws(BeaconProfileError) -> T {
            do throws(LECentralError) {
                return try await operation()
            } catch {
                throw .link(error, context: context)
            }
        }
        // The SDK asks for the largest MTU before anything else (KBeacon.java MSG_START_REQUST_MAX_MTU).
        _ = try await central { () async throws(LECentralError) in try await gatt.att.exchangeMTU() }
        let services = try await central { () async throws(LECentralError) in try await gatt.discoverPrimaryServices() }
        guard let found = services.first(where: { $0.uuid == service }) else {
            throw BeaconProfileError(context: context, kind: .notThisProfile("no KBeacon configuration service (0xFEA0)"))
        }
        let characteristics = try await central { () async throws(LECentralError) in try await gatt.discoverCharacteristics(of: found) }
        guard let write = characteristics.first(where: { $0.uuid == writeCharacteristic }),
            !write.properties.isDisjoint(with: [.write, .writeWithoutResponse])
        else {
            throw BeaconProfileError(context: context, kind: .notThisProfile("no writable 0xFEA1 characteristic in service 0xFEA0"))
        }
        guard let notify = characteristics.first(where: { $0.uuid == notifyCharacteristic }), notify.properties.contains(.notify) else {
            throw BeaconProfileError(context: context, kind: .notThisProfile("no notifying 0xFEA2 characteristic in service 0xFEA0"))
        }
        let values = await gatt.att.handleValues()
        let inbox = NotificationInbox(values: values, handle: notify.valueHandle, att: gatt.att, clock: options.clock)
        try await central { () async throws(LECentralError) in try await gatt.subscribe(to: notify, .notifications) }
        return KBeaconProfile(
            gatt: gatt, address: address, writeHandle: write.valueHandle, writeWithResponse: write.properties.contains(.write),
            inbox: inbox, options: options)
    }

    // MARK: BeaconProfile

    public func authenticate(_ password: BeaconPassword) async throws(BeaconProfileError) -> AuthenticationOutcome {
        guard !attempted else { throw failure(.authenticationAlreadyAttempted) }
        if let problem = KBeaconAuthentication.problem(with: password) {
            // Not sent: a password the beacon cannot hold cannot be its password either.
            throw failure(.invalidPassword(problem))
        }
        attempted = true
        let random = options.challenge()
        try await send(KBeaconAuthentication.request(random: random))
        guard case .challenge(let beaconRandom, let proof, let folded) = try await nextAuthenticationAnswer("the authentication request") else {
            return .refused(.refusedByBeacon)
        }
        guard let expected = KBeaconAuthentication.proof(address: address, random: random, password: password, folded: folded),
            let answer = KBeaconAuthentication.proof(address: address, random: beaconRandom, password: password, folded: folded)
        else {
            throw failure(.cryptography("OpenSSL's libcrypto would not compute MD5 (a FIPS-only configuration?): KBeacon authentication needs it"))
        }
        // The beacon proves first; a mismatch means it holds another password, and no answer
        // of ours goes out (nothing a beacon could count as a second attempt).
        guard proof == expected else { return .refused(.passwordMismatch) }
        try await send(KBeaconAuthentication.response(proof: answer, folded: folded))
        switch try await nextAuthenticationAnswer("the answer to its challenge") {
        case .authenticated(let mtu):
            authenticated = true
            let attCapacity = await gatt.att.mtu - 3 - KBeaconFrame.partHeaderLength
            // KBAuthHandler: the beacon's MTU less ATT's 3 bytes is its frame length.
            let beaconCapacity = mtu.map { $0 - 3 - KBeaconFrame.partHeaderLength } ?? partCapacity
            partCapacity = max(1, min(attCapacity, beaconCapacity))
            return .accepted
        case .authenticationRefused:
            return .refused(.refusedByBeacon)
        default:
            throw failure(.malformed("a second challenge after the answer to the first"))
        }
    }

    public func read() async throws(BeaconProfileError) -> BeaconReading {
        guard authenticated else { throw failure(.notAuthenticated) }
        let answer = try await exchange(KBeaconConfiguration.readRequest, step: "the configuration read")
        do throws(KBeaconConfigurationError) {
            let configuration = try KBeaconConfiguration(json: answer)
            self.configuration = configuration
            return configuration.reading
        } catch {
            throw failure(.malformed("its configuration: \(error)"))
        }
    }

    public func write(_ fields: [BeaconField], of target: BeaconSettings, current: BeaconReading) async throws(BeaconProfileError) {
        guard authenticated else { throw failure(.notAuthenticated) }
        guard !fields.isEmpty else { return }
        let message: [UInt8]
        do throws(KBeaconConfigurationError) {
            message = try (configuration ?? KBeaconConfiguration()).writeMessage(fields, of: target)
        } catch {
            if case .outOfRange(let field, let why) = error { throw failure(.invalidValue(field, why)) }
            throw failure(.invalidValue(fields[0], "\(error)"))
        }
        _ = try await exchange(message, step: "the configuration write")
    }

    public func changePassword(to newPassword: BeaconPassword) async throws(BeaconProfileError) {
        guard authenticated else { throw failure(.notAuthenticated) }
        if let problem = KBeaconAuthentication.problem(with: newPassword) { throw failure(.invalidPassword(problem)) }
        _ = try await exchange(KBeaconConfiguration.passwordMessage(newPassword), step: "the password change")
    }

    // MARK: Messages

    /// Sends a JSON message in parts as the beacon asks for them and returns its answer:
    /// data in the acknowledgement itself, or reported in parts that are each acknowledged
    /// (KBeacon.java `configHandleDownCmdAck`, `configHandleReadDataRpt`).
    private func exchange(_ message: [UInt8], step: String) async throws(BeaconProfileError) -> [UInt8] {
        guard let first = KBeaconFrame.part(of: message, type: .json, at: 0, capacity: partCapacity) else {
            throw failure(.malformed("\(step): a message of \(message.count) bytes cannot be framed"))
        }
        try await send(first)
        var sent = 0
        var received: [UInt8] = []
        var receiving = false
        // Every useful frame moves a message on by a byte at least: more frames than that
        // is a beacon keeping us busy, not an answer.
        var frames = 0
        while true {
            frames += 1
            guard frames <= Self.maximumFramesPerExchange else {
                throw failure(.malformed("\(step): more than \(Self.maximumFramesPerExchange) frames without an answer"))
            }
            let notification = try await nextNotification(step)
            switch notification {
            case .acknowledgement(.json, let sequence, let cause, let data):
                switch cause {
                case KBeaconNotification.Cause.expectNext:
                    // The offset must move forward, so a beacon cannot keep us sending.
                    guard Int(sequence) > sent, let part = KBeaconFrame.part(of: message, type: .json, at: Int(sequence), capacity: partCapacity) else {
                        throw failure(.malformed("\(step): the beacon asked for offset \(sequence) of a \(message.count)-byte message"))
                    }
                    sent = Int(sequence)
                    try await send(part)
                case KBeaconNotification.Cause.success:
                    return data
                case KBeaconNotification.Cause.commandReceived:
                    // The answer follows as a report; what came with this is its first part.
                    received = data
                    receiving = true
                    try await acknowledgeReport(received: received.count)
                case KBeaconNotification.Cause.executionComplete, KBeaconNotification.Cause.executionIncomplete:
                    continue
                default:
                    throw failure(.refused(step: step, cause: Int(cause)))
                }
            case .report(.jsonReport, let place, let sequence, let data):
                if place == .start || place == .single, !receiving || place == .start {
                    received = []
                }
                receiving = true
                if place != .start, place != .single, Int(sequence) != received.count {
                    // Out of sequence: say where we are, as the SDK does (cause 1).
                    try await acknowledgeReport(received: received.count, cause: 1)
                    continue
                }
                guard received.count + data.count <= KBeaconFrame.maximumMessageLength else {
                    throw failure(.malformed("\(step): an answer longer than \(KBeaconFrame.maximumMessageLength) bytes"))
                }
                received += data
                try await acknowledgeReport(received: received.count)
                if place == .end || place == .single { return received }
            case .challenge, .authenticated, .authenticationRefused, .acknowledgement, .report:
                // Another kind of frame: not part of this exchange.
                continue
            }
        }
    }

    private func acknowledgeReport(received: Int, cause: UInt16 = 0) async throws(BeaconProfileError) {
        guard let frame = KBeaconFrame.reportAcknowledgement(type: .jsonReport, received: received, cause: cause) else {
            throw failure(.malformed("an answer longer than 65535 bytes"))
        }
        try await send(frame)
    }

    private func nextAuthenticationAnswer(_ step: String) async throws(BeaconProfileError) -> KBeaconNotification {
        for _ in 0..<Self.maximumFramesPerExchange {
            let notification = try await nextNotification(step)
            switch notification {
            case .challenge, .authenticated, .authenticationRefused: return notification
            case .acknowledgement, .report: continue
            }
        }
        throw failure(.malformed("\(step): more than \(Self.maximumFramesPerExchange) frames without an authentication answer"))
    }

    /// The next frame the beacon notifies, decoded; an undecodable one is malformed.
    private func nextNotification(_ step: String) async throws(BeaconProfileError) -> KBeaconNotification {
        switch await inbox.next(timeout: options.answerTimeout) {
        case .value(let bytes):
            do throws(KBeaconDecodeError) {
                return try KBeaconNotification(bytes: bytes)
            } catch {
                throw failure(.malformed("\(step): \(error)"))
            }
        case .timedOut:
            throw failure(.noAnswer(step: step, after: options.answerTimeout))
        case .ended(let reason):
            let error = reason ?? LECentralError(context: gatt.att.context, kind: .disconnected(reason: nil))
            throw BeaconProfileError.link(error, context: context)
        case .cancelled:
            throw failure(.cancelled)
        }
    }

    private func send(_ frame: [UInt8]) async throws(BeaconProfileError) {
        do throws(LECentralError) {
            if writeWithResponse {
                try await gatt.write(writeHandle, frame)
            } else {
                try await gatt.writeWithoutResponse(writeHandle, frame)
            }
        } catch {
            throw .link(error, context: context)
        }
    }

    private func failure(_ kind: BeaconProfileError.Kind) -> BeaconProfileError {
        BeaconProfileError(context: context, kind: kind)
    }
}
