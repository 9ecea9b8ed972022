/// Every problem the manifest loader reports. The raw values are the stable codes that
/// people and tools match on; each is documented with an example in `docs/diagnostics.md`.
enum DiagnosticCode: String, CaseIterable, Sendable {
    // Reading the input
    case unreadableInput = "unreadable-input"
    case fileTooLarge = "file-too-large"
    case linkNotFollowed = "link-not-followed"
    case invalidEncoding = "invalid-encoding"
    case yamlSyntax = "yaml-syntax"
    case emptyDocument = "empty-document"
    case multipleDocuments = "multiple-documents"
    case nestingTooDeep = "nesting-too-deep"
    case yamlAlias = "yaml-alias"
    case yamlTag = "yaml-tag"
    case duplicateKey = "duplicate-key"
    case tooManyDiagnostics = "too-many-diagnostics"

    // The schema
    case unsupportedVersion = "unsupported-version"
    case unknownField = "unknown-field"
    case missingField = "missing-field"
    case wrongType = "wrong-type"
    case ambiguousNumber = "ambiguous-number"
    case ambiguousBoolean = "ambiguous-boolean"
    case emptyValue = "empty-value"
    case valueOutOfRange = "value-out-of-range"
    case controlCharacter = "control-character"

    // Identities and addresses
    case invalidUUID = "invalid-uuid"
    case nilUUID = "nil-uuid"
    case vendorDefaultUUID = "vendor-default-uuid"
    case missingIdentity = "missing-identity"
    case duplicateIdentity = "duplicate-identity"
    case duplicateID = "duplicate-id"
    case invalidMAC = "invalid-mac"
    case duplicateMAC = "duplicate-mac"
    case minorWithoutMajor = "minor-without-major"

    // Radio and deployment plausibility
    case implausibleMeasuredPower = "implausible-measured-power"
    case shortInterval = "short-interval"
    case hostOverCapacity = "host-over-capacity"
    case positionOutsidePlan = "position-outside-plan"
    case unmatchedRegion = "unmatched-region"
    case regionBudget = "region-budget"

    /// Each code always has the same severity, so a code alone tells a tool how bad it is.
    var severity: DiagnosticSeverity {
        switch self {
        case .linkNotFollowed, .vendorDefaultUUID, .implausibleMeasuredPower, .shortInterval, .hostOverCapacity,
            .positionOutsidePlan, .unmatchedRegion, .regionBudget:
            return .warning
        default:
            return .error
        }
    }
}
