import AttestGuardEngine
import AttestTestSupport
import AttestVocabulary
import Foundation
import HTTPTypes
import Testing

/// Run-time lists through HTTP: an analyst creates one, adds, replaces and removes entries as JSON or CSV, and the
/// next verdict reads them (expiry included, at the verdict's clock); bad input is a typed 4xx that changes nothing;
/// a key limited to some apps, or without a write scope, is refused; and a change through one server is in a second
/// server's verdicts within one refresh period.
@Suite("HTTP: run-time lists")
struct ManagedListRouteTests {
    static let rules = """
        version: 1
        lists:
          blocked_ips: { managed: true, kind: cidr }
        rules:
          - id: blocked-ip
            when: request.ip in list("blocked_ips")
            decide: deny
            reason: "{request.ip} is on the blocked list"
        """
    static let readerKey = "test-reader-key-0123456789"

    static func run(_ backend: ServerBackend, postgresURL: String? = nil, _ body: @escaping @Sendable (APIClient) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lists-rules-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.rules.write(to: directory.appendingPathComponent("rules.yaml"), atomically: true, encoding: .utf8)
        let environment = [
            "ATTESTGUARD_RULES_DIRECTORY": directory.path,
            "ATTESTGUARD_APPS_POLICY_RELOAD_SECONDS": "1",
            "ATTESTGUARD_API_KEYS_NAMES": "gateway,narrow,operator,reader",
            "ATTESTGUARD_API_KEYS_READER_SECRET_ENV": "TEST_READER_KEY",
            "ATTESTGUARD_API_KEYS_READER_SCOPES": "analyst",
            "TEST_READER_KEY": readerKey,
        ]
        try await ServerHarness.run(backend, extraEnvironment: environment, postgresURL: postgresURL, body)
    }

    static func decision(_ api: APIClient, ip: String) async throws -> String? {
        let reply = try await api.post("/v1/score", json: ["appId": ServerHarness.appId, "userId": "alice", "ip": ip])
        #expect(reply.status == 200, "\(reply.text)")
        return reply["decision"] as? String
    }

    static func json(_ text: String) -> Data { Data(text.utf8) }

    @Test("create, add with a time to live, replace by CSV, remove, delete: each change is in the next verdict", arguments: ServerBackend.available)
    func lifecycle(backend: ServerBackend) async throws {
        try await Self.run(backend) { api in
            let admin = ServerHarness.adminKey
            #expect(try await Self.decision(api, ip: "203.0.113.9") == "allow")

            // The rules declare the list: the server made it, empty, before it served.
            let declared = try await api.send(.get, "/v1/lists/blocked_ips", apiKey: Self.readerKey)
            let list = try #require(declared["list"] as? [String: Any], "\(declared.text)")
            #expect(list["kind"] as? String == "cidr" && list["revision"] as? Int == 1 && list["createdBy"] as? String == "rules")
            let twice = try await api.post("/v1/lists", json: ["name": "blocked_ips"], apiKey: admin)
            #expect(twice.status == 409 && twice.errorCode == "list_already_exists", "\(twice.text)")
            let created = try await api.post("/v1/lists", json: ["name": "vip_users", "description": "incident 7"], apiKey: admin)
            #expect(created.status == 201, "\(created.text)")
            #expect(created["kind"] as? String == "string" && created["revision"] as? Int == 1 && created["createdBy"] as? String == "operator")

            let added = try await api.post("/v1/lists/blocked_ips/entries", json: [
                "entries": [["value": "203.0.113.7/24", "note": "farm"], ["value": "2001:db8::/32", "ttlSeconds": 60]], "ttlSeconds": 3_600,
            ], apiKey: admin)
            #expect(added.status == 200, "\(added.text)")
            let change = try #require(added["change"] as? [String: Any])
            #expect(change["action"] as? String == "added" && change["added"] as? Int == 2 && change["entries"] as? Int == 2)
            #expect(change["values"] as? [String] == ["203.0.113.0/24", "2001:db8::/32"], "stored in canonical form")
            #expect(try await Self.decision(api, ip: "203.0.113.9") == "deny")
            #expect(try await Self.decision(api, ip: "2001:db8:1::5") == "deny")
            #expect(try await Self.decision(api, ip: "198.51.100.1") == "allow")

            // The IPv6 block lives a minute, the IPv4 one an hour: each stops matching at its instant.
            api.clock.advance(by: 61)
            #expect(try await Self.decision(api, ip: "2001:db8:1::5") == "allow")
            #expect(try await Self.decision(api, ip: "203.0.113.9") == "deny")
            api.clock.advance(by: 3_600)
            #expect(try await Self.decision(api, ip: "203.0.113.9") == "allow")

            let csv = "Value,Note,Other\n198.51.100.0/24,\"farm, seen twice\",x\n\n203.0.113.5,,\n"
            let replaced = try await api.send(.put, "/v1/lists/blocked_ips/entries?ttlSeconds=86400", body: Data(csv.utf8), apiKey: admin,
                                              contentType: "text/csv; charset=utf-8")
            #expect(replaced.status == 200, "\(replaced.text)")
            #expect((replaced["change"] as? [String: Any])?["action"] as? String == "replaced")
            let shown = try await api.send(.get, "/v1/lists/blocked_ips", apiKey: Self.readerKey)
            #expect(shown.status == 200, "\(shown.text)")
            let entries = try #require(shown["entries"] as? [[String: Any]])
            #expect(entries.map { $0["value"] as? String } == ["198.51.100.0/24", "203.0.113.5"], "expired entries are gone, the rest by value")
            #expect(entries.first?["note"] as? String == "farm, seen twice")
            #expect(entries.first?["expiresAt"] != nil && entries.first?["addedBy"] as? String == "operator")
            #expect(try await Self.decision(api, ip: "198.51.100.77") == "deny")

            let plain = try await api.send(.post, "/v1/lists/blocked_ips/entries", body: Data("192.0.2.1\n192.0.2.2\n".utf8), apiKey: admin,
                                           contentType: "text/csv")
            #expect(plain.status == 200 && (plain["change"] as? [String: Any])?["added"] as? Int == 2, "a column of addresses is a file: \(plain.text)")

            let removed = try await api.post("/v1/lists/blocked_ips/entries/remove", json: ["values": ["198.51.100.9/24", "10.9.9.9"]], apiKey: admin)
            #expect(removed.status == 200 && (removed["change"] as? [String: Any])?["removed"] as? Int == 1, "\(removed.text)")
            #expect(try await Self.decision(api, ip: "198.51.100.77") == "allow")

            let changes = try await api.send(.get, "/v1/lists/blocked_ips/changes?limit=10", apiKey: Self.readerKey)
            #expect(changes.status == 200, "\(changes.text)")
            let actions = (changes["changes"] as? [[String: Any]] ?? []).map { $0["action"] as? String ?? "?" }
            #expect(actions == ["removed", "added", "replaced", "added", "created"])

            let listed = try await api.send(.get, "/v1/lists", apiKey: Self.readerKey)
            #expect((listed["lists"] as? [[String: Any]])?.map { $0["name"] as? String } == ["blocked_ips", "vip_users"])

            let deleted = try await api.send(.delete, "/v1/lists/blocked_ips", apiKey: admin)
            #expect(deleted.status == 204 && deleted.text.isEmpty)
            // The rules declare it: the next refresh (a second) may make it again, empty, by `rules`.
            let after = try await api.send(.get, "/v1/lists/blocked_ips", apiKey: admin)
            let remade = after["list"] as? [String: Any]
            #expect(after.errorCode == "list_not_found" || (remade?["createdBy"] as? String == "rules" && remade?["entryCount"] as? Int == 0),
                    "\(after.text)")
            #expect(try await Self.decision(api, ip: "192.0.2.1") == "allow")
        }
    }

    @Test("bad input is a typed 4xx that changes nothing; the wrong key is refused", arguments: ServerBackend.available)
    func refusals(backend: ServerBackend) async throws {
        try await Self.run(backend) { api in
            let admin = ServerHarness.adminKey
            #expect(try await api.post("/v1/lists/blocked_ips/entries", json: ["entries": [["value": "10.0.0.0/8"]]], apiKey: admin).status == 200)

            let cases: [(HTTPRequest.Method, String, Data?, String?, Int, String)] = [
                (.post, "/v1/lists", Self.json(#"{"name":"bad-name"}"#), nil, 400, "invalid_field"),
                (.post, "/v1/lists", Self.json(#"{"name":"x","kind":"ipv4"}"#), nil, 400, "invalid_field"),
                (.post, "/v1/lists", Self.json(#"{"name":"x","description":"\#(String(repeating: "d", count: 600))"}"#), nil, 400, "invalid_field"),
                (.post, "/v1/lists/nope/entries", Self.json(#"{"entries":[{"value":"10.0.0.1"}]}"#), nil, 404, "list_not_found"),
                (.post, "/v1/lists/blocked_ips/entries", Self.json(#"{"entries":[{"value":"10.0.0.1"},{"value":"ten"}]}"#), nil, 400, "list_entry_invalid"),
                (.post, "/v1/lists/blocked_ips/entries", Self.json(#"{"entries":[{"value":"10.0.0.1","expiresAt":"2001-01-01T00:00:00Z"}]}"#), nil, 400,
                 "list_entry_invalid"),
                (.post, "/v1/lists/blocked_ips/entries", Self.json(#"{"entries":[{"value":"10.0.0.1","ttlSeconds":0}]}"#), nil, 400, "list_entry_invalid"),
                (.post, "/v1/lists/blocked_ips/entries", Self.json(#"{"entries":[{"value":"10.0.0.1","expiresAt":"soon"}]}"#), nil, 400, "list_entry_invalid"),
                (.put, "/v1/lists/blocked_ips/entries", Data("value\n10.0.0.1\n\"unclosed\n".utf8), "text/csv", 400, "list_entry_invalid"),
                (.put, "/v1/lists/blocked_ips/entries", Data("value\n10.0.0.1\nbogus\n".utf8), "text/csv", 400, "list_entry_invalid"),
                (.put, "/v1/lists/blocked_ips/entries", Data([0xFF, 0xFE, 0x00]), "text/csv", 400, "list_entry_invalid"),
                (.put, "/v1/lists/blocked_ips/entries", Data("10.0.0.1".utf8), "text/plain", 415, "unsupported_media_type"),
                (.post, "/v1/lists/blocked_ips/entries/remove", Self.json(#"{"values":["x"]}"#), nil, 400, "list_entry_invalid"),
                (.get, "/v1/lists/blocked_ips/changes?limit=0", nil, nil, 400, "invalid_field"),
                (.delete, "/v1/lists/nope", nil, nil, 404, "list_not_found"),
            ]
            for (method, path, body, type, status, code) in cases {
                let reply = try await api.send(method, path, body: body, apiKey: admin, contentType: type ?? "application/json")
                #expect(reply.status == status && reply.errorCode == code, "\(method) \(path): \(reply.status) \(reply.text)")
            }
            let csvProblem = try await api.send(.put, "/v1/lists/blocked_ips/entries", body: Data("value\n10.0.0.1\nbogus\n".utf8), apiKey: admin,
                                                contentType: "text/csv")
            #expect(csvProblem.text.contains("line 3"), "\(csvProblem.text)")
            let shown = try await api.send(.get, "/v1/lists/blocked_ips", apiKey: admin)
            #expect((shown["entries"] as? [[String: Any]])?.map { $0["value"] as? String } == ["10.0.0.0/8"], "nothing changed")
            #expect((shown["list"] as? [String: Any])?["revision"] as? Int == 2)

            // Reading takes an analyst scope, changing a write scope; a key limited to some apps does neither.
            #expect(try await api.send(.get, "/v1/lists", apiKey: ServerHarness.apiKey).status == 403)
            #expect(try await api.send(.get, "/v1/lists", apiKey: ServerHarness.narrowKey).status == 403)
            let readerWrites = try await api.post("/v1/lists", json: ["name": "mine"], apiKey: Self.readerKey)
            #expect(readerWrites.status == 403 && readerWrites.errorCode == "forbidden")
            #expect(try await api.send(.delete, "/v1/lists/blocked_ips", apiKey: Self.readerKey).status == 403)
            #expect(try await api.send(.get, "/v1/lists", apiKey: nil).status == 401)
        }
    }

    @Test("a change through one server is in a second server's verdicts within one refresh period",
          .enabled(if: TestPostgres.isEnabled, "no PostgreSQL"))
    func sharedAcrossServers() async throws {
        let url = try #require(try await ServerHarness.databaseURL(.postgres))
        try await Self.run(.postgres, postgresURL: url) { first in
            try await Self.run(.postgres, postgresURL: url) { second in
                #expect(try await Self.decision(second, ip: "203.0.113.9") == "allow")
                let added = try await first.post("/v1/lists/blocked_ips/entries", json: ["entries": [["value": "203.0.113.0/24"]]], apiKey: ServerHarness.adminKey)
                #expect(added.status == 200, "\(added.text)")
                // One refresh period is a second; the bound is wide for a busy machine, the answer comes long before.
                let deadline = ContinuousClock.now + .seconds(60)
                var denied = false
                while !denied, ContinuousClock.now < deadline {
                    denied = try await Self.decision(second, ip: "203.0.113.9") == "deny"
                    if !denied { try await Task.sleep(for: .milliseconds(200)) }
                }
                #expect(denied, "the second server never read the list")
            }
        }
    }
}
