import BeaconCore
import YAMLDocument

/// Where, in a manifest's bytes, one beacon's mapping keeps the value of a key
/// (`measured_power`, `mac`), or where a line with that key would go: found from libyaml's events and their marks, so
/// that the edit touches the bytes of one scalar and nothing else.
struct BeaconMappingLayout {
    struct Insertion {
        /// Byte offset where the new text goes.
        var offset: Int
        /// Spaces before the key on a new line (the column of the mapping's keys).
        var indentation: Int
        /// The mapping's first value ends the file without a line break: the new line
        /// starts with one instead of ending with one.
        var needsLineBreakBefore: Bool
        /// The line break the surrounding text uses (`\n` or `\r\n`).
        var lineBreak: [UInt8]
    }

    /// The bytes of the existing value (quotes included), when the beacon has the key.
    var existingValue: Range<Int>?
    /// `{id: …, minor: …}` rather than one key per line.
    var isFlow: Bool
    var insertion: Insertion

    /// The layout of the beacon mapping that starts at `beacon`'s line and column.
    static func find(at beacon: SourceLocation, in bytes: [UInt8], key: String) throws(ManifestEditError) -> BeaconMappingLayout {
        let text = ManifestText(bytes)
        var scan = Scan(target: Mark(line: Int32(clamping: beacon.line), column: Int32(clamping: beacon.column)), key: key)
        let wellFormed: Bool = bytes.withUnsafeBufferPointer { buffer in
            var events = YAMLEventSource(bytes: buffer, maxDepth: 256)
            do {
                while try scan.step(&events, text: text) {}
                return true
            } catch {
                return false
            }
        }
        if !wellFormed {
            throw ManifestEditError(file: beacon.file, "is not well-formed YAML any more; run \(UserCommand.fleetValidate) on it")
        }
        guard scan.foundTarget else {
            throw ManifestEditError(file: beacon.file, "no beacon mapping starts at line \(beacon.line), column \(beacon.column) (did the file change since it was loaded?)")
        }
        if let problem = scan.problem { throw ManifestEditError(file: beacon.file, problem) }
        if let existing = scan.existingValue {
            return BeaconMappingLayout(
                existingValue: existing, isFlow: scan.isFlow,
                insertion: Insertion(offset: existing.upperBound, indentation: 0, needsLineBreakBefore: false, lineBreak: [0x0A]))
        }
        guard let firstValueEnd = scan.firstValueEnd, let firstKeyOffset = scan.firstKeyOffset else {
            throw ManifestEditError(file: beacon.file, "the beacon at line \(beacon.line) has no key with a one-line value after which `\(key):` could be added; add `\(key):` to it by hand")
        }
        if scan.isFlow {
            return BeaconMappingLayout(
                existingValue: nil, isFlow: true,
                insertion: Insertion(offset: firstValueEnd, indentation: 0, needsLineBreakBefore: false, lineBreak: [0x0A]))
        }
        let indentation = text.characterCount(from: text.start(ofLineContaining: firstKeyOffset), to: firstKeyOffset)
        if let lineEnd = text.nextLineBreak(from: firstValueEnd) {
            return BeaconMappingLayout(
                existingValue: nil, isFlow: false,
                insertion: Insertion(offset: lineEnd.upperBound, indentation: indentation, needsLineBreakBefore: false, lineBreak: Array(bytes[lineEnd])))
        }
        return BeaconMappingLayout(
            existingValue: nil, isFlow: false,
            insertion: Insertion(offset: bytes.count, indentation: indentation, needsLineBreakBefore: true, lineBreak: Array(text.newline.utf8)))
    }
}

extension BeaconMappingLayout {
    /// Follows the event stream, tracking which mapping key each value belongs to.
    fileprivate struct Scan {
        struct Frame {
            var isMapping: Bool
            var expectingKey = true
            var key: String?
        }

        let target: Mark
        var stack: [Frame] = []
        var targetDepth: Int?
        var foundTarget = false
        var isFlow = false
        var firstKeyOffset: Int?
        var firstValueEnd: Int?
        var sawFirstValue = false
        var existingValue: Range<Int>?
        var problem: String?
        /// The key whose value is looked for.
        let targetKey: String

        init(target: Mark, key: String) {
            self.target = target
            self.targetKey = key
        }

        /// Handles one event; `false` once the beacon's mapping has ended (or the stream).
        mutating func step(_ events: inout YAMLEventSource, text: ManifestText) throws(YAMLStreamFailure) -> Bool {
            let bytes = text.bytes
            let kind = try events.advance()
            let atTarget = targetDepth != nil && stack.count == targetDepth
            switch kind {
            case .streamEnd:
                return false
            case .mappingStart, .sequenceStart:
                if atTarget { noteTargetValue(span: nil, description: "a nested collection") }
                consumeValue()
                stack.append(Frame(isMapping: kind == .mappingStart))
                if kind == .mappingStart, targetDepth == nil, events.mark == target {
                    targetDepth = stack.count
                    foundTarget = true
                    let start = text.offset(of: events.mark)
                    isFlow = start.map { $0 < bytes.count && bytes[$0] == UInt8(ascii: "{") } ?? false
                }
            case .mappingEnd, .sequenceEnd:
                if atTarget { return false }
                stack.removeLast()
            case .scalar, .alias:
                guard let top = stack.last else { return true }
                if top.isMapping && top.expectingKey {
                    stack[stack.count - 1].key = kind == .alias ? "*" : String(decoding: events.scalarBytes, as: UTF8.self)
                    stack[stack.count - 1].expectingKey = false
                    if atTarget && firstKeyOffset == nil { firstKeyOffset = text.offset(of: events.mark) }
                    return true
                }
                if atTarget {
                    if kind == .alias {
                        noteTargetValue(span: nil, description: "an alias")
                    } else {
                        noteTargetValue(span: Self.span(of: &events, text: text), description: "a value over several lines")
                    }
                }
                consumeValue()
            default:
                break
            }
            return true
        }

        /// The value just read completes its mapping's key/value pair.
        private mutating func consumeValue() {
            guard let top = stack.last, top.isMapping, !top.expectingKey else { return }
            stack[stack.count - 1].expectingKey = true
        }

        private mutating func noteTargetValue(span: Range<Int>?, description: String) {
            let key = stack.last?.key
            if !sawFirstValue {
                sawFirstValue = true
                firstValueEnd = span?.upperBound
            }
            guard key == targetKey, existingValue == nil, problem == nil else { return }
            if let span {
                existingValue = span
            } else {
                problem = "the beacon's `\(targetKey)` is \(description), not a one-line value; set it by hand"
            }
        }

        /// The bytes of the current scalar in the text, quotes included; `nil` when it is a
        /// block scalar or spans lines (then it is not edited in place).
        private static func span(of events: inout YAMLEventSource, text: ManifestText) -> Range<Int>? {
            let bytes = text.bytes
            guard let start = text.offset(of: events.mark), start < bytes.count else { return nil }
            switch events.scalarStyle {
            case .plain:
                let value = events.scalarBytes
                let end = start + value.count
                guard end <= bytes.count, bytes[start..<end].elementsEqual(value) else { return nil }
                return start..<end
            case .quoted:
                let quote = bytes[start]
                var index = start + 1
                while index < bytes.count {
                    let byte = bytes[index]
                    if byte == 0x0A || byte == 0x0D { return nil }
                    if quote == UInt8(ascii: "\"") && byte == UInt8(ascii: "\\") {
                        index += 2
                        continue
                    }
                    if byte == quote {
                        // '' inside single quotes is an escaped quote, not the end.
                        if quote == UInt8(ascii: "'"), index + 1 < bytes.count, bytes[index + 1] == quote {
                            index += 2
                            continue
                        }
                        return start..<(index + 1)
                    }
                    index += 1
                }
                return nil
            case .block:
                return nil
            }
        }
    }
}
