import AttestVocabulary
import Foundation
import Testing
@testable import RiskRules

@Suite("Rule files")
struct RuleSetLoadingTests {
    static let example = """
        version: 1
        decisions: { review: 50, deny: 80 }
        lists: { testers: lists/testers.txt }
        attributes: { cart_total: number }
        rules:
          - id: key-farm
            when: receipt.risk_metric >= 10
            score: +60
            reason: "device has {receipt.risk_metric} attested keys in 30 days"
          - id: big-cart
            when: attributes.cart_total > 500
            score: 30
            reason: "cart of {attributes.cart_total}"
          - id: promo-already-claimed
            when: request.action == "claim_promo" and devicecheck.bit0
            decide: deny
          - id: trusted-tester
            when: request.user_id in list("testers")
            decide: allow
          - id: off
            when: "true"
            score: 100
            enabled: false
        """

    static let testers = "# testers\nalice\n\n  bob  \n"

    @Test("the example file loads: thresholds, rules, signals read, and disabled rules left out")
    func loads() throws {
        let set = try ruleSet(Self.example, lists: ["lists/testers.txt": Self.testers])
        #expect(set.thresholds == DecisionThresholds(review: 50, deny: 80))
        #expect(set.rules.map(\.id) == ["key-farm", "big-cart", "promo-already-claimed", "trusted-tester"])
        #expect(set.layout.namesRead == ["attributes.cart_total", "devicecheck.bit0", "receipt.risk_metric", "request.action", "request.user_id"])
        // The build signals every decision logs: the request's always, the key's since the rules read the key anyway.
        // What stood for the key (an attested key, a debug token) always.
        #expect(set.layout.loggedOnly == [
            "request.validation_category", "request.bundle_version", "key.validation_category", "key.bundle_version", "key.os_version",
            "key.kind", "key.debug_token",
        ])
        #expect(set.version.hasPrefix("sha256:") && set.version.count == 23)
    }

    @Test("a rule set that never reads the key logs only the request's build and what stood for the key, and pays no key read for them")
    func loggedWithoutKey() throws {
        let set = try ruleSet("version: 1\nrules:\n  - id: promo\n    when: request.action == \"claim_promo\"\n    score: 10\n", lists: [:])
        #expect(set.layout.namesRead == ["request.action"])
        #expect(set.layout.names == ["key.debug_token", "key.kind", "request.action", "request.bundle_version", "request.validation_category"])
        // Reading only what stood for the key is no reason to log the key's build.
        let kinds = try ruleSet("version: 1\nrules:\n  - id: debug\n    when: key.kind == \"debug\"\n    score: 10\n", lists: [:])
        #expect(kinds.layout.names == ["key.debug_token", "key.kind", "request.bundle_version", "request.validation_category"])
    }

    @Test("a verdict's signal list by slot is every name's value, in the names' order")
    func namedValuesBySlot() throws {
        let set = try ruleSet(Self.example, lists: ["lists/testers.txt": Self.testers])
        #expect(set.layout.orderedSlots.count == set.layout.names.count)
        let values = SignalValues(layout: set.layout, now: 0)
        #expect(values.set("attributes.cart_total", .number(120)))
        #expect(values.set("request.action", .string("checkout")))
        #expect(values.set("key.debug_token", .string("dbg_1")))
        let listed = values.namedValues
        #expect(listed.map(\.name) == set.layout.names)
        #expect(listed.map(\.value) == set.layout.names.map { values.value(of: $0) })
        #expect(listed.compactMap(\.value).count == 3)
    }

    @Test("a layout's identity is its own: the same files compiled again have another, and a copy that adds a slot gets a new one")
    func layoutIdentity() throws {
        let one = try ruleSet(Self.example, lists: ["lists/testers.txt": Self.testers])
        let two = try ruleSet(Self.example, lists: ["lists/testers.txt": Self.testers])
        #expect(one.version == two.version)
        #expect(one.layout.identity != two.layout.identity)
        var copy = one.layout
        #expect(copy.identity == one.layout.identity)
        let unread = try #require(SignalSchema.fixed.first { one.layout.slots[$0.name] == nil })
        copy.keepLogged([unread])
        #expect(copy.identity != one.layout.identity)
    }

    @Test("a fixed signal's slot is its name's slot; one the rule set lacks has none and is not set")
    func fixedSignalSlots() throws {
        let set = try ruleSet(Self.example, lists: ["lists/testers.txt": Self.testers])
        for signal in FixedSignal.allCases {
            #expect(set.layout.slot(of: signal) == set.layout.slots[signal.rawValue], "\(signal)")
        }
        let values = SignalValues(layout: set.layout, now: 0)
        let lacking = try #require(FixedSignal.allCases.first { set.layout.slots[$0.rawValue] == nil })
        #expect(!values.set(lacking, .string("x")))
        #expect(values.set(.requestAction, .string("checkout")))
        #expect(values.value(of: FixedSignal.requestAction.rawValue) == .string("checkout"))
        #expect(!values.set(.requestAction, .number(1)), "a value of the wrong type is ignored")
        #expect(values.set(set.layout.slots["attributes.cart_total"], .number(120)))
        #expect(values.value(of: "attributes.cart_total") == .number(120))
    }

    @Test("scores add up, thresholds decide, reasons render; deny beats allow beats the score")
    func evaluation() throws {
        let set = try ruleSet(Self.example, lists: ["lists/testers.txt": Self.testers])
        func run(_ signals: [String: SignalValue]) -> RuleEvaluation {
            let values = set.values(now: 0)
            for (name, value) in signals { values.set(name, value) }
            return set.evaluate(values)
        }
        let honest = run(["receipt.risk_metric": .number(1)])
        #expect(honest.decision == .allow && honest.score == 0 && honest.fired.isEmpty)

        let farm = run(["receipt.risk_metric": .number(14)])
        #expect(farm.decision == .review && farm.score == 60)
        #expect(farm.fired.map(\.reason) == ["device has 14 attested keys in 30 days"])

        let farmWithCart = run(["receipt.risk_metric": .number(14), "attributes.cart_total": .number(900)])
        #expect(farmWithCart.decision == .deny && farmWithCart.score == 90 && farmWithCart.decidedBy == nil)

        let tester = run(["receipt.risk_metric": .number(14), "attributes.cart_total": .number(900), "request.user_id": .string("bob")])
        #expect(tester.decision == .allow && tester.decidedBy == "trusted-tester")

        let promo = run(["request.user_id": .string("bob"), "request.action": .string("claim_promo"), "devicecheck.bit0": .bool(true)])
        #expect(promo.decision == .deny && promo.decidedBy == "promo-already-claimed", "deny wins over allow")
        #expect(promo.fired.map(\.id) == ["promo-already-claimed", "trusted-tester"])

        let missing = run(["request.action": .string("claim_promo")])
        #expect(missing.decision == .allow, "a missing bit does not fire the rule")
    }

    @Test("a decide: review rule raises an allow score to review but never lowers deny")
    func reviewPrecedence() throws {
        let set = try ruleSet("""
            version: 1
            rules:
              - id: look
                when: request.action == "x"
                decide: review
              - id: heavy
                when: receipt.risk_metric > 1
                score: 90
            """)
        let values = set.values(now: 0)
        values.set("request.action", .string("x"))
        #expect(set.evaluate(values).decision == .review)
        values.set("receipt.risk_metric", .number(5))
        #expect(set.evaluate(values).decision == .deny)
    }

    @Test("a typo'd signal, a type error and a syntax error point at their file, line and column")
    func positions() {
        let yaml = """
            version: 1
            rules:
              - id: a
                when: receipt.risk_metrc >= 10
                score: 10
              - id: b
                when: key.age > 24
                score: 10
              - id: c
                when: "request.action == 'x' and"
                score: 10
              - id: d
                when: >-
                  request.action == "x" and
                  key.counter >< 3
                score: 1
            """
        let errors = loadErrors(yaml)
        #expect(errors.map(\.code) == [.unknownSignal, .typeMismatch, .syntax, .syntax])
        #expect(errors.map { "\($0.file):\($0.line):\($0.column)" } == ["rules.yaml:4:11", "rules.yaml:7:11", "rules.yaml:10:37", "rules.yaml:15:20"])
        #expect(errors[0].description.hasPrefix("rules.yaml:4:11: error[unknown_signal]: unknown signal `receipt.risk_metrc`"))
        #expect(errors[0].description.contains("hint: did you mean `receipt.risk_metric`?"))
    }

    @Test("file-level problems: YAML syntax, unknown keys, missing fields, duplicates, bad thresholds, missing lists")
    func fileProblems() {
        #expect(loadErrors("version: 1\nrules:\n  - id: a\n    when: [\n").first?.code == .yamlSyntax)
        #expect(loadErrors("version: 1\nrule:\n  - id: a\n").first?.hint == "did you mean `rules`?")
        #expect(loadErrors("version: 2\nrules: []\n").first?.code == .invalidField)
        #expect(loadErrors("version: 1\nrules:\n  - id: a\n    when: \"true\"\n").first?.code == .missingField)
        #expect(loadErrors("version: 1\nrules:\n  - id: a\n    when: \"true\"\n    score: 1\n    scor: 2\n").first?.code == .unknownField)
        #expect(loadErrors("version: 1\nrules:\n  - id: a\n    when: \"true\"\n    score: 1\n  - id: a\n    when: \"true\"\n    score: 2\n").first?.code == .duplicateRule)
        #expect(loadErrors("version: 1\ndecisions: { review: 90, deny: 80 }\nrules: []\n").first?.code == .invalidField)
        #expect(loadErrors("version: 1\nlists: { vip: nowhere.txt }\nrules: []\n").first?.code == .unreadableFile)
        #expect(loadErrors("version: 1\nattributes: { x: money }\nrules: []\n").first?.code == .invalidField)
        #expect(loadErrors("version: 1\nrules:\n  - id: a\n    when: \"true\"\n    decide: block\n").first?.code == .invalidField)
        #expect(loadErrors("version: 1\nrules:\n  - id: a b\n    when: \"true\"\n    score: 1\n").first?.code == .invalidField)
        #expect(loadErrors("version: 1\nrules:\n  - id: a\n    when: \"true\"\n    score: 1\n    reason: \"{nope}\"\n").first?.code == .unknownSignal)
        #expect(loadErrors("- just\n- a list\n").first?.code == .invalidField)
    }

    @Test("settings may stand in any file but only once; rule ids are unique across files")
    func severalFiles() throws {
        let settings = "version: 1\ndecisions: { review: 10, deny: 20 }\nrules: []\n"
        let rules = "version: 1\nrules:\n  - id: a\n    when: receipt.risk_metric > 1\n    score: 15\n"
        let set = try RuleSetLoader.compile(documents: [("a.yaml", settings), ("b.yaml", rules)]) { _ in "" }
        #expect(set.thresholds.review == 10 && set.rules.count == 1)
        do {
            _ = try RuleSetLoader.compile(documents: [("a.yaml", settings), ("b.yaml", settings)]) { _ in "" }
            Issue.record("decisions twice loaded")
        } catch {
            #expect(error.errors.first?.code == .duplicateSetting)
            #expect(error.errors.first?.file == "b.yaml")
        }
    }

    @Test("the version is a content hash: the same files give the same version, any change a new one")
    func version() throws {
        let lists = ["lists/testers.txt": Self.testers]
        let first = try ruleSet(Self.example, lists: lists).version
        #expect(try ruleSet(Self.example, lists: lists).version == first)
        #expect(try ruleSet(Self.example.replacingOccurrences(of: "+60", with: "+61"), lists: lists).version != first)
        #expect(try ruleSet(Self.example, lists: ["lists/testers.txt": Self.testers + "carol\n"]).version != first)
    }

    @Test("a directory loads its *.yaml files; a directory without any is an error")
    func directories() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rules-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("lists"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(throws: RuleSetLoadFailure.self) { try RuleSetLoader.load(directory: directory.path) }
        try Self.example.write(to: directory.appendingPathComponent("risk.yaml"), atomically: true, encoding: .utf8)
        try Self.testers.write(to: directory.appendingPathComponent("lists/testers.txt"), atomically: true, encoding: .utf8)
        let set = try RuleSetLoader.load(directory: directory.path)
        #expect(set.rules.count == 4)
        #expect(set.directory == directory.path)
        // The version hashes names relative to the directory: every spelling of it gives the one version (names
        // that sort before and after `list:` make the spellings' order differ if full paths were sorted).
        try "version: 1\nrules:\n  - { id: zz-extra, when: \"true\", score: 1, reason: z }\n".write(to: directory.appendingPathComponent("zz.yaml"), atomically: true, encoding: .utf8)
        let spellings = [directory.path, directory.path + "/", directory.path + "//./", directory.deletingLastPathComponent().path + "/./" + directory.lastPathComponent]
        let versions = Set(spellings.map { spelling -> String in
            do { return try RuleSetLoader.load(directory: spelling).version } catch { return "refused: \(error)" }
        })
        #expect(versions.count == 1 && versions.first?.hasPrefix("sha256:") == true, "\(versions)")
        // `rules lint rulescopy` and `rules lint ./rulescopy/` hand the loader these paths.
        let relative = try ["rulescopy", "./rulescopy/", "/srv/rulescopy"].map { spelling in
            try RuleSetLoader.compile(documents: [("\(spelling)/risk.yaml", Self.example)], directory: spelling) { _ in Self.testers }.version
        }
        #expect(Set(relative).count == 1, "\(relative)")
    }

    @Test("values are formatted for reasons: whole numbers, durations in units, missing")
    func formatting() throws {
        #expect(RuleValueFormat.number(3) == "3")
        #expect(RuleValueFormat.number(2.5) == "2.5")
        #expect(RuleValueFormat.duration(93_784) == "1d 2h")
        #expect(RuleValueFormat.duration(90) == "1m 30s")
        let set = try ruleSet("""
            version: 1
            rules:
              - id: r
                when: "true"
                score: 1
                reason: "{{literal}} {key.age} {receipt.risk_metric}"
            """)
        let values = set.values(now: 0)
        values.set("key.age", .duration(7_200))
        #expect(set.evaluate(values).fired.first?.reason == "{literal} 2h missing")
    }
}

@Suite("Signal schema documentation")
struct SignalSchemaDocumentationTests {
    @Test("the signal reference page is the schema's, so the two cannot drift apart")
    func referencePage() throws {
        let page = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/reference/signals.md")
        let text = try String(contentsOf: page, encoding: .utf8)
        #expect(text == SignalSchema.referencePage(), "write it again with `attestguard reference signals > docs/reference/signals.md`")
    }
}
