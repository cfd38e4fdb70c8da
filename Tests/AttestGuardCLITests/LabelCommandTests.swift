import AttestCore
import AttestTestSupport
import AttestVocabulary
import Crypto
import Foundation
import AttestGuardStore
import Testing

/// `attestguard labels import`, `rules backtest --labels` and `rules explain --request-id` over a hand-made decision
/// log of 10 decisions, on every store backend the tests have. The expected precision and recall are worked out by
/// hand in ``expected``.
@Suite("attestguard labels, backtest --labels, explain --request-id")
struct LabelCommandTests {
    static let app = "ABCDE12345.com.example.attestguard"
    static let hashKey = "label-tests-hash-key-0123456789abcdef"

    /// The decision log's keyed hash of a user or device id, made as the server makes it with `hashKey`.
    static func hash(_ dimension: String, _ value: String) -> String {
        var mac = HMAC<SHA256>(key: SymmetricKey(data: Data(hashKey.utf8)))
        mac.update(data: Data((dimension + "\u{0}" + value).utf8))
        return Hex.encode(Data(mac.finalize()).prefix(16))
    }

    static func key(_ index: UInt8) -> String { Data(repeating: index, count: 32).base64EncodedString() }

    /// The candidate: `farm` denies at a risk metric of 10 or more, `reinstalls` (+50, the review threshold) fires
    /// from 4.
    static func candidate() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("label-rules-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try """
            version: 1
            decisions: { review: 50, deny: 80 }
            rules:
              - id: farm
                when: receipt.risk_metric >= 10
                decide: deny
                reason: "a key farm"
              - id: reinstalls
                when: receipt.risk_metric >= 4
                score: +50
                reason: "many reinstalls"
            """.write(to: directory.appendingPathComponent("rules.yaml"), atomically: true, encoding: .utf8)
        return directory.path
    }

    /// Ten logged decisions: (risk metric, the logged rules' decision, the logged rules that fired).
    ///
    /// | # | metric | logged           | candidate       | label (from)                                   |
    /// | 0 | 12     | deny old-farm    | deny farm+rein  | fraud (its request id)                          |
    /// | 1 | 15     | deny old-farm    | deny farm+rein  | fraud (its key)                                 |
    /// | 2 | 11     | review old-farm  | deny farm+rein  | legitimate (its user)                           |
    /// | 3 | 5      | review old-rein  | review rein     | fraud (its device)                              |
    /// | 4 | 6      | review old-rein  | review rein     | legitimate (its request id)                     |
    /// | 5 | 2      | allow            | allow           | fraud (request id; an older legitimate loses)   |
    /// | 6 | 1      | allow            | allow           | legitimate (its key, before its user's fraud)   |
    /// | 7 | 0      | allow            | allow           | legitimate (its request id)                     |
    /// | 8 | 8      | review old-rein  | review rein     | none                                            |
    /// | 9 | 3      | allow            | allow           | legitimate (request id, before its key's fraud) |
    static let logged: [(metric: Int, decision: Decision, fired: String)] = [
        (12, .deny, "old-farm"), (15, .deny, "old-farm"), (11, .review, "old-farm"), (5, .review, "old-reinstalls"), (6, .review, "old-reinstalls"),
        (2, .allow, ""), (1, .allow, ""), (0, .allow, ""), (8, .review, "old-reinstalls"), (3, .allow, ""),
    ]

    static func entries(now: Date) -> [DecisionLogEntry] {
        logged.enumerated().map { index, row in
            DecisionLogEntry(
                appId: app, decidedAt: now.addingTimeInterval(-Double(index + 1) * 60), endpoint: .score, keyId: key(UInt8(index)),
                userHash: hash("user", "user-\(index)"), ipHash: nil, deviceHash: hash("device", "device-\(index)"),
                decision: row.decision, ruleDecision: row.decision, score: 0, ruleSetVersion: "sha256:old", fired: row.fired,
                signals: #"{"receipt.risk_metric":\#(row.metric)}"#, requestId: "req-\(index)"
            )
        }
    }

    /// The labels of the table, as a fraud team's CSV export (extra columns, quoted cells, any header case).
    static let csv = """
        case,AppId,requestId,keyId,userId,deviceId,label,source,labelledAt,note
        1,\(app),req-0,,,,fraud,chargebacks,2026-11-01T10:00:00Z,"first, with a comma"
        2,\(app),,\(key(1)),,,fraud,chargebacks,2026-11-01T10:00:00Z,
        3,\(app),,,user-2,,legitimate,support-case-2,2026-11-01T10:00:00Z,
        4,\(app),,,,device-3,fraud,chargebacks,2026-11-01T10:00:00Z,
        5,\(app),req-4,,,,legitimate,support-case-4,2026-11-01T10:00:00Z,"a ""quoted"" note"
        6,\(app),req-5,,,,legitimate,support-case-5,2026-11-01T09:00:00Z,
        7,\(app),req-5,,,,fraud,chargebacks,2026-11-02T10:00:00Z,
        8,\(app),,\(key(6)),,,legitimate,support-case-6,2026-11-01T10:00:00Z,
        9,\(app),,,user-6,,fraud,chargebacks,2026-11-03T10:00:00Z,
        10,\(app),req-7,,,,legitimate,support-case-7,2026-11-01T10:00:00Z,
        11,\(app),req-9,,,,legitimate,support-case-9,2026-11-01T10:00:00Z,
        12,\(app),,\(key(9)),,,fraud,chargebacks,2026-11-01T10:00:00Z,

        """

    /// The test's store, with the log written, and the environment that configures the CLI on it.
    static func store(_ backend: TestStoreBackend) async throws -> (environment: [String: String], open: @Sendable () async throws -> TestStore) {
        let open: @Sendable () async throws -> TestStore
        var environment: [String: String]
        if backend == .postgres {
            let url = try await TestPostgres.freshSchemaURL(prefix: "l")
            open = { try await TestStore.postgres(url: url, poolSize: 2) }
            environment = ServerProcess.environment(databaseURL: url, sqlitePath: nil)
        } else {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("labels-\(UUID().uuidString).sqlite").path
            open = { try await TestStore.sqlite(path: path) }
            environment = ServerProcess.environment(databaseURL: nil, sqlitePath: path)
        }
        environment["ATTESTGUARD_PRIVACY_HASH_KEY_ENV"] = "LABEL_TEST_HASH_KEY"
        environment["LABEL_TEST_HASH_KEY"] = hashKey
        let store = try await open()
        try await store.store.appendDecisions(entries(now: Date()))
        await store.close()
        return (environment, open)
    }

    static func write(_ text: String, extension name: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("labels-\(UUID().uuidString).\(name)").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func storedLabels(_ open: @Sendable () async throws -> TestStore) async throws -> [FraudLabelRecord] {
        let store = try await open()
        let labels = try await store.store.labels(appId: nil)
        await store.close()
        return labels
    }

    static let backends = TestStoreBackend.available.filter { $0 != .pgbouncer }

    /// A precision and recall as the JSON report gives them.
    static func shares(_ value: Any?) -> [Double?] {
        let object = value as? [String: Any]
        return [(object?["precision"] as? NSNumber)?.doubleValue, (object?["recall"] as? NSNumber)?.doubleValue]
    }

    static func number(_ value: Any?) -> Double? { (value as? NSNumber)?.doubleValue }

    @Test("a CSV export imports once, then is unchanged; JSON lines import; a bad line stores nothing", arguments: backends)
    func importing(backend: TestStoreBackend) async throws {
        let (environment, open) = try await Self.store(backend)
        let csv = try Self.write(Self.csv, extension: "csv")
        let first = try await CommandLineRunner.run(["labels", "import", csv], environment: environment)
        #expect(first.status == 0, "\(first.standardError)")
        #expect(first.standardOutput.contains("12 labels: 12 created, 0 replaced, 0 unchanged"), "\(first.standardOutput)")
        let again = try await CommandLineRunner.run(["labels", "import", csv, "--json"], environment: environment)
        #expect(again.json["unchanged"] as? Int == 12 && again.json["created"] as? Int == 0, "\(again.standardOutput)")
        let stored = try await Self.storedLabels(open)
        #expect(stored.count == 12)
        #expect(stored.contains { $0.kind == .user && $0.subject == Self.hash("user", "user-2") && $0.label == .legitimate })
        #expect(stored.contains { $0.kind == .device && $0.subject == Self.hash("device", "device-3") })
        #expect(!stored.contains { $0.subject.hasPrefix("user-") || $0.subject.hasPrefix("device-") }, "no raw id is stored")

        let lines = try Self.write(
            """
            {"appId":"\(Self.app)","requestId":"req-8","label":"fraud","source":"chargebacks","labelledAt":"2026-11-05T10:00:00Z"}

            {"appId":"\(Self.app)","requestId":"req-0","label":"fraud","source":"chargebacks","labelledAt":"2026-11-01T10:00:00Z"}
            {"appId":"\(Self.app)","requestId":"req-7","label":"fraud","source":"support-case-7","labelledAt":"2026-11-06T10:00:00Z"}
            """,
            extension: "txt"
        )
        let json = try await CommandLineRunner.run(["labels", "import", lines, "--format", "jsonl"], environment: environment)
        #expect(json.status == 0, "\(json.standardError)")
        #expect(json.standardOutput.contains("3 labels: 1 created, 1 replaced, 1 unchanged"), "\(json.standardOutput)")

        let bad = try Self.write(
            """
            {"appId":"\(Self.app)","requestId":"req-1","label":"fraud","source":"late"}
            {"appId":"\(Self.app)","userId":"user-3","label":"fraud","source":"late"}
            {"appId":"\(Self.app)","userId":"user-4","label":"probably","source":"late"}
            """,
            extension: "jsonl"
        )
        let refused = try await CommandLineRunner.run(["labels", "import", bad], environment: environment)
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("line 3: invalid_field"), "\(refused.standardError)")
        // A byte order mark before the header, as spreadsheets write one: the first column is still appId.
        let badCSV = try Self.write("\u{FEFF}appId,keyId,label,source\n\(Self.app),\(Self.key(3)),fraud,x\n\(Self.app),\(Self.key(4)),maybe,x\n", extension: "csv")
        let badLabel = try await CommandLineRunner.run(["labels", "import", badCSV], environment: environment)
        #expect(badLabel.status == 1 && badLabel.standardError.contains("line 3: invalid_field"), "\(badLabel.standardError)")
        let shortCSV = try Self.write("appId,keyId,label,source\n\(Self.app),\(Self.key(3)),fraud,x\n\(Self.app),\(Self.key(4)),fraud\n", extension: "csv")
        let short = try await CommandLineRunner.run(["labels", "import", shortCSV], environment: environment)
        #expect(short.status == 1 && short.standardError.contains("line 3: 3 cells, the header has 4"), "\(short.standardError)")
        // JSON lines follow the API's rules: a key twice (the route's 400) and a trailing comma name their line.
        let duplicate = try Self.write(
            """
            {"appId":"\(Self.app)","userId":"user-5","label":"fraud","source":"late"}
            {"appId":"\(Self.app)","userId":"user-5","label":"fraud","label":"legitimate","source":"late"}
            """,
            extension: "jsonl"
        )
        let twice = try await CommandLineRunner.run(["labels", "import", duplicate], environment: environment)
        #expect(twice.status == 1 && twice.standardError.contains("line 2: malformed_json"), "\(twice.standardError)")
        let comma = try Self.write(#"{"appId":"\#(Self.app)","userId":"user-5","label":"fraud","source":"late",}"#, extension: "jsonl")
        let trailing = try await CommandLineRunner.run(["labels", "import", comma], environment: environment)
        #expect(trailing.status == 1 && trailing.standardError.contains("line 1: malformed_json"), "\(trailing.standardError)")
        // A quoted cell that never closes names the line it opened on.
        let unterminated = try Self.write("appId,userId,label,source\r\n\(Self.app),\"user-6,fraud,x\r\n", extension: "csv")
        let unclosed = try await CommandLineRunner.run(["labels", "import", unterminated], environment: environment)
        #expect(unclosed.status == 1 && unclosed.standardError.contains("line 2: a quoted cell"), "\(unclosed.standardError)")
        #expect(try await Self.storedLabels(open).count == 13, "nothing of a refused file is stored")
        // As Excel writes it: CRLF line ends, a quoted notes cell over two lines (a column the import ignores), a
        // no-break space that is part of an id.
        let excel = try Self.write(
            "appId,userId,label,source,notes\r\n\(Self.app),bob\u{00A0},fraud,case-12,\"called twice,\r\nrefund asked\"\r\n\(Self.app), user-7 ,legitimate,x,\r\n",
            extension: "csv"
        )
        let spreadsheet = try await CommandLineRunner.run(["labels", "import", excel], environment: environment)
        #expect(spreadsheet.status == 0, "\(spreadsheet.standardError)")
        let afterExcel = try await Self.storedLabels(open)
        #expect(afterExcel.count == 15)
        #expect(afterExcel.contains { $0.subject == Self.hash("user", "bob\u{00A0}") && $0.source == "case-12" })
        #expect(afterExcel.contains { $0.subject == Self.hash("user", "user-7") && $0.label == .legitimate })
        let unknownFormat = try await CommandLineRunner.run(["labels", "import", lines], environment: environment)
        #expect(unknownFormat.status == 2, "\(unknownFormat.standardError)")
    }

    @Test("backtest --labels: precision and recall per rule and per set match the hand-computed table", arguments: backends)
    func backtest(backend: TestStoreBackend) async throws {
        let (environment, _) = try await Self.store(backend)
        let csv = try Self.write(Self.csv, extension: "csv")
        #expect(try await CommandLineRunner.run(["labels", "import", csv], environment: environment).status == 0)
        let candidate = try Self.candidate()
        let result = try await CommandLineRunner.run(["rules", "backtest", "--rules", candidate, "--since", "1d", "--labels", "--json"], environment: environment)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.json["decisions"] as? Int == 10)
        let labels = try #require(result.json["labels"] as? [String: Any], "\(result.standardOutput)")
        #expect(labels["fraud"] as? Int == 4 && labels["legitimate"] as? Int == 5)

        // Fraud: #0 #1 #3 #5; legitimate: #2 #4 #6 #7 #9; #8 unlabelled.
        let logged = try #require(labels["logged"] as? [String: Any])
        let candidateSet = try #require(labels["candidate"] as? [String: Any])
        #expect(logged["decided"] as? [String: [String: Int]] == [
            "fraud": ["allow": 1, "review": 1, "deny": 2], "legitimate": ["allow": 3, "review": 2, "deny": 0],
        ])
        #expect(candidateSet["decided"] as? [String: [String: Int]] == [
            "fraud": ["allow": 1, "review": 1, "deny": 2], "legitimate": ["allow": 3, "review": 1, "deny": 1],
        ])
        // Logged: deny 2 fraud of 2 (P 1.0), 2 of 4 fraud (R 0.5); deny or review 3 fraud of 5 (P 0.6), 3 of 4 (R 0.75).
        #expect(Self.shares(logged["deny"]) == [1.0, 0.5])
        #expect(Self.shares(logged["denyOrReview"]) == [0.6, 0.75])
        // Candidate: deny 2 fraud of 3 (P 0.667), R 0.5; deny or review 3 of 5 (P 0.6), R 0.75.
        #expect(Self.shares(candidateSet["deny"]) == [0.667, 0.5])
        #expect(Self.shares(candidateSet["denyOrReview"]) == [0.6, 0.75])

        let loggedRules = try #require(labels["loggedRules"] as? [String: [String: Any]])
        // old-farm fired on #0 #1 #2: 2 fraud of 3; old-reinstalls on #3 #4 (#8 unlabelled): 1 of 2.
        #expect(loggedRules["old-farm"]?["fired"] as? Int == 3 && loggedRules["old-farm"]?["firedOnFraud"] as? Int == 2)
        #expect(Self.shares(loggedRules["old-farm"]) == [0.667, 0.5])
        #expect(loggedRules["old-reinstalls"]?["fired"] as? Int == 2 && loggedRules["old-reinstalls"]?["firedOnFraud"] as? Int == 1)
        #expect(Self.shares(loggedRules["old-reinstalls"]) == [0.5, 0.25])
        #expect(loggedRules.count == 2)
        let candidateRules = try #require(labels["candidateRules"] as? [String: [String: Any]])
        // farm on #0 #1 #2: 2 of 3; reinstalls on #0-#4: 3 fraud (#0 #1 #3) of 5.
        #expect(candidateRules["farm"]?["fired"] as? Int == 3 && candidateRules["farm"]?["firedOnFraud"] as? Int == 2)
        #expect(Self.shares(candidateRules["farm"]) == [0.667, 0.5])
        #expect(candidateRules["reinstalls"]?["fired"] as? Int == 5 && candidateRules["reinstalls"]?["firedOnFraud"] as? Int == 3)
        #expect(Self.shares(candidateRules["reinstalls"]) == [0.6, 0.75])

        let text = try await CommandLineRunner.run(["rules", "backtest", "--rules", candidate, "--since", "1d", "--labels"], environment: environment)
        #expect(text.standardOutput.contains("labelled decisions: 9 (4 fraud, 5 legitimate)"), "\(text.standardOutput)")
        #expect(text.standardOutput.contains("  reinstalls: 5, 3, 0.600, 0.750"), "\(text.standardOutput)")
        #expect(text.standardOutput.contains("candidate  fraud               1          1          2   0.667/0.500    0.600/0.750"), "\(text.standardOutput)")
        let plain = try await CommandLineRunner.run(["rules", "backtest", "--rules", candidate, "--since", "1d", "--json"], environment: environment)
        #expect(plain.json["labels"] == nil, "without --labels the report is as before")
    }

    @Test("explain --request-id evaluates the logged snapshot and shows the decision's label", arguments: backends)
    func explain(backend: TestStoreBackend) async throws {
        let (environment, _) = try await Self.store(backend)
        #expect(try await CommandLineRunner.run(["labels", "import", try Self.write(Self.csv, extension: "csv")], environment: environment).status == 0)
        let candidate = try Self.candidate()
        let own = try await CommandLineRunner.run(["rules", "explain", "--rules", candidate, "--request-id", "req-0", "--app", Self.app], environment: environment)
        #expect(own.status == 0, "\(own.standardError)")
        #expect(own.standardOutput.contains("logged deny under rules sha256:old"), "\(own.standardOutput)")
        #expect(own.standardOutput.contains("label: fraud (chargebacks, 2026-11-01T10:00:00.000Z, on the decision)"), "\(own.standardOutput)")
        #expect(own.standardOutput.contains("farm"))
        let byKey = try await CommandLineRunner.run(
            ["rules", "explain", "--rules", candidate, "--request-id", "req-6", "--app", Self.app, "--json"], environment: environment
        )
        let label = try #require(byKey.json["label"] as? [String: Any], "\(byKey.standardOutput)")
        #expect(label["label"] as? String == "legitimate" && label["subject"] as? String == "key" && label["source"] as? String == "support-case-6")
        #expect((byKey.json["evaluation"] as? [String: Any])?["decision"] as? String == "allow")
        let none = try await CommandLineRunner.run(["rules", "explain", "--rules", candidate, "--request-id", "req-8", "--app", Self.app], environment: environment)
        #expect(none.standardOutput.contains("label: none"), "\(none.standardOutput)")
        let missing = try await CommandLineRunner.run(["rules", "explain", "--rules", candidate, "--request-id", "req-99", "--app", Self.app], environment: environment)
        #expect(missing.status == 1 && missing.standardError.contains("no logged decision"), "\(missing.standardError)")
    }
}
