import BeaconCore
import LECentral

/// A beacon configured through a declarative profile file: the vendor's characteristic
/// table (`ProfileDefinition`) read and written value by value. The password is written
/// before anything else and its refusal read the way the file says; values are written one
/// characteristic each, then the commit if the table has one; the new password last
/// (`BeaconProvisioning` keeps that order).
public actor DeclarativeProfile: BeaconProfile {
    public nonisolated let name: String
    public nonisolated let context: String
    public nonisolated let writableFields: Set<BeaconField>
    public nonisolated let definition: ProfileDefinition

    private let gatt: GATTClient
    /// Value handles by (service, characteristic), of the characteristics found.
    private let handles: [CharacteristicKey: UInt16]
    private var attempted = false
    private var accepted = false

    struct CharacteristicKey: Hashable {
        var service: AttributeUUID
        var characteristic: AttributeUUID
    }

    private init(definition: ProfileDefinition, gatt: GATTClient, handles: [CharacteristicKey: UInt16]) {
        self.definition = definition
        self.gatt = gatt
        self.handles = handles
        name = definition.name
        context = "\(definition.name): \(gatt.att.context)"
        writableFields = Set(definition.values.keys.compactMap(\.field))
    }

    public nonisolated func whyNotWritable(_ field: BeaconField) -> String {
        "the \(name) profile (\(definition.origin)) has no characteristic for \(field) in its vendor's table"
    }

    public nonisolated func problem(with password: BeaconPassword) -> String? {
        guard let spec = definition.password else {
            return "the \(name) profile has no password characteristic, so it cannot set one"
        }
        guard spec.newPassword != nil else {
            return "the \(name) profile's table gives no way to change the password (no `new-password`)"
        }
        if case .failure(let why) = PasswordEncoding.bytes(of: password, as: spec.form) { return why.description }
        return nil
    }

    /// Finds the profile's service and the characteristics of its table. The service, the
    /// identity's characteristics and the password's must be there; the read-only values
    /// (model, firmware, battery) are read when present.
    public static func open(_ definition: ProfileDefinition, on connection: LEConnection) async throws(BeaconProfileError) -> DeclarativeProfile {
        try await open(definition, gatt: connection.gatt)
    }

    public static func open(_ definition: ProfileDefinition, gatt: GATTClient) async throws(BeaconProfileError) -> DeclarativeProfile {
        let context = "\(definition.name): \(gatt.att.context)"
        var handles: [CharacteristicKey: UInt16] = [:]
        var found = false
        do throws(LECentralError) {
            try await gatt.att.exchangeMTU()
            let services = try await gatt.discoverPrimaryServices()
            found = services.contains(where: { $0.uuid == definition.service })
            let wanted = Set(definition.values.values.map(\.service) + [definition.service])
            for service in services where wanted.contains(service.uuid) {
                for characteristic in try await gatt.discoverCharacteristics(of: service) {
                    let key = CharacteristicKey(service: service.uuid, characteristic: characteristic.uuid)
                    if handles[key] == nil { handles[key] = characteristic.valueHandle }
                }
            }
        } catch {
            throw .link(error, context: context)
        }
        guard found else {
            throw BeaconProfileError(
                context: context, kind: .notThisProfile("no service \(definition.service), which the \(definition.name) profile configures through"))
        }
        var needed: [(CharacteristicKey, String)] = definition.values.compactMap { value, spec in
            value.field == nil ? nil : (CharacteristicKey(service: spec.service, characteristic: spec.characteristic), value.rawValue)
        }
        if let password = definition.password {
            needed.append((CharacteristicKey(service: definition.service, characteristic: password.characteristic), "password"))
            if let state = password.state { needed.append((CharacteristicKey(service: definition.service, characteristic: state), "password state")) }
        }
        if let commit = definition.commit {
            needed.append((CharacteristicKey(service: definition.service, characteristic: commit.characteristic), "commit"))
        }
        if let missing = needed.sorted(by: { $0.1 < $1.1 }).first(where: { handles[$0.0] == nil }) {
            throw BeaconProfileError(
                context: context,
                kind: .notThisProfile("service \(missing.0.service) has no characteristic \(missing.0.characteristic) (\(missing.1) in the \(definition.name) profile)"))
        }
        return DeclarativeProfile(definition: definition, gatt: gatt, handles: handles)
    }

    // MARK: BeaconProfile

    /// Writes the password as the table says, then reads the refusal the way it says: an
    /// ATT error on the write, the link ending, or a state characteristic read back.
    public func authenticate(_ password: BeaconPassword) async throws(BeaconProfileError) -> AuthenticationOutcome {
        guard !attempted else { throw failure(.authenticationAlreadyAttempted) }
        attempted = true
        guard let spec = definition.password else {
            // The table has no password: the beacon takes configuration from anyone.
            accepted = true
            return .accepted
        }
        let bytes: [UInt8]
        switch PasswordEncoding.bytes(of: password, as: spec.form) {
        case .success(let encoded): bytes = encoded
        case .failure(let why): throw failure(.invalidPassword(why.description))
        }
        do throws(LECentralError) {
            try await gatt.write(try handle(definition.service, spec.characteristic), bytes)
        } catch {
            if case .attribute = error.kind, spec.refusal == .attError { return .refused(.refusedByBeacon) }
            if case .disconnected = error.kind, spec.refusal == .disconnect { return .refused(.refusedByBeacon) }
            throw .link(error, context: context)
        }
        switch spec.refusal {
        case .attError:
            break
        case .disconnect:
            // A beacon that ends the link on a wrong password does it on the next request
            // at the latest: read the password characteristic's neighbour, the identity.
            do throws(LECentralError) {
                _ = try await gatt.read(try handle(spec: definition.values[.setting(.uuid)]))
            } catch {
                if case .disconnected = error.kind { return .refused(.refusedByBeacon) }
                throw .link(error, context: context)
            }
        case .readBack:
            guard let state = spec.state, let acceptedState = spec.acceptedState else { return .refused(.refusedByBeacon) }
            let value = try await read(definition.service, state)
            guard value == [acceptedState] else { return .refused(.refusedByBeacon) }
        }
        accepted = true
        return .accepted
    }

    public func read() async throws(BeaconProfileError) -> BeaconReading {
        guard accepted else { throw failure(.notAuthenticated) }
        var settings = BeaconSettings()
        var reading = BeaconReading(settings: settings)
        for value in ProfileValue.allCases {
            guard let spec = definition.values[value] else { continue }
            let key = CharacteristicKey(service: spec.service, characteristic: spec.characteristic)
            // The read-only values are optional: a beacon without them is still configured.
            guard handles[key] != nil else { continue }
            let bytes = try await read(spec.service, spec.characteristic)
            switch value {
            case .setting(.uuid):
                settings.uuid = try decoded(value, ValueEncoding.decodeUUID(bytes))
            case .setting(.major):
                settings.major = UInt16(exactly: try decoded(value, spec.encoding.decodeNumber(bytes)))
            case .setting(.minor):
                settings.minor = UInt16(exactly: try decoded(value, spec.encoding.decodeNumber(bytes)))
            case .setting(.measuredPower):
                settings.measuredPower = try decoded(value, spec.encoding.decodeNumber(bytes))
            case .setting(.txPower):
                settings.txPower = try decoded(value, spec.encoding.decodeNumber(bytes))
            case .setting(.advertisingInterval):
                settings.advertisingInterval = try decoded(value, spec.encoding.decodeNumber(bytes))
            case .readOnly(.battery):
                reading.batteryPercent = try decoded(value, spec.encoding.decodeNumber(bytes))
            case .readOnly(.model), .readOnly(.firmware):
                guard case .ascii(let maxLength) = spec.encoding else { continue }
                let text = try decoded(value, ValueEncoding.decodeASCII(bytes, maxLength: maxLength))
                if value == .readOnly(.model) { reading.model = text } else { reading.firmware = text }
            }
        }
        reading.settings = settings
        return reading
    }

    public func write(_ fields: [BeaconField], of target: BeaconSettings, current: BeaconReading) async throws(BeaconProfileError) {
        guard accepted else { throw failure(.notAuthenticated) }
        // Every value is encoded before the first write, so that one that cannot be leaves
        // the beacon untouched.
        var writes: [(CharacteristicSpec, [UInt8])] = []
        for field in fields {
            guard let spec = definition.values[.setting(field)] else {
                throw failure(.unsupported(field, whyNotWritable(field)))
            }
            let bytes: [UInt8]
            if field == .uuid {
                guard let uuid = target.uuid else { continue }
                bytes = ValueEncoding.uuidBytes(uuid)
            } else {
                guard let number = Self.number(of: field, in: target) else { continue }
                switch spec.encoding.encodeNumber(number) {
                case .success(let encoded): bytes = encoded
                case .failure(let why): throw failure(.invalidValue(field, why.description))
                }
            }
            writes.append((spec, bytes))
        }
        for (spec, bytes) in writes {
            try await write(spec.service, spec.characteristic, bytes)
        }
        if let commit = definition.commit, !writes.isEmpty {
            try await write(definition.service, commit.characteristic, commit.value)
        }
    }

    public func changePassword(to newPassword: BeaconPassword) async throws(BeaconProfileError) {
        guard accepted else { throw failure(.notAuthenticated) }
        guard let spec = definition.password, let characteristic = spec.newPassword else {
            throw failure(.invalidPassword(problem(with: newPassword) ?? "the profile cannot change the password"))
        }
        switch PasswordEncoding.bytes(of: newPassword, as: spec.form) {
        case .success(let bytes): try await write(definition.service, characteristic, bytes)
        case .failure(let why): throw failure(.invalidPassword(why.description))
        }
    }

    // MARK: Attributes

    static func number(of field: BeaconField, in settings: BeaconSettings) -> Int? {
        switch field {
        case .uuid: nil
        case .major: settings.major.map(Int.init)
        case .minor: settings.minor.map(Int.init)
        case .measuredPower: settings.measuredPower
        case .txPower: settings.txPower
        case .advertisingInterval: settings.advertisingInterval
        }
    }

    private func handle(_ service: AttributeUUID, _ characteristic: AttributeUUID) throws(LECentralError) -> UInt16 {
        guard let handle = handles[CharacteristicKey(service: service, characteristic: characteristic)] else {
            throw LECentralError(context: gatt.att.context, kind: .invalidRequest("no characteristic \(characteristic) in service \(service)"))
        }
        return handle
    }

    private func handle(spec: CharacteristicSpec?) throws(LECentralError) -> UInt16 {
        guard let spec else { throw LECentralError(context: gatt.att.context, kind: .invalidRequest("the profile has no uuid characteristic")) }
        return try handle(spec.service, spec.characteristic)
    }

    private func read(_ service: AttributeUUID, _ characteristic: AttributeUUID) async throws(BeaconProfileError) -> [UInt8] {
        do throws(LECentralError) {
            return try await gatt.read(try handle(service, characteristic))
        } catch {
            throw .link(error, context: context)
        }
    }

    private func write(_ service: AttributeUUID, _ characteristic: AttributeUUID, _ value: [UInt8]) async throws(BeaconProfileError) {
        do throws(LECentralError) {
            try await gatt.write(try handle(service, characteristic), value)
        } catch {
            throw .link(error, context: context)
        }
    }

    private func decoded<T>(_ value: ProfileValue, _ result: Result<T, ValueDecodingError>) throws(BeaconProfileError) -> T {
        switch result {
        case .success(let decoded): return decoded
        case .failure(let why): throw failure(.malformed("\(value.rawValue) holds \(why)"))
        }
    }

    private func failure(_ kind: BeaconProfileError.Kind) -> BeaconProfileError {
        BeaconProfileError(context: context, kind: kind)
    }
}

/// A password's bytes in the form a profile gives.
enum PasswordEncoding {
    static func bytes(of password: BeaconPassword, as form: PasswordSpec.Form) -> Result<[UInt8], ValueEncodingError> {
        switch form {
        case .ascii(let length):
            guard password.isPrintableASCII else { return .failure(ValueEncodingError("the password must be printable ASCII")) }
            if let length, password.byteCount != length {
                return .failure(ValueEncodingError("the password must be \(length) characters long (it is \(password.byteCount))"))
            }
            guard (1...20).contains(password.byteCount) else { return .failure(ValueEncodingError("the password must be 1…20 characters long")) }
            return .success(password.utf8)
        case .hex(let length):
            guard password.byteCount == 2 * length, let bytes = HexDigit.bytes(password.utf8) else {
                return .failure(ValueEncodingError("the password must be \(2 * length) hexadecimal digits (\(length) bytes)"))
            }
            return .success(bytes)
        case .number(let layout):
            let digits = password.utf8
            guard !digits.isEmpty, digits.count <= 10, digits.allSatisfy({ (0x30...0x39).contains($0) }),
                let value = Int(String(decoding: digits, as: UTF8.self)), let bytes = layout.encode(value)
            else {
                return .failure(ValueEncodingError("the password must be a decimal number \(layout.range.lowerBound)…\(layout.range.upperBound)"))
            }
            return .success(bytes)
        }
    }
}
