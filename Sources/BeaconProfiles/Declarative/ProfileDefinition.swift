import LECentral

/// A vendor's characteristic table as a declarative profile file describes it (the format is
/// docs/profiles.md): which GATT characteristic holds each value and how its bytes read,
/// how the password is given and refused, whether writes need a commit, and how the beacon
/// is recognised. `DeclarativeProfile` runs it; `ProfileDefinitionReader` reads it.
public struct ProfileDefinition: Hashable, Sendable {
    /// The name `--profile NAME` takes.
    public var name: String
    public var vendor: String?
    /// The vendor document the table comes from (title, URL, version).
    public var source: String
    /// The vendor's configuration service.
    public var service: AttributeUUID
    public var values: [ProfileValue: CharacteristicSpec]
    public var password: PasswordSpec?
    public var commit: CommitSpec?
    public var recognition: RecognitionSpec?
    /// Where the definition came from (`shipped:NAME` or a file path), for messages.
    public var origin: String

    public init(
        name: String, vendor: String? = nil, source: String, service: AttributeUUID, values: [ProfileValue: CharacteristicSpec],
        password: PasswordSpec? = nil, commit: CommitSpec? = nil, recognition: RecognitionSpec? = nil, origin: String
    ) {
        self.name = name
        self.vendor = vendor
        self.source = source
        self.service = service
        self.values = values
        self.password = password
        self.commit = commit
        self.recognition = recognition
        self.origin = origin
    }
}

/// The values a profile file may map to characteristics, under their names in the file: the
/// settings beaconctl writes and what a beacon says about itself (read only).
public enum ProfileValue: RawRepresentable, CaseIterable, Hashable, Sendable {
    case setting(BeaconField)
    case readOnly(ReadOnly)

    /// What a beacon says about itself and no profile writes.
    public enum ReadOnly: String, CaseIterable, Hashable, Sendable {
        case model
        case firmware
        case battery
    }

    /// The settings in `BeaconField` order, then the read-only values.
    public static let allCases = BeaconField.allCases.map(Self.setting) + ReadOnly.allCases.map(Self.readOnly)

    public init?(rawValue: String) {
        guard let value = BeaconField(rawValue: rawValue).map(Self.setting) ?? ReadOnly(rawValue: rawValue).map(Self.readOnly) else {
            return nil
        }
        self = value
    }

    /// Its name in a profile file (`measured-power`, `battery`).
    public var rawValue: String {
        switch self {
        case .setting(let field): field.rawValue
        case .readOnly(let value): value.rawValue
        }
    }

    /// The setting it is, `nil` for the read-only values.
    public var field: BeaconField? {
        guard case .setting(let field) = self else { return nil }
        return field
    }
}

/// One characteristic and how its bytes encode a value.
public struct CharacteristicSpec: Hashable, Sendable {
    /// The service it is in (the profile's own unless the file names another, such as the
    /// standard Device Information 0x180A or Battery 0x180F).
    public var service: AttributeUUID
    public var characteristic: AttributeUUID
    public var encoding: ValueEncoding

    public init(service: AttributeUUID, characteristic: AttributeUUID, encoding: ValueEncoding) {
        self.service = service
        self.characteristic = characteristic
        self.encoding = encoding
    }
}

/// How the password reaches the beacon and how the beacon says no.
public struct PasswordSpec: Hashable, Sendable {
    public enum Form: Hashable, Sendable {
        /// The password's text as ASCII; `length` when the vendor fixes it.
        case ascii(length: Int?)
        /// The password written as hexadecimal digits, sent as those bytes (`length` bytes).
        case hex(length: Int)
        /// The password written as a decimal number, sent as an unsigned integer.
        case number(IntegerLayout)
    }

    public enum Refusal: String, Hashable, Sendable, CaseIterable {
        /// The write of a wrong password is answered with an ATT Error Response.
        case attError = "att-error"
        /// The beacon ends the connection after a wrong password.
        case disconnect
        /// The write succeeds either way; a state characteristic says whether it was taken.
        case readBack = "read-back"
    }

    public var characteristic: AttributeUUID
    public var form: Form
    public var refusal: Refusal
    /// For `read-back`: the characteristic read after the write, and the one-byte value
    /// that means "accepted".
    public var state: AttributeUUID?
    public var acceptedState: UInt8?
    /// Where a new password is written once the old one was accepted; `nil` when the
    /// vendor's table gives no way to change it.
    public var newPassword: AttributeUUID?

    public init(
        characteristic: AttributeUUID, form: Form, refusal: Refusal, state: AttributeUUID? = nil, acceptedState: UInt8? = nil,
        newPassword: AttributeUUID? = nil
    ) {
        self.characteristic = characteristic
        self.form = form
        self.refusal = refusal
        self.state = state
        self.acceptedState = acceptedState
        self.newPassword = newPassword
    }
}

/// A characteristic written once after the values, for beacons that apply writes only on
/// a "save" (`value`, the bytes the vendor documents).
public struct CommitSpec: Hashable, Sendable {
    public var characteristic: AttributeUUID
    public var value: [UInt8]

    public init(characteristic: AttributeUUID, value: [UInt8]) {
        self.characteristic = characteristic
        self.value = value
    }
}

/// What an advertisement must show for `--profile auto` to choose this profile: every
/// part given must match.
public struct RecognitionSpec: Hashable, Sendable {
    /// A 16- or 128-bit service UUID in the advertised service lists.
    public var advertisedService: AttributeUUID?
    /// The start of the advertised local name (shortened or complete).
    public var namePrefix: String?
    /// The company identifier of a manufacturer-specific data structure.
    public var manufacturerID: UInt16?

    public init(advertisedService: AttributeUUID? = nil, namePrefix: String? = nil, manufacturerID: UInt16? = nil) {
        self.advertisedService = advertisedService
        self.namePrefix = namePrefix
        self.manufacturerID = manufacturerID
    }
}
