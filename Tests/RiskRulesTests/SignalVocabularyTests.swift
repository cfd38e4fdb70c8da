import AttestVocabulary
import RiskRules
import Testing

/// The schema describes exactly the signals the vocabulary names: every fixed signal, every velocity event and
/// dimension, and the velocity windows' limits.
@Suite("Signal names: the vocabulary and the schema")
struct SignalVocabularyTests {
    @Test("every fixed signal has one definition, and every definition is a fixed signal")
    func fixedSignals() {
        let defined = SignalSchema.fixed.map(\.name)
        #expect(defined.count == Set(defined).count, "a signal is defined twice")
        #expect(Set(defined) == Set(FixedSignal.allCases.map(\.rawValue)))
    }

    @Test("a fixed signal's ordinal is its position among all cases")
    func fixedSignalOrdinals() {
        #expect(FixedSignal.allCases.enumerated().allSatisfy { $0.offset == $0.element.ordinal })
        #expect(FixedSignal.allCases.count <= 256, "ordinal reads the case as one byte")
    }

    @Test("velocity events and dimensions are the vocabulary's")
    func velocityFamilies() {
        #expect(SignalSchema.velocityEvents.map(\.name) == VelocityEvent.allCases.map(\.rawValue))
        #expect(SignalSchema.velocityDimensions.map(\.name) == VelocityDimension.allCases.map(\.rawValue))
    }

    @Test("typed constructors write the names rules read, and the schema knows them")
    func constructedNames() throws {
        let name = SignalName.velocity(.newKeys, per: .ip, window: .hours(24))
        #expect(name.rawValue == "velocity.new_keys.ip.24h")
        #expect(SignalName.attribute("account_age").rawValue == "attributes.account_age")
        #expect(SignalName(.receiptRiskMetric).rawValue == "receipt.risk_metric")
        let yaml = """
            version: 1
            attributes:
              account_age: duration
            rules:
              - id: farm
                when: \(name) > 3 and \(SignalName.attribute("account_age")) < 1d and \(SignalName(.receiptRiskMetric)) > 5
                score: 10
            """
        let ruleSet = try RuleSetLoader.compile(documents: [("v.yaml", yaml)]) { _ in "" }
        #expect(ruleSet.rules.map(\.id) == ["farm"])
    }

    @Test("windows: whole units from 1m to 30d, written back as read", arguments: ["1m", "15m", "1h", "24h", "7d", "30d", "2w"])
    func windows(segment: String) throws {
        let window = try #require(SignalWindow(segment: segment))
        #expect(window.description == segment)
        #expect(SignalSchema.velocityWindow(segment) == Double(window.seconds))
    }

    @Test("windows outside the range or not whole units are refused", arguments: ["0m", "59s", "31d", "5w", "1.5h", "h", "", "-1h", "720h1"])
    func refusedWindows(segment: String) {
        #expect(SignalWindow(segment: segment) == nil)
        #expect(SignalSchema.velocityWindow(segment) == nil)
    }

    @Test("a window written with a leading zero or sign reads as its canonical form")
    func canonicalWindows() throws {
        #expect(try #require(SignalWindow(segment: "05m")).description == "5m")
        #expect(try #require(SignalWindow(segment: "+2h")).description == "2h")
        #expect(SignalSchema.velocityWindow("05m") == 300)
    }

    @Test("constructed windows")
    func constructedWindows() {
        #expect(SignalWindow.minutes(15).seconds == 900)
        #expect(SignalWindow.days(30).seconds == 30 * 86_400)
        #expect(SignalWindow.weeks(4).description == "4w")
        #expect(SignalWindow(31, .days) == nil && SignalWindow(Int.max, .weeks) == nil)
    }
}
