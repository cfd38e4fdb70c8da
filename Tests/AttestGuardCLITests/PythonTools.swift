import Foundation
import Testing

/// The Python tools a rule repository's CI would read `rules lint|test` output with: jsonschema and junitparser at
/// the versions `scripts/python-tools.sh` pins, driven by `scripts/check-rules-output.py`. Locally their tests need
/// python3 on the PATH; under `CI=true` they run whatever is installed, so that a missing python or a failed install
/// fails them instead of skipping them.
enum PythonTools {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static var available: Bool {
        let environment = ProcessInfo.processInfo.environment
        if environment["CI"] == "true" { return true }
        return (environment["PATH"] ?? "").split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/python3")
        }
    }

    /// What junitparser read in a JUnit report (`check-rules-output.py junit`).
    struct JUnitReading: Decodable {
        struct Outcome: Decodable {
            var kind: String
            var message: String?
            var type: String?
            var text: String?
        }

        struct TestCase: Decodable {
            var name: String
            var classname: String?
            var file: String?
            var line: String?
            var time: Double?
            var results: [Outcome]
        }

        struct Suite: Decodable {
            var name: String
            var tests: Int
            var failures: Int
            var errors: Int
            var skipped: Int
            var time: Double?
            var properties: [String: String]
            var cases: [TestCase]
        }

        var name: String?
        var tests: Int
        var failures: Int
        var errors: Int
        var skipped: Int
        var time: Double?
        var suites: [Suite]

        var cases: [TestCase] { suites.flatMap(\.cases) }
    }

    /// The python of the pinned virtualenv, installed on first use (a lock in the script serialises parallel tests).
    static func python() async throws -> String {
        let result = try await CommandLineRunner.runShell("scripts/python-tools.sh", in: repository, environment: ProcessInfo.processInfo.environment)
        try #require(result.status == 0, "scripts/python-tools.sh failed: \(result.standardError)")
        return result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// jsonschema's verdict on `json` against `docs/schemas/<schema>`: status 0 when valid, the violations otherwise.
    static func validate(_ json: String, schema: String) async throws -> CommandLineRunner.Result {
        let document = try CommandLineRunner.temporaryFile(Array(json.utf8), name: "output.json")
        return try await check(["schema", "docs/schemas/\(schema)", document])
    }

    /// junitparser's reading of `xml`.
    static func readJUnit(_ xml: String) async throws -> JUnitReading {
        let report = try CommandLineRunner.temporaryFile(Array(xml.utf8), name: "report.xml")
        let result = try await check(["junit", report])
        try #require(result.status == 0, "junitparser refused the report: \(result.standardError)\n\(xml)")
        return try JSONDecoder().decode(JUnitReading.self, from: Data(result.standardOutput.utf8))
    }

    private static func check(_ arguments: [String]) async throws -> CommandLineRunner.Result {
        let python = try await python()
        let quoted = ([python, "scripts/check-rules-output.py"] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: #"'\''"#) + "'" }
        return try await CommandLineRunner.runShell(quoted.joined(separator: " "), in: repository, environment: ProcessInfo.processInfo.environment)
    }
}
