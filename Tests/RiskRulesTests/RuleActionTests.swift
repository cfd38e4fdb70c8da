import AttestTestSupport
import AttestVocabulary
import Testing
@testable import RiskRules

/// Rule actions (`then:`): checked with the rule, evaluated with the request's values when the rule fires, and
/// expected by rule test cases.
@Suite("Rule actions")
struct RuleActionTests {
    static let rules = """
        version: 1
        lists:
          blocked_ips: { managed: true, kind: cidr }
          testers: lists/testers.txt
        rules:
          - id: farm
            when: velocity.assertions.device.1h > 100
            decide: deny
            then: [revoke_key, 'add_to_list("blocked_ips", request.ip, 24h)', 'label(fraud, "rule-farm", device)']
          - id: quiet-label
            when: request.action == "refund"
            then: 'label(legitimate, "rule-refund")'
        """

    static func set() throws -> RuleSet {
        try ruleSet(rules, lists: ["lists/testers.txt": "alice\n"])
    }

    @Test("a fired rule's actions carry the request's values; a rule that does not fire asks for nothing")
    func evaluation() throws {
        let set = try Self.set()
        #expect(set.rules.first { $0.id == "farm" }?.actionNames == [.revokeKey, .addToList, .label])
        let values = set.values(now: 1_000)
        values.set("velocity.assertions.device.1h", .number(250))
        values.set("request.ip", .string("203.0.113.9"))
        let evaluation = set.evaluate(values)
        #expect(evaluation.decision == .deny)
        #expect(evaluation.actions.map(\.ruleId) == ["farm", "farm", "farm"])
        #expect(evaluation.actions.map(\.action.description) == [
            "revoke_key", #"add_to_list("blocked_ips", "203.0.113.9", 1d)"#, #"label(fraud, "rule-farm", device)"#,
        ])
        #expect(evaluation.actions[1].action.detail == .addToList(list: "blocked_ips", value: "203.0.113.9", lifetimeSeconds: 86_400))

        let withoutIP = set.values(now: 1_000)
        withoutIP.set("velocity.assertions.device.1h", .number(250))
        #expect(set.evaluate(withoutIP).actions.map(\.action.name) == [.revokeKey, .label], "no IP: nothing to add to the list")

        let refund = set.values(now: 1_000)
        refund.set("request.action", .string("refund"))
        let labelled = set.evaluate(refund)
        #expect(labelled.decision == .allow && labelled.fired.map(\.id) == ["quiet-label"], "a rule may only act")
        #expect(labelled.actions.map(\.action.detail) == [.label(.legitimate, source: "rule-refund", subject: .key)], "the key by default")
        #expect(set.evaluate(set.values(now: 1_000)).actions.isEmpty)
    }

    @Test("actions are checked with the rule: each mistake is a problem at its line", arguments: [
        ("revoke_keys", "no action named `revoke_keys`", "did you mean revoke_key?"),
        ("revoke_key(1)", "revoke_key takes no arguments", nil),
        ("'set_devicecheck_bit1(true)'", "set_devicecheck_bit1 takes no arguments", nil),
        (#"'add_to_list("blocked_ips", request.ip)'"#, "add_to_list takes the list, the value and how long it stays", nil),
        (#"'add_to_list("blocked_ip", request.ip, 1h)'"#, #"no list named "blocked_ip""#, #"did you mean "blocked_ips"?"#),
        (#"'add_to_list("testers", request.ip, 1h)'"#, #"list "testers" is a file"#, nil),
        (#"'add_to_list("blocked_ips", velocity.assertions.device.1h, 1h)'"#, "the value added is a string", nil),
        (#"'add_to_list("blocked_ips", request.ip, 30s)'"#, "a duration from 1m to", nil),
        (#"'add_to_list("blocked_ips", request.ip, "1h")'"#, "a duration from 1m to", nil),
        (#"'add_to_list("blocked_ips", request.nope, 1h)'"#, "request.nope", nil),
        (#"'label(fraudulent, "x")'"#, "the label is fraud or legitimate", nil),
        ("'label(fraud, source)'", "the source is a string literal", nil),
        (#"'label(fraud, "")'"#, "the source is a string literal", nil),
        (#"'label(fraud, "x", decision)'"#, "the subject is key, user or device", nil),
        ("'label(fraud)'", "label takes the label, its source", nil),
        ("[]", "`then` lists no action", nil),
        ("{ a: b }", "`then` is an action or a list of actions", nil),
        ("[revoke_key, revoke_key]", "the action `revoke_key` is listed twice", nil),
        ("[revoke_key, 'label(fraud, \"a\")', 'label(fraud, \"b\")', 'label(fraud, \"c\")', 'label(fraud, \"d\")', 'label(fraud, \"e\")', 'label(fraud, \"f\")', 'label(fraud, \"g\")', 'label(fraud, \"h\")']",
         "a rule takes at most 8", nil),
        ("'1 + 2'", "an action is a name", nil),
    ])
    func problems(then: String, message: String, hint: String?) {
        let errors = loadErrors("""
            version: 1
            lists:
              blocked_ips: { managed: true, kind: cidr }
              testers: lists/testers.txt
            rules:
              - id: r
                when: request.action == "buy"
                then: \(then)
            """, lists: ["lists/testers.txt": "alice\n"])
        #expect(errors.count == 1, "\(errors)")
        #expect(errors.first?.line == 8, "\(errors)")
        #expect(errors.first?.message.contains(message) == true, "\(errors.first?.message ?? "none")")
        if let hint { #expect(errors.first?.hint == hint, "\(errors.first?.hint ?? "none")") }
    }

    @Test("a rule needs a score, a decision or an action")
    func nothingToDo() {
        let errors = loadErrors("version: 1\nrules:\n  - id: r\n    when: request.action == \"buy\"\n")
        #expect(errors.first?.message.contains("has no `score`, `decide` or `then`") == true, "\(errors)")
    }

    @Test("a test case expects the exact set of actions as they read with their values")
    func testCases() throws {
        let set = try Self.set()
        var report = RuleTestCases.Report()
        RuleTestCases.run(set, file: "tests/actions.yaml", text: """
            cases:
              - name: a farm is revoked, blocked and labelled
                signals: { velocity.assertions.device.1h: 250, request.ip: 203.0.113.9 }
                expect:
                  decision: deny
                  actions: [revoke_key, 'add_to_list("blocked_ips", "203.0.113.9", 1d)', 'label(fraud, "rule-farm", device)']
              - name: wrong expectation
                signals: { velocity.assertions.device.1h: 250 }
                expect: { decision: deny, actions: [revoke_key] }
              - name: none
                signals: {}
                expect: { decision: allow, actions: [] }
            """, into: &report)
        #expect(report.errors.isEmpty, "\(report.errors)")
        #expect(report.results.map(\.passed) == [true, false, true])
        #expect(report.results[1].failures == [#"actions [label(fraud, "rule-farm", device), revoke_key], expected [revoke_key]"#])

        var misspelt = RuleTestCases.Report()
        RuleTestCases.run(set, file: "tests/bad.yaml", text: "cases:\n  - name: x\n    signals: {}\n    expect: { decision: allow, action: [] }\n", into: &misspelt)
        #expect(misspelt.errors.first?.message.contains("unknown expectation `action`") == true, "\(misspelt.errors)")
    }
}
