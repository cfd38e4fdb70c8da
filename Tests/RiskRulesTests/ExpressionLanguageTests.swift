import Testing
@testable import RiskRules

@Suite("Rule expression language")
struct ExpressionLanguageTests {
    @Test("literals, durations, precedence and parentheses")
    func arithmeticAndPrecedence() throws {
        #expect(try evaluateCondition("1 + 2 * 3 == 7") == true)
        #expect(try evaluateCondition("(1 + 2) * 3 == 9") == true)
        #expect(try evaluateCondition("-2 * -3 == 6") == true)
        #expect(try evaluateCondition("7 % 4 == 3") == true)
        #expect(try evaluateCondition("24h == 1d and 90s == 1.5m and 2w == 14d") == true)
        #expect(try evaluateCondition("1h / 30m == 2") == true)
        #expect(try evaluateCondition("not 1 > 2 and 3 >= 3 or false") == true)
        #expect(try evaluateCondition("true or false and false") == true, "and binds tighter than or")
        #expect(try evaluateCondition("'a\\'b' == \"a'b\"") == true)
    }

    @Test("signals, in, lists and functions")
    func signalsAndFunctions() throws {
        let signals: [String: SignalValue] = [
            "receipt.risk_metric": .number(12),
            "request.action": .string("Claim_Promo"),
            "key.attested_at": .timestamp(1_000_000 - 7_200),
            "key.age": .duration(7_200),
        ]
        #expect(try evaluateCondition("receipt.risk_metric >= 10", signals) == true)
        #expect(try evaluateCondition("lower(request.action) in [\"claim_promo\", \"purchase\"]", signals) == true)
        #expect(try evaluateCondition("request.action not in [\"purchase\"]", signals) == true)
        #expect(try evaluateCondition("receipt.risk_metric in [1, 12]", signals) == true)
        #expect(try evaluateCondition("age(key.attested_at) == 2h and key.age < 1d", signals) == true)
        #expect(try evaluateCondition("min(receipt.risk_metric, 3) == 3 and max(key.age, 3h) == 3h", signals) == true)
        #expect(try evaluateCondition("velocity.assertions.key.1h > 5", ["velocity.assertions.key.1h": .number(6)]) == true)
    }

    @Test("missing values: propagation, three-valued and/or, missing() and coalesce()")
    func missingSemantics() throws {
        let none: [String: SignalValue] = [:]
        #expect(try evaluateCondition("receipt.risk_metric >= 10", none) == nil)
        #expect(try evaluateCondition("receipt.risk_metric + 1 > 0", none) == nil)
        #expect(try evaluateCondition("not (receipt.risk_metric >= 10)", none) == nil)
        #expect(try evaluateCondition("receipt.risk_metric >= 10 and false", none) == false)
        #expect(try evaluateCondition("false and receipt.risk_metric >= 10", none) == false)
        #expect(try evaluateCondition("receipt.risk_metric >= 10 or true", none) == true)
        #expect(try evaluateCondition("receipt.risk_metric >= 10 or false", none) == nil)
        #expect(try evaluateCondition("receipt.risk_metric >= 10 and true", none) == nil)
        #expect(try evaluateCondition("missing(receipt.risk_metric)", none) == true)
        #expect(try evaluateCondition("coalesce(receipt.risk_metric, 0) == 0", none) == true)
        #expect(try evaluateCondition("request.user_id in [\"a\"]", none) == nil)
        #expect(try evaluateCondition("1 / 0 > 0") == nil, "division by zero is missing")
    }

    @Test("type errors, unknown names and syntax errors are refused with a code and a hint")
    func refusals() {
        func first(_ expression: String) -> RuleSetError? {
            loadErrors("""
                version: 1
                rules:
                  - id: probe
                    when: '\(expression)'
                    score: 1
                """).first
        }
        #expect(first("receipt.risk_metrc >= 10")?.code == .unknownSignal)
        #expect(first("receipt.risk_metrc >= 10")?.hint?.contains("receipt.risk_metric") == true)
        #expect(first("key.age > 24")?.code == .typeMismatch)
        #expect(first("key.age > 24")?.hint?.contains("unit") == true)
        #expect(first("receipt.risk_metric")?.code == .typeMismatch, "a condition must be a boolean")
        #expect(first("request.action > \"a\"")?.code == .typeMismatch)
        #expect(first("request.action + 1 > 2")?.code == .typeMismatch)
        #expect(first("key.age = 1h")?.code == .syntax)
        #expect(first("key.age = 1h")?.hint?.contains("==") == true)
        #expect(first("a && b")?.code == .syntax)
        #expect(first("1 < 2 < 3")?.code == .syntax)
        #expect(first("(1 < 2")?.code == .syntax)
        #expect(first("ages(key.attested_at) > 1h")?.code == .unknownFunction)
        #expect(first("request.user_id in list(\"testers\")")?.code == .unknownList)
        #expect(first("velocity.assertions.key.2s > 1")?.code == .unknownSignal)
        #expect(first("velocity.assertion.key.1h > 1")?.hint?.contains("assertions") == true)
        #expect(first("velocity.assertions.phone.1h > 1")?.code == .unknownSignal)
        #expect(first("attributes.cart_total > 1")?.code == .unknownSignal)
        #expect(first("12abc > 1")?.code == .syntax)
        #expect(first(String(repeating: "(", count: 100) + "true" + String(repeating: ")", count: 100))?.code == .syntax)
    }

    @Test("version_below compares bundle versions number by number; anything else is missing")
    func bundleVersions() throws {
        func below(_ version: String?, _ bound: String) throws -> Bool? {
            try evaluateCondition("version_below(request.bundle_version, \"\(bound)\")", version.map { ["request.bundle_version": .string($0)] } ?? [:])
        }
        #expect(try below("4.9", "4.10") == true, "numbers, not text: 9 < 10")
        #expect(try below("4.10", "4.9") == false)
        #expect(try below("4.2", "4.2.0") == false, "absent numbers are zero")
        #expect(try below("4.2.0.0", "4.2") == false)
        #expect(try below("4.1.9", "4.2") == true)
        #expect(try below("10", "9.9.9") == false)
        #expect(try below("0", "0.0.1") == true)
        #expect(try below("007", "7") == false, "leading zeros are the same number")
        #expect(try below("2026042101", "2026042102") == true, "date-style build numbers are versions")
        #expect(try below(nil, "4.2") == nil, "missing stays missing")
        for notAVersion in ["", "4.2b", "4..2", ".4", "4.", "v4", "4.2 ", "-1", "1234567890123456789", "1.2.3.4.5.6.7.8.9"] {
            #expect(try below(notAVersion, "4.2") == nil, "\"\(notAVersion)\" is not a version")
        }
        #expect(try evaluateCondition("not version_below(coalesce(request.bundle_version, \"0\"), \"1\")") == false)
    }

    @Test("version_below takes a string and a literal version")
    func bundleVersionRefusals() {
        func first(_ expression: String) -> RuleSetError? {
            loadErrors("version: 1\nrules:\n  - id: probe\n    when: '\(expression)'\n    score: 1\n").first
        }
        #expect(first(#"version_below(request.bundle_version, "4.x")"#)?.code == .wrongArguments)
        #expect(first(#"version_below(request.bundle_version, "4.x")"#)?.hint?.contains("4.2") == true)
        #expect(first(#"version_below(request.bundle_version, request.action)"#)?.code == .wrongArguments)
        #expect(first(#"version_below(key.counter, "4")"#)?.code == .typeMismatch)
        #expect(first(#"version_below(request.bundle_version)"#)?.code == .wrongArguments)
        #expect(first(#"version_blow(request.bundle_version, "4")"#)?.hint?.contains("version_below") == true)
    }

    @Test("velocity windows are whole minutes from 1m to 30d")
    func velocityWindows() {
        #expect(SignalSchema.velocityWindow("1m") == 60)
        #expect(SignalSchema.velocityWindow("24h") == 86_400)
        #expect(SignalSchema.velocityWindow("30d") == 2_592_000)
        #expect(SignalSchema.velocityWindow("31d") == nil)
        #expect(SignalSchema.velocityWindow("0m") == nil)
        #expect(SignalSchema.velocityWindow("30s") == nil)
        #expect(SignalSchema.velocityWindow("h") == nil)
    }
}
