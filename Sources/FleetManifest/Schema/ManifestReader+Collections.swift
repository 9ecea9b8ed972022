import YAMLDocument

/// Values that must be mappings or lists, and the items of lists of mappings.
extension ManifestReader {
    /// Moves to a value that must be a mapping; `false` (after reporting, if needed) when
    /// it is not. An empty value (`plan:` with nothing after it) is reported as empty.
    mutating func mappingStart(
        of field: ManifestField, expecting expectation: @autoclosure () -> String
    ) throws(YAMLStreamFailure) -> Bool {
        switch try events.advance() {
        case .mappingStart:
            if let tag = events.explicitTag { reportTag(tag) }
            return true
        case .alias:
            reportAlias()
        case .scalar where ScalarKind(of: currentToken) == .null:
            report(.emptyValue, "`\(field.key)` has no value; it must be \(expectation())", at: events.mark)
        case .scalar, .sequenceStart:
            report(.wrongType, "`\(field.key)` must be \(expectation()), not \(currentShape)", at: events.mark)
            try events.skipNode()
        default:
            throw events.unexpectedEvent()
        }
        return false
    }

    /// Moves to a value that must be a list; `false` when it is not. An empty value
    /// (`regions:` with nothing after it) is an empty list.
    mutating func listStart(
        of field: ManifestField, expecting expectation: @autoclosure () -> String
    ) throws(YAMLStreamFailure) -> Bool {
        switch try events.advance() {
        case .sequenceStart:
            if let tag = events.explicitTag { reportTag(tag) }
            return true
        case .alias:
            reportAlias()
        case .scalar where ScalarKind(of: currentToken) == .null:
            break
        case .scalar, .mappingStart:
            report(.wrongType, "`\(field.key)` must be \(expectation()), not \(currentShape)", at: events.mark)
            try events.skipNode()
        default:
            throw events.unexpectedEvent()
        }
        return false
    }

    /// Inside a list of mappings: `true` when the current item is a mapping; otherwise it
    /// is reported and skipped.
    mutating func isMappingItem(_ itemPhrase: String) throws(YAMLStreamFailure) -> Bool {
        switch events.kind {
        case .mappingStart:
            if let tag = events.explicitTag { reportTag(tag) }
            return true
        case .alias:
            reportAlias()
        default:
            report(.wrongType, "\(itemPhrase), not \(currentShape)", at: events.mark)
            try events.skipNode()
        }
        return false
    }
}
