import Foundation
import Testing

@testable import BeaconProfiles

/// schema/profile.schema.json against the reader it describes, so that neither drifts when
/// a key is added.
@Suite("the profile file's JSON Schema")
struct ProfileSchemaTests {
    private static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private func schema() throws -> [String: Any] {
        let data = try Data(contentsOf: Self.root.appendingPathComponent("schema/profile.schema.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    private func object(_ mapping: ProfileDefinitionReader.Mapping, in schema: [String: Any]) throws -> [String: Any] {
        let properties = try #require(schema["properties"] as? [String: Any])
        switch mapping {
        case .profile: return schema
        case .recognise: return try #require(properties["recognise"] as? [String: Any])
        case .password: return try #require(properties["password"] as? [String: Any])
        case .commit: return try #require(properties["commit"] as? [String: Any])
        case .value:
            let values = try #require((properties["values"] as? [String: Any])?["properties"] as? [String: Any])
            return try #require(values["major"] as? [String: Any])
        }
    }

    @Test("each mapping allows exactly the keys the reader reads", arguments: ProfileDefinitionReader.Mapping.allCases)
    func keys(_ mapping: ProfileDefinitionReader.Mapping) throws {
        let object = try object(mapping, in: try schema())
        let properties = try #require(object["properties"] as? [String: Any])
        #expect(Set(properties.keys) == Set(ProfileDefinitionReader.keys[mapping, default: []]))
        #expect(object["additionalProperties"] as? Bool == false)
    }

    @Test("the values are the reader's, each with the encodings it takes")
    func values() throws {
        let properties = try #require(try schema()["properties"] as? [String: Any])
        let values = try #require((properties["values"] as? [String: Any])?["properties"] as? [String: Any])
        #expect(Set(values.keys) == Set(ProfileValue.allCases.map(\.rawValue)))
        let required = try #require((properties["values"] as? [String: Any])?["required"] as? [String])
        #expect(Set(required) == ["uuid", "major", "minor"])
        #expect(Set(try #require(try schema()["required"] as? [String])) == ["version", "profile", "source", "service", "values"])
    }
}
