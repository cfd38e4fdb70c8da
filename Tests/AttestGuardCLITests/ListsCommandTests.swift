import AttestTestSupport
import Foundation
import Testing

/// `attestguard lists`: a run-time list created, filled, replaced from a CSV file, trimmed, audited and deleted from
/// the command line, on the store the tests have (PostgreSQL when configured, else SQLite), with its exit codes.
@Suite("attestguard lists")
struct ListsCommandTests {
    /// A fresh, empty store and the environment that configures it.
    static func environment() async throws -> [String: String] {
        if TestPostgres.isEnabled {
            let url = try await TestPostgres.freshSchemaURL(prefix: "l")
            let store = try await TestStore.postgres(url: url, poolSize: 2)
            await store.close()
            return ServerProcess.environment(databaseURL: url, sqlitePath: nil)
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("lists-\(UUID().uuidString).sqlite").path
        let store = try await TestStore.sqlite(path: path)
        await store.close()
        return ServerProcess.environment(databaseURL: nil, sqlitePath: path)
    }

    @Test("create, add with an expiry and a note, replace from CSV, remove, show, changes and delete; each refusal has its exit code")
    func lifecycle() async throws {
        var environment = try await Self.environment()
        environment["USER"] = "analyst-7"
        func lists(_ arguments: String...) async throws -> CommandLineRunner.Result {
            try await CommandLineRunner.run(["lists"] + arguments, environment: environment)
        }

        let created = try await lists("create", "blocked_ips", "--kind", "cidr", "--description", "incident 42")
        #expect(created.status == 0, "\(created.standardError)")
        #expect(created.standardOutput.hasPrefix("created blocked_ips  cidr  0 entries  revision 1"), "\(created.standardOutput)")
        #expect(try await lists("create", "blocked_ips", "--kind", "cidr").status == 1, "a name taken")
        #expect(try await lists("create", "other", "--kind", "regex").status == 2, "an unknown kind")

        let added = try await lists("add", "blocked_ips", "203.0.113.0/24", "2001:db8::/32", "--ttl", "24h", "--note", "scanning", "--json")
        #expect(added.status == 0, "\(added.standardError)")
        let change = try #require(added.json["change"] as? [String: Any])
        #expect(change["action"] as? String == "added")
        #expect(change["added"] as? Int == 2)
        #expect(change["actor"] as? String == "cli:analyst-7")
        let bad = try await lists("add", "blocked_ips", "not-an-address")
        #expect(bad.status == 2, "\(bad.standardOutput)")
        #expect(bad.standardError.contains("not-an-address"), "\(bad.standardError)")
        #expect(try await lists("add", "nothing", "203.0.113.9").status == 1, "no such list")

        let shown = try await lists("show", "blocked_ips", "--json")
        let entries = try #require(shown.json["entries"] as? [[String: Any]])
        #expect(entries.map { $0["value"] as? String } == ["2001:db8::/32", "203.0.113.0/24"])
        #expect(entries.allSatisfy { $0["note"] as? String == "scanning" && $0["expiresAt"] is String && $0["addedBy"] as? String == "cli:analyst-7" })

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("blocked-\(UUID().uuidString).csv")
        try "value,note\n198.51.100.0/24,case 17\n198.51.100.7,case 18\n\"192.0.2.0/24\",\"quoted, with a comma\"\n".write(to: file, atomically: true, encoding: .utf8)
        let replaced = try await lists("replace", "blocked_ips", "--file", file.path)
        #expect(replaced.status == 0, "\(replaced.standardError)")
        #expect(replaced.standardOutput.contains("3 added or updated, 2 removed, 3 entries"), "\(replaced.standardOutput)")
        #expect(try await lists("replace", "blocked_ips").status == 2, "nothing to replace with, without --allow-empty")

        let removed = try await lists("remove", "blocked_ips", "198.51.100.7")
        #expect(removed.standardOutput.contains("0 added or updated, 1 removed, 2 entries"), "\(removed.standardOutput)")
        let text = try await lists("show", "blocked_ips")
        #expect(text.standardOutput.contains("192.0.2.0/24  added"), "\(text.standardOutput)")
        #expect(text.standardOutput.contains("quoted, with a comma"))

        let changes = try await lists("changes", "blocked_ips", "--json")
        let actions = (changes.json["changes"] as? [[String: Any]])?.map { $0["action"] as? String }
        #expect(actions == ["removed", "replaced", "added", "created"], "newest first")
        #expect(try await lists("changes", "--limit", "0").status == 2)

        #expect(try await lists("delete", "blocked_ips").standardOutput == "deleted blocked_ips\n")
        #expect(try await lists("show", "blocked_ips").status == 1)
        #expect(try await lists("list").standardOutput == "no run-time lists\n")
        let audit = try await lists("changes", "--json")
        #expect((audit.json["changes"] as? [[String: Any]])?.first?["action"] as? String == "deleted", "the change log outlives the list")
    }
}
