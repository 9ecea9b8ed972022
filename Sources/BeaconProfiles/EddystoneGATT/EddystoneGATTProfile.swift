import BeaconCore
import CryptoPrimitives
import LECentral

/// The `eddystone-gatt` profile: beacons that offer the Eddystone Configuration GATT Service
/// (google/eddystone, configuration-service/README.md). It unlocks with the AES-128 challenge
/// (OpenSSL), reads capabilities, lock state, interval and powers of slot 0, writes the
/// interval and the radio Tx power, changes the lock code, and resets to factory settings
/// only when asked (`factoryReset()`, never during provisioning).
///
/// It cannot write an iBeacon identity or measured power: the service configures Eddystone
/// frames (UID, URL, TLM, EID) only. Vendors that offer iBeacon do it in services of their own
/// beside it (Accent Systems' iBKS GATT reference manual documents an iBeacon Service 0xFA00),
/// not as an extension of this one. A target that sets them is refused before the beacon is
/// touched.
public actor EddystoneGATTProfile: BeaconProfile {
    public static let service = EddystoneConfigurationService.service

    public nonisolated let name = "eddystone-gatt"
    public nonisolated let context: String
    public nonisolated let writableFields: Set<BeaconField> = [.txPower, .advertisingInterval]

    public nonisolated func whyNotWritable(_ field: BeaconField) -> String {
        "the Eddystone Configuration GATT Service configures Eddystone frames (UID, URL, TLM, EID) and has no "
            + "iBeacon identity or measured power; vendors that add iBeacon do it in services of their own beside it "
            + "(Accent Systems' iBKS GATT reference manual: an iBeacon Service 0xFA00), which this profile does not "
            + "use: provision the beacon with its vendor's profile, or as an Eddystone beacon"
    }

    public nonisolated func problem(with password: BeaconPassword) -> String? {
        EddystoneConfigurationService.lockCode(password) == nil ? Self.lockCodeForm : nil
    }

    static let lockCodeForm = "an Eddystone lock code is 16 bytes written as 32 hexadecimal digits"

    private let gatt: GATTClient
    private let handles: [AttributeUUID: UInt16]
    private var attempted = false
    /// The lock code the beacon accepted: the key a new code is encrypted with.
    private var lockCode: [UInt8]?
    /// Whether the beacon proved `lockCode` right by unlocking with it.
    private var lockCodeChecked = false
    private var capabilities: EddystoneConfigurationService.Capabilities?

    private init(gatt: GATTClient, handles: [AttributeUUID: UInt16]) {
        self.gatt = gatt
        self.handles = handles
        self.context = "eddystone-gatt: \(gatt.att.context)"
    }

    /// Whether an advertisement or scan response lists the service's 128-bit UUID, as the
    /// document recommends a connectable beacon do.
    public static func recognises(advertising structures: [ADStructure]) -> Bool {
        let wire = service.littleEndian
        return structures.contains { structure in
            // 0x06 Incomplete / 0x07 Complete List of 128-bit Service UUIDs (Assigned Numbers 2.3).
            guard structure.type == 0x06 || structure.type == 0x07, structure.data.count % 16 == 0 else { return false }
            return stride(from: 0, to: structure.data.count, by: 16).contains { Array(structure.data[$0..<($0 + 16)]) == wire }
        }
    }

    public static func recognises(services: [GATTService]) -> Bool {
        services.contains { $0.uuid == service }
    }

    public static func open(on connection: LEConnection) async throws(BeaconProfileError) -> EddystoneGATTProfile {
        try await open(gatt: connection.gatt)
    }

    /// Finds the service and its characteristics (Lock State, Unlock, Active Slot, Advertising
    /// Interval and Radio Tx Power must be there).
    public static func open(gatt: GATTClient) async throws(BeaconProfileError) -> EddystoneGATTProfile {
        let context = "eddystone-gatt: \(gatt.att.context)"
        let profile: EddystoneGATTProfile
        do throws(LECentralError) {
            try await gatt.att.exchangeMTU()
            let services = try await gatt.discoverPrimaryServices()
            guard let found = services.first(where: { $0.uuid == service }) else {
                throw LECentralError(context: context, kind: .invalidRequest("no Eddystone Configuration Service (\(service))"))
            }
            let characteristics = try await gatt.discoverCharacteristics(of: found)
            var handles: [AttributeUUID: UInt16] = [:]
            for characteristic in characteristics { handles[characteristic.uuid] = characteristic.valueHandle }
            profile = EddystoneGATTProfile(gatt: gatt, handles: handles)
        } catch {
            if case .invalidRequest(let what) = error.kind, what.hasPrefix("no Eddystone") {
                throw BeaconProfileError(context: context, kind: .notThisProfile(what))
            }
            throw .link(error, context: context)
        }
        return try await profile.required()
    }

    /// Checks that the characteristics every step needs are there.
    private func required() throws(BeaconProfileError) -> EddystoneGATTProfile {
        let needed: [(AttributeUUID, String)] = [
            (EddystoneConfigurationService.lockState, "Lock State"), (EddystoneConfigurationService.unlock, "Unlock"),
            (EddystoneConfigurationService.activeSlot, "Active Slot"),
            (EddystoneConfigurationService.advertisingInterval, "Advertising Interval"),
            (EddystoneConfigurationService.radioTxPower, "Radio Tx Power"),
        ]
        if let missing = needed.first(where: { handles[$0.0] == nil }) {
            throw failure(.notThisProfile("the Eddystone Configuration Service has no \(missing.1) characteristic (\(missing.0))"))
        }
        return self
    }

    // MARK: BeaconProfile

    /// Unlocks (characteristic 7): reads the challenge, writes AES-128-ECB(lock code,
    /// challenge). A beacon already unlocked is accepted without a write. The lock code is
    /// given as 32 hexadecimal digits.
    public func authenticate(_ password: BeaconPassword) async throws(BeaconProfileError) -> AuthenticationOutcome {
        guard !attempted else { throw failure(.authenticationAlreadyAttempted) }
        guard let code = EddystoneConfigurationService.lockCode(password) else {
            throw failure(.invalidPassword(Self.lockCodeForm))
        }
        attempted = true
        let state = try decode(try await readValue(EddystoneConfigurationService.lockState), EddystoneConfigurationService.lockState)
        if state != .locked {
            // Unlocked already: the code was not checked, so it cannot encrypt a new one.
            lockCode = code
            lockCodeChecked = false
            return .accepted
        }
        let challenge = try decode(try await readValue(EddystoneConfigurationService.unlock), EddystoneConfigurationService.challenge)
        guard let token = Cryptography.aes128ECB(key: code, block: challenge) else {
            throw failure(.cryptography("OpenSSL's libcrypto would not compute AES-128-ECB, which the Eddystone unlock needs"))
        }
        do throws(LECentralError) {
            try await gatt.write(try handle(EddystoneConfigurationService.unlock), token)
        } catch {
            // "Write Not Permitted: on a write attempt to unlock with the incorrect key".
            if case .attribute(_, _, let code) = error.kind, code == .writeNotPermitted || code == .insufficientAuthorization {
                return .refused(.refusedByBeacon)
            }
            throw .link(error, context: context)
        }
        let after = try decode(try await readValue(EddystoneConfigurationService.lockState), EddystoneConfigurationService.lockState)
        guard after != .locked else { return .refused(.refusedByBeacon) }
        lockCode = code
        lockCodeChecked = true
        return .accepted
    }

    public func read() async throws(BeaconProfileError) -> BeaconReading {
        guard lockCode != nil else { throw failure(.notAuthenticated) }
        if capabilities == nil, handles[EddystoneConfigurationService.capabilities] != nil {
            capabilities = try decode(try await readValue(EddystoneConfigurationService.capabilities)) { bytes throws(EddystoneDecodeError) in
                try EddystoneConfigurationService.Capabilities(bytes: bytes)
            }
        }
        // Slot 0 is active: the document has beacons select it on every new connection, and
        // this profile selects no other (reading writes nothing).
        let interval = try decode(try await readValue(EddystoneConfigurationService.advertisingInterval), EddystoneConfigurationService.interval)
        let power = try decode(try await readValue(EddystoneConfigurationService.radioTxPower)) { bytes throws(EddystoneDecodeError) in
            try EddystoneConfigurationService.power(bytes, what: "Radio Tx Power")
        }
        // Measured power stays unknown: Eddystone advertises its power at 0 m, iBeacon at 1 m.
        return BeaconReading(settings: BeaconSettings(txPower: power, advertisingInterval: interval))
    }

    public func write(_ fields: [BeaconField], of target: BeaconSettings, current: BeaconReading) async throws(BeaconProfileError) {
        guard lockCode != nil else { throw failure(.notAuthenticated) }
        if let field = fields.first(where: { !writableFields.contains($0) }) {
            throw failure(.unsupported(field, whyNotWritable(field)))
        }
        var writes: [(AttributeUUID, [UInt8])] = []
        if fields.contains(.advertisingInterval), let value = target.advertisingInterval {
            guard let milliseconds = UInt16(exactly: value), milliseconds > 0 else {
                throw failure(.invalidValue(.advertisingInterval, "\(value) ms does not fit the service's 16-bit interval (1…65535 ms)"))
            }
            writes.append((EddystoneConfigurationService.advertisingInterval, EddystoneConfigurationService.intervalBytes(milliseconds)))
        }
        if fields.contains(.txPower), let value = target.txPower {
            // The beacon would pick the next supported power up; say so before writing instead.
            if let supported = capabilities?.txPowers, !supported.isEmpty, !supported.contains(value) {
                throw failure(.invalidValue(.txPower, "\(value) dBm is not one of this beacon's powers: \(supported.map { "\($0)" }.joined(separator: ", ")) dBm"))
            }
            guard let byte = Int8(exactly: value) else { throw failure(.invalidValue(.txPower, "\(value) dBm does not fit a signed byte")) }
            writes.append((EddystoneConfigurationService.radioTxPower, [UInt8(bitPattern: byte)]))
        }
        try await selectSlotZero()
        for (characteristic, value) in writes {
            try await writeValue(characteristic, value)
        }
    }

    /// Characteristic 6: 0x00 and the new code encrypted with the current one
    /// (AES-128-ECB), which also locks the beacon with the new code.
    public func changePassword(to newPassword: BeaconPassword) async throws(BeaconProfileError) {
        guard let lockCode else { throw failure(.notAuthenticated) }
        guard lockCodeChecked else {
            // The beacon decrypts the new code with its own: under a wrong old code it would
            // lock itself with a code nobody knows.
            throw failure(.invalidPassword(
                "the beacon was already unlocked, so its current lock code was never checked, and a new code encrypted "
                    + "with an unchecked one could lock the beacon with a code nobody knows; lock the beacon and run again"))
        }
        guard let newCode = EddystoneConfigurationService.lockCode(newPassword) else {
            throw failure(.invalidPassword(Self.lockCodeForm))
        }
        guard let encrypted = Cryptography.aes128ECB(key: lockCode, block: newCode) else {
            throw failure(.cryptography("OpenSSL's libcrypto would not compute AES-128-ECB, which a new Eddystone lock code needs"))
        }
        try await writeValue(EddystoneConfigurationService.lockState, [EddystoneConfigurationService.LockState.locked.rawValue] + encrypted)
        self.lockCode = newCode
    }

    /// Characteristic 11: resets the beacon to its factory slots (the lock code stays).
    /// Only when a person asked for it; the beacon must be unlocked (state 0x01).
    public func factoryReset() async throws(BeaconProfileError) {
        guard lockCode != nil else { throw failure(.notAuthenticated) }
        guard handles[EddystoneConfigurationService.factoryReset] != nil else {
            throw failure(.notThisProfile("this beacon offers no Factory Reset characteristic"))
        }
        try await writeValue(EddystoneConfigurationService.factoryReset, [EddystoneConfigurationService.factoryResetValue])
    }

    // MARK: Attributes

    /// Characteristic 2: the slot the next reads and writes act on (slot 0, the one
    /// beaconctl manages).
    private func selectSlotZero() async throws(BeaconProfileError) {
        try await writeValue(EddystoneConfigurationService.activeSlot, [0])
    }

    private func handle(_ characteristic: AttributeUUID) throws(LECentralError) -> UInt16 {
        guard let handle = handles[characteristic] else {
            throw LECentralError(context: gatt.att.context, kind: .invalidRequest("no characteristic \(characteristic)"))
        }
        return handle
    }

    private func readValue(_ characteristic: AttributeUUID) async throws(BeaconProfileError) -> [UInt8] {
        do throws(LECentralError) {
            return try await gatt.read(try handle(characteristic))
        } catch {
            throw .link(error, context: context)
        }
    }

    private func writeValue(_ characteristic: AttributeUUID, _ value: [UInt8]) async throws(BeaconProfileError) {
        do throws(LECentralError) {
            try await gatt.write(try handle(characteristic), value)
        } catch {
            throw .link(error, context: context)
        }
    }

    private func decode<T>(_ bytes: [UInt8], _ decoder: ([UInt8]) throws(EddystoneDecodeError) -> T) throws(BeaconProfileError) -> T {
        do throws(EddystoneDecodeError) {
            return try decoder(bytes)
        } catch {
            throw failure(.malformed("\(error)"))
        }
    }

    private func failure(_ kind: BeaconProfileError.Kind) -> BeaconProfileError {
        BeaconProfileError(context: context, kind: kind)
    }
}
