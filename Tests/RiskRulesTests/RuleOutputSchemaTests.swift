import Foundation
import RiskRules
import Testing

/// The JSON Schemas of `attestguard rules lint|test --format json` (`docs/schemas/`) list exactly the problem codes
/// and severities ``RuleSetError`` has, and describe a problem and a rule set alike.
struct RuleOutputSchemaTests {
    static let schemas = ["rules-lint-output.schema.json", "rules-test-output.schema.json"]

    static func definitions(_ name: String) throws -> [String: Any] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/schemas/\(name)")
        let schema = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        return try #require(schema["$defs"] as? [String: Any])
    }

    @Test(arguments: schemas)
    func problemCodesAndSeveritiesAreRuleSetErrors(_ name: String) throws {
        let problem = try #require(try Self.definitions(name)["problem"] as? [String: Any])
        let properties = try #require(problem["properties"] as? [String: [String: Any]])
        let codes = try #require(properties["code"]?["enum"] as? [String])
        #expect(codes == RuleSetError.Code.allCases.map(\.rawValue))
        let severities = try #require(properties["severity"]?["enum"] as? [String])
        #expect(severities == RuleSetError.Severity.allCases.map(\.rawValue))
    }

    @Test func bothSchemasDescribeProblemsAndRuleSetsAlike() throws {
        let (lint, test) = (try Self.definitions(Self.schemas[0]), try Self.definitions(Self.schemas[1]))
        for definition in ["problem", "ruleSet"] {
            let text = { (definitions: [String: Any]) throws -> Data in
                try JSONSerialization.data(withJSONObject: try #require(definitions[definition]), options: [.sortedKeys])
            }
            #expect(try text(lint) == text(test), "$defs/\(definition)")
        }
    }
}
