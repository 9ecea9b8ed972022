/// Finds what an unknown key was probably meant to be.
enum FieldSuggestion {
    /// A hint for an unknown key in a mapping of `kind`: the closest allowed field, or where
    /// the field belongs when it exists elsewhere in the schema, or the list of allowed fields.
    static func hint(forUnknownKey key: String, in kind: ManifestMappingKind) -> String {
        if key == "<<" {
            return "YAML merge keys are not supported; put shared values in `defaults:` or on the venue"
        }
        // No field name is longer than this; a longer key is no typo of one, and comparing
        // it would cost time proportional to its length for nothing.
        guard key.utf8.count <= 64 else {
            return "fields of \(kind.phrase): " + kind.fields.map(\.key).joined(separator: ", ")
        }
        let normalized = snakeCased(key)
        if let exact = kind.fields.first(where: { $0.key == normalized }) {
            return "did you mean `\(exact.key)`?"
        }
        let scored = kind.fields.map { field in
            (field, editDistance(Array(normalized.utf8), Array(field.key.utf8)))
        }
        if let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= tolerance(for: best.0.key) {
            return "did you mean `\(best.0.key)`?"
        }
        if let field = ManifestField(key: normalized),
            let home = ManifestMappingKind.allCases.first(where: { $0.allows(field) })
        {
            return "`\(field.key)` belongs to \(home.phrase), not \(kind.phrase)"
        }
        return "fields of \(kind.phrase): " + kind.fields.map(\.key).joined(separator: ", ")
    }

    /// Typos worth correcting: one edit in a short name, two in a longer one.
    private static func tolerance(for name: String) -> Int {
        name.utf8.count <= 4 ? 1 : 2
    }

    /// `measuredPower`, `Measured-Power` and `measured power` all become `measured_power`.
    static func snakeCased(_ key: String) -> String {
        var result = ""
        var previousWasLower = false
        for character in key.unicodeScalars {
            if character == "-" || character == " " {
                result.unicodeScalars.append("_")
                previousWasLower = false
            } else if character.properties.isUppercase {
                if previousWasLower { result.unicodeScalars.append("_") }
                result += String(character).lowercased()
                previousWasLower = false
            } else {
                result.unicodeScalars.append(character)
                previousWasLower = character.properties.isLowercase
            }
        }
        return result
    }

    /// Optimal-string-alignment distance: insertions, deletions, substitutions and swaps of
    /// neighbours each cost 1 (a swapped pair is the most common typo in a key).
    static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var beforePrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                var best = min(previous[j] + 1, current[j - 1] + 1, substitution)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    best = min(best, beforePrevious[j - 2] + 1)
                }
                current[j] = best
            }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        return previous[b.count]
    }
}
