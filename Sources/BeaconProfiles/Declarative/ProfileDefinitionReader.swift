import BeaconCore
import LECentral
import YAMLDocument

/// Reads a declarative profile file (docs/profiles.md) as strictly as a manifest: an
/// unknown key, a value of the wrong type, a characteristic used twice, a length that does
/// not fit its encoding, an encoding that does not fit its value or a missing required key
/// is a problem at its line and column, and the file is not used.
public enum ProfileDefinitionReader {
    /// Profile files are a few kilobytes; anything beyond this is not one.
    public static let maximumFileSize = 64 * 1024

    /// The names beaconctl's own profiles and `auto` take; a file cannot reuse them.
    public static let reservedNames: Set<String> = ["auto", "kbeacon", "eddystone-gatt"]

    /// The mappings of a profile file, for the keys each may hold (the JSON Schema's tests
    /// compare against these).
    enum Mapping: CaseIterable {
        case profile, recognise, password, commit, value
    }

    static let keys: [Mapping: [String]] = [
        .profile: ["version", "profile", "vendor", "source", "service", "recognise", "password", "commit", "values"],
        .recognise: ["advertised-service", "name-prefix", "manufacturer-id"],
        .password: ["characteristic", "encoding", "byte-order", "length", "refusal", "state", "accepted-state", "new-password"],
        .commit: ["characteristic", "value"],
        .value: ["characteristic", "service", "encoding", "byte-order", "length", "unit-ms", "levels"],
    ]

    /// The definition, or every problem found in it.
    public static func read(_ bytes: [UInt8], file: String) -> Result<ProfileDefinition, ProfileFileError> {
        var problems = YAMLProblems(file: file)
        guard bytes.count <= maximumFileSize else {
            problems.report(
                "file-too-large", "the file is \(bytes.count) bytes; a profile is at most \(maximumFileSize)", at: nil,
                hint: "is this the right file?")
            return .failure(ProfileFileError(problems: problems))
        }
        guard let root = YAMLTreeReader.read(bytes, problems: &problems) else { return .failure(ProfileFileError(problems: problems)) }
        let definition = Parser(origin: file).definition(root, problems: &problems)
        guard problems.isEmpty, let definition else { return .failure(ProfileFileError(problems: problems)) }
        return .success(definition)
    }

    private struct Parser {
        let origin: String

        static let topKeys = ProfileDefinitionReader.keys[.profile, default: []]
        static let valueKeys = ProfileDefinitionReader.keys[.value, default: []]
        static let passwordKeys = ProfileDefinitionReader.keys[.password, default: []]

        func definition(_ root: YAMLNode, problems: inout YAMLProblems) -> ProfileDefinition? {
            guard let top = YAMLMapping(root, "a profile", keys: Self.topKeys, problems: &problems) else { return nil }
            if let version = top.required("version", "the format version, 1", problems: &problems) {
                if let number = version.integer("`version`", in: 0...Int.max, problems: &problems), number != 1 {
                    problems.report("unsupported-version", "profile format version \(number) is not one this beaconctl reads", at: version.mark,
                        hint: "write `version: 1`, or update beaconctl")
                }
            }
            let name = top.required("profile", "the name `--profile` takes", problems: &problems).flatMap { profileName($0, problems: &problems) }
            let vendor = top["vendor"].flatMap { $0.text("`vendor`", problems: &problems) }
            let source = top.required("source", "the vendor document the table comes from (title, URL, version)", problems: &problems)
                .flatMap { $0.text("`source`", problems: &problems) }
            let service = top.required("service", "the configuration service's UUID", problems: &problems)
                .flatMap { uuid($0, "`service`", problems: &problems) }
            let recognition = top["recognise"].flatMap { self.recognition($0, problems: &problems) }
            let commit = top["commit"].flatMap { self.commit($0, problems: &problems) }
            let password = top["password"].flatMap { self.password($0, problems: &problems) }
            var values: [ProfileValue: CharacteristicSpec] = [:]
            var used: [CharacteristicKey: (String, Mark)] = [:]
            if let node = top.required("values", "the characteristic of each value (uuid, major, minor, …)", problems: &problems),
                let mapping = YAMLMapping(node, "`values`", keys: ProfileValue.allCases.map(\.rawValue), problems: &problems)
            {
                for value in ProfileValue.allCases {
                    guard let node = mapping[value.rawValue], let service else { continue }
                    guard let spec = characteristic(node, for: value, defaultService: service, problems: &problems) else { continue }
                    claim(CharacteristicKey(spec.service, spec.characteristic), "`\(value.rawValue)`", at: mapping.keyMark(value.rawValue) ?? node.mark, in: &used, problems: &problems)
                    values[value] = spec
                }
                for required in [BeaconField.uuid, .major, .minor].map(ProfileValue.setting) where mapping[required.rawValue] == nil {
                    problems.report("missing-key", "`values` has no `\(required.rawValue)`", at: mapping.mark,
                        hint: "a profile writes a beacon's iBeacon identity: give the characteristic of uuid, major and minor")
                }
            }
            if let service, let spec = password, let node = top["password"] {
                claim(CharacteristicKey(service, spec.characteristic), "the password", at: node.mark, in: &used, problems: &problems)
                if let state = spec.state {
                    claim(CharacteristicKey(service, state), "the password state", at: node.mark, in: &used, problems: &problems)
                }
                if let newPassword = spec.newPassword, newPassword != spec.characteristic {
                    claim(CharacteristicKey(service, newPassword), "the new password", at: node.mark, in: &used, problems: &problems)
                }
            }
            if let service, let commit, let node = top["commit"] {
                claim(CharacteristicKey(service, commit.characteristic), "the commit", at: node.mark, in: &used, problems: &problems)
            }
            guard let name, let source, let service else { return nil }
            return ProfileDefinition(
                name: name, vendor: vendor, source: source, service: service, values: values, password: password, commit: commit,
                recognition: recognition, origin: origin)
        }

        struct CharacteristicKey: Hashable {
            var service: AttributeUUID
            var characteristic: AttributeUUID
            init(_ service: AttributeUUID, _ characteristic: AttributeUUID) {
                self.service = service
                self.characteristic = characteristic
            }
        }

        /// One characteristic holds one thing: a second use is a problem naming the first.
        func claim(
            _ key: CharacteristicKey, _ what: String, at mark: Mark, in used: inout [CharacteristicKey: (String, Mark)],
            problems: inout YAMLProblems
        ) {
            if let (first, firstMark) = used[key] {
                problems.report(
                    "duplicate-characteristic", "\(what) uses characteristic \(key.characteristic), which \(first) uses already", at: mark,
                    note: "\(first) is at \(firstMark.line):\(firstMark.column)",
                    hint: "each value has a characteristic of its own in a vendor's table: check the UUIDs against the document")
                return
            }
            used[key] = (what, mark)
        }

        func profileName(_ node: YAMLNode, problems: inout YAMLProblems) -> String? {
            guard let name = node.text("`profile`", problems: &problems) else { return nil }
            let allowed = name.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D }
            guard allowed, name.utf8.count <= 40, name.first?.isLetter == true else {
                problems.report("invalid-name", "`profile` is `\(ControlCharacter.escaped(name))`; a profile name is lower-case letters, digits and hyphens, starting with a letter, at most 40", at: node.mark)
                return nil
            }
            guard !ProfileDefinitionReader.reservedNames.contains(name) else {
                problems.report("invalid-name", "`\(name)` is the name of beaconctl's own profile or choice", at: node.mark, hint: "name the profile after its vendor and model")
                return nil
            }
            return name
        }

        /// `FFF0`, `0xFFF0` or a 128-bit UUID, however YAML types the plain text.
        func uuid(_ node: YAMLNode, _ what: String, problems: inout YAMLProblems) -> AttributeUUID? {
            guard case .scalar(let scalar) = node.content, scalar.kind != .null, scalar.style != .block else {
                problems.report("wrong-type", "\(what) must be a UUID (`FFF1` or 128-bit `0000fff1-0000-1000-8000-00805f9b34fb`), not \(node.shape)", at: node.mark)
                return nil
            }
            guard let uuid = AttributeUUID(scalar.text) else {
                problems.report("invalid-uuid", "\(what) is `\(scalar.excerpt)`, not a UUID", at: node.mark,
                    hint: "write 4 hexadecimal digits for a 16-bit UUID (FFF1) or the 8-4-4-4-12 form")
                return nil
            }
            return uuid
        }

        func layout(
            _ encoding: String, byteOrder: YAMLNode?, at mark: Mark, problems: inout YAMLProblems
        ) -> IntegerLayout? {
            let widths: [String: (Int, Bool)] = ["uint8": (1, false), "int8": (1, true), "uint16": (2, false), "int16": (2, true), "uint32": (4, false)]
            guard let (width, signed) = widths[encoding] else { return nil }
            if width == 1 {
                if let byteOrder {
                    problems.report("needless-byte-order", "`byte-order` has no meaning for the one byte of \(encoding)", at: byteOrder.mark, hint: "remove it")
                }
                return IntegerLayout(width: 1, signed: signed)
            }
            guard let byteOrder else {
                problems.report("missing-byte-order", "\(encoding) needs `byte-order: big` or `little`", at: mark,
                    hint: "take it from the vendor's document; if the document does not say, the table is incomplete: do not guess")
                return nil
            }
            guard let order = byteOrder.choice("`byte-order`", of: IntegerLayout.ByteOrder.allCases.map(\.rawValue), problems: &problems) else { return nil }
            return IntegerLayout(width: width, signed: signed, byteOrder: IntegerLayout.ByteOrder(rawValue: order) ?? .little)
        }

        /// Which encodings each value may take, for the message when another is given.
        static let encodings: [ProfileValue: [String]] = [
            .setting(.uuid): ["uuid"], .setting(.major): ["uint16"], .setting(.minor): ["uint16"], .setting(.measuredPower): ["int8"],
            .setting(.txPower): ["int8", "uint8", "uint16"], .setting(.advertisingInterval): ["uint16", "uint32"],
            .readOnly(.model): ["ascii"], .readOnly(.firmware): ["ascii"], .readOnly(.battery): ["uint8"],
        ]

        func characteristic(
            _ node: YAMLNode, for value: ProfileValue, defaultService: AttributeUUID, problems: inout YAMLProblems
        ) -> CharacteristicSpec? {
            let what = "`\(value.rawValue)`"
            guard let mapping = YAMLMapping(node, what, keys: Self.valueKeys, problems: &problems) else { return nil }
            let characteristic = mapping.required("characteristic", "the characteristic's UUID", problems: &problems)
                .flatMap { uuid($0, "\(what)'s `characteristic`", problems: &problems) }
            let service = mapping["service"].map { uuid($0, "\(what)'s `service`", problems: &problems) } ?? defaultService
            guard let encodingNode = mapping.required("encoding", "how its bytes read (\(Self.encodings[value, default: []].joined(separator: ", ")))", problems: &problems),
                let encodingName = encodingNode.choice("\(what)'s `encoding`", of: Self.encodings[value, default: []], problems: &problems)
            else { return nil }
            var encoding: ValueEncoding?
            let levelsNode = mapping["levels"]
            let unitNode = mapping["unit-ms"]
            switch encodingName {
            case "uuid":
                encoding = .uuid
            case "ascii":
                let length = mapping.required("length", "the most bytes the text takes (1…248)", problems: &problems)
                    .flatMap { $0.integer("\(what)'s `length`", in: 1...248, problems: &problems) }
                encoding = length.map { .ascii(maxLength: $0) }
            default:
                guard let layout = layout(encodingName, byteOrder: mapping["byte-order"], at: encodingNode.mark, problems: &problems) else { return nil }
                if value == .setting(.advertisingInterval) {
                    guard let unitNode = mapping.required("unit-ms", "the length of one unit in milliseconds (1, or 0.625 for Bluetooth slots)", problems: &problems),
                        let unit = unitNode.number("\(what)'s `unit-ms`", in: 0.001...10_000, problems: &problems)
                    else { return nil }
                    guard let micro = Int(checked: unit * 1000), abs(Double(micro) - unit * 1000) < 1e-6 else {
                        problems.report("value-out-of-range", "\(what)'s `unit-ms` must be a whole number of microseconds", at: unitNode.mark)
                        return nil
                    }
                    encoding = .interval(layout, unitMicroseconds: micro)
                } else if value == .setting(.txPower), !layout.signed {
                    guard let levelsNode else {
                        problems.report("missing-key", "\(what) as \(encodingName) needs `levels`: the dBm of each value 0, 1, 2, …", at: mapping.mark,
                            hint: "take the table from the vendor's document, or use `encoding: int8` if the beacon takes dBm")
                        return nil
                    }
                    guard let items = levelsNode.list("\(what)'s `levels`", problems: &problems) else { return nil }
                    let levels = items.compactMap { $0.integer("a level", in: -127...20, problems: &problems) }
                    guard levels.count == items.count else { return nil }
                    guard !levels.isEmpty, levels.count <= 256 else {
                        problems.report("value-out-of-range", "\(what)'s `levels` must list 1…256 powers in dBm", at: levelsNode.mark)
                        return nil
                    }
                    if Set(levels).count != levels.count {
                        problems.report("duplicate-level", "\(what)'s `levels` lists a power twice; a level must name one power", at: levelsNode.mark)
                        return nil
                    }
                    encoding = .levels(layout, levels: levels)
                } else {
                    encoding = .integer(layout)
                }
            }
            if let levelsNode, !(encoding.map { if case .levels = $0 { true } else { false } } ?? true) {
                problems.report("unused-key", "`levels` is for a tx-power given as a level (uint8, uint16)", at: levelsNode.mark, hint: "remove it")
            }
            if let unitNode, value != .setting(.advertisingInterval) {
                problems.report("unused-key", "`unit-ms` is for advertising-interval", at: unitNode.mark, hint: "remove it")
            }
            if let byteOrderNode = mapping["byte-order"], encodingName == "uuid" || encodingName == "ascii" {
                problems.report("needless-byte-order", "`byte-order` has no meaning for \(encodingName)", at: byteOrderNode.mark,
                    hint: encodingName == "uuid" ? "a uuid is written most significant byte first, as in the iBeacon frame" : "remove it")
            }
            if let encoding, let lengthNode = mapping["length"], encodingName != "ascii",
                let length = lengthNode.integer("\(what)'s `length`", in: 1...512, problems: &problems), length != encoding.length
            {
                problems.report(
                    "length-mismatch", "\(what) is \(length) bytes long, but \(encodingName) takes \(encoding.length)", at: lengthNode.mark,
                    hint: "check the length and the encoding against the vendor's table")
                return nil
            }
            guard let characteristic, let service, let encoding else { return nil }
            return CharacteristicSpec(service: service, characteristic: characteristic, encoding: encoding)
        }

        func password(_ node: YAMLNode, problems: inout YAMLProblems) -> PasswordSpec? {
            guard let mapping = YAMLMapping(node, "`password`", keys: Self.passwordKeys, problems: &problems) else { return nil }
            let characteristic = mapping.required("characteristic", "the characteristic the password is written to", problems: &problems)
                .flatMap { uuid($0, "the password's `characteristic`", problems: &problems) }
            let refusal = mapping.required("refusal", "how a wrong password shows: att-error, disconnect or read-back", problems: &problems)
                .flatMap { $0.choice("`refusal`", of: PasswordSpec.Refusal.allCases.map(\.rawValue), problems: &problems) }
                .flatMap(PasswordSpec.Refusal.init(rawValue:))
            var form: PasswordSpec.Form?
            if let encodingNode = mapping.required("encoding", "ascii, hex or uint16", problems: &problems),
                let name = encodingNode.choice("the password's `encoding`", of: ["ascii", "hex", "uint16", "uint32"], problems: &problems)
            {
                let length = mapping["length"].flatMap { $0.integer("the password's `length`", in: 1...20, problems: &problems) }
                switch name {
                case "ascii":
                    form = .ascii(length: length)
                case "hex":
                    if let length { form = .hex(length: length) } else {
                        problems.report("missing-key", "a hex password needs `length`: how many bytes it is", at: mapping.mark)
                    }
                default:
                    if let layout = layout(name, byteOrder: mapping["byte-order"], at: encodingNode.mark, problems: &problems) {
                        if let length, length != layout.width, let node = mapping["length"] {
                            problems.report("length-mismatch", "the password is \(length) bytes long, but \(name) takes \(layout.width)", at: node.mark)
                        } else {
                            form = .number(layout)
                        }
                    }
                }
            }
            let state = mapping["state"].flatMap { uuid($0, "the password's `state`", problems: &problems) }
            let accepted = mapping["accepted-state"].flatMap { $0.integer("`accepted-state`", in: 0...255, problems: &problems) }
            if refusal == .readBack {
                if mapping["state"] == nil {
                    problems.report("missing-key", "a read-back refusal needs `state`: the characteristic read after the password", at: mapping.mark)
                }
                if mapping["accepted-state"] == nil {
                    problems.report("missing-key", "a read-back refusal needs `accepted-state`: the byte that means accepted", at: mapping.mark)
                }
            } else if let refusal {
                for key in ["state", "accepted-state"] {
                    if let extra = mapping.keyMark(key) {
                        problems.report("unused-key", "`\(key)` is for `refusal: read-back`, not \(refusal.rawValue)", at: extra, hint: "remove it")
                    }
                }
            }
            let newPassword = mapping["new-password"].flatMap { uuid($0, "`new-password`", problems: &problems) }
            guard let characteristic, let refusal, let form else { return nil }
            return PasswordSpec(
                characteristic: characteristic, form: form, refusal: refusal, state: state, acceptedState: accepted.map { UInt8(truncatingIfNeeded: $0) },
                newPassword: newPassword)
        }

        func commit(_ node: YAMLNode, problems: inout YAMLProblems) -> CommitSpec? {
            guard let mapping = YAMLMapping(node, "`commit`", keys: ProfileDefinitionReader.keys[.commit, default: []], problems: &problems) else { return nil }
            let characteristic = mapping.required("characteristic", "the save characteristic's UUID", problems: &problems)
                .flatMap { uuid($0, "the commit's `characteristic`", problems: &problems) }
            var value: [UInt8]?
            if let node = mapping.required("value", "the bytes to write, in hexadecimal (\"01\")", problems: &problems),
                let text = node.text("the commit's `value`", problems: &problems)
            {
                value = HexDigit.bytes(text.utf8)
                if value == nil || value?.isEmpty == true || (value?.count ?? 0) > 20 {
                    problems.report("invalid-hex", "the commit's `value` must be 1…20 bytes as hexadecimal digits (\"01\")", at: node.mark,
                        hint: "quote it, so that YAML reads `01` as text")
                    value = nil
                }
            }
            guard let characteristic, let value else { return nil }
            return CommitSpec(characteristic: characteristic, value: value)
        }

        func recognition(_ node: YAMLNode, problems: inout YAMLProblems) -> RecognitionSpec? {
            guard let mapping = YAMLMapping(node, "`recognise`", keys: ProfileDefinitionReader.keys[.recognise, default: []], problems: &problems) else {
                return nil
            }
            let service = mapping["advertised-service"].flatMap { uuid($0, "`advertised-service`", problems: &problems) }
            let prefix = mapping["name-prefix"].flatMap { $0.text("`name-prefix`", problems: &problems) }
            let company = mapping["manufacturer-id"].flatMap { $0.integer("`manufacturer-id`", in: 0...0xFFFF, problems: &problems) }
            guard service != nil || prefix != nil || company != nil else {
                if mapping["advertised-service"] == nil, mapping["name-prefix"] == nil, mapping["manufacturer-id"] == nil {
                    problems.report("missing-key", "`recognise` gives nothing to recognise the beacon by", at: mapping.mark,
                        hint: "give advertised-service, name-prefix or manufacturer-id, or remove `recognise`")
                }
                return nil
            }
            return RecognitionSpec(advertisedService: service, namePrefix: prefix, manufacturerID: company.map { UInt16(truncatingIfNeeded: $0) })
        }
    }
}

/// A profile file that cannot be used: every problem, each at its line and column.
public struct ProfileFileError: Error, Sendable, CustomStringConvertible {
    public var problems: YAMLProblems

    public var description: String { problems.rendered }
}
