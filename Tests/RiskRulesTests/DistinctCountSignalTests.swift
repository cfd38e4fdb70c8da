import AttestVocabulary
import Foundation
@testable import RiskRules
import Testing

@Suite("Distinct count signals")
struct DistinctCountSignalTests {
    @Test("twelve counts, each of one subject per another; names as the vocabulary writes them")
    func vocabulary() {
        #expect(DistinctCount.all.count == 12)
        #expect(Set(DistinctCount.all).count == 12)
        #expect(DistinctCount.all.allSatisfy { $0.counted != $0.per })
        #expect(DistinctCount(counted: .user, per: .user) == nil)
        #expect(SignalName.distinct(.user, per: .device, window: .hours(24)).rawValue == "distinct.users.device.24h")
        #expect(VelocityDimension(plural: "ips") == .ip)
        #expect(VelocityDimension(plural: "ip") == nil)
    }

    @Test("every count and window loads as a number; a wrong name is a problem at its column with a hint", arguments: [
        ("distinct.user.device.24h", "cannot count `user`", "did you mean `users`?"),
        ("distinct.users.phone.24h", "not kept per `phone`", "kept per key, user, device, ip"),
        ("distinct.users.user.24h", "always 1", "distinct.devices.user.24h"),
        ("distinct.users.device.45d", "not a distinct count's window", "from 1m to 30d"),
        ("distinct.users.device", "is not a distinct count", "distinct.<counted>.<per>.<window>"),
    ])
    func names(name: String, message: String, hint: String) throws {
        for count in DistinctCount.all {
            let signal = "distinct.\(count)"
            #expect(try evaluateCondition("\(signal).7d >= 3", ["\(signal).7d": .number(3)]) == true)
        }
        let errors = loadErrors("""
            version: 1
            rules:
              - id: probe
                when: \(name) >= 3
                score: 1
            """)
        let problem = try #require(errors.first)
        #expect(problem.code == .unknownSignal, "\(errors)")
        #expect(problem.message.contains(message), "\(problem.message)")
        #expect(problem.hint?.contains(hint) == true, "\(problem.hint ?? "no hint")")
    }

    static let candidate: RuleSet = {
        let yaml = """
            version: 1
            rules:
              - id: shared-device
                when: distinct.users.device.1h >= 3
                decide: deny
            """
        do { return try ruleSet(yaml) } catch { preconditionFailure("\(error)") }
    }()

    static func decision(at instant: Date, user: String, device: String?, signals: String = "{}") -> Backtest.LoggedDecision {
        Backtest.LoggedDecision(
            decidedAt: instant, decision: .allow, fired: [], signals: signals,
            subjects: DistinctReplay.Subjects(appId: "A", key: nil, user: user, device: device, ip: "ip-1", decidedAt: instant)
        )
    }

    @Test("a backtest recomputes a distinct count the snapshots lack from the logged subjects, lead-in included")
    func backtestRecomputes() {
        let start = Date(timeIntervalSince1970: 1_767_225_600)
        #expect(DistinctReplay.leadIn(for: Self.candidate) == 3_600)
        var backtest = Backtest(candidate: Self.candidate)
        // Before the range: u1 two hours earlier (outside the window), u2 half an hour earlier (inside).
        backtest.recordLeadIn(DistinctReplay.Subjects(appId: "A", key: nil, user: "u1", device: "d", ip: nil, decidedAt: start.addingTimeInterval(-7_200)))
        backtest.recordLeadIn(DistinctReplay.Subjects(appId: "A", key: nil, user: "u2", device: "d", ip: nil, decidedAt: start.addingTimeInterval(-1_800)))
        backtest.replay(Self.decision(at: start, user: "u3", device: "d"))
        #expect(backtest.report.hitsAfter["shared-device"] == nil, "u2 and u3: 2")
        backtest.replay(Self.decision(at: start.addingTimeInterval(60), user: "u4", device: "d"))
        #expect(backtest.report.hitsAfter["shared-device"] == 1, "u2, u3, u4")
        // Another app's device of the same hash is another series; a decision without a device reads missing.
        var other = Self.decision(at: start.addingTimeInterval(120), user: "u5", device: "d")
        other.subjects?.appId = "B"
        backtest.replay(other)
        backtest.replay(Self.decision(at: start.addingTimeInterval(180), user: "u6", device: nil))
        // A snapshot that holds the count is taken as logged.
        backtest.replay(Self.decision(at: start.addingTimeInterval(240), user: "u2", device: "d", signals: #"{"distinct.users.device.1h": 1}"#))
        #expect(backtest.report.hitsAfter["shared-device"] == 1)
        #expect(backtest.report.recomputedSignals == ["distinct.users.device.1h": 4])
        #expect(backtest.report.missingSignals["distinct.users.device.1h"] == nil)
        #expect(backtest.report.matrix[.allow]?[.deny] == 1)
    }

    @Test("without the logged subjects a distinct count the snapshot lacks is missing, as any signal")
    func withoutSubjects() {
        var backtest = Backtest(candidate: Self.candidate)
        backtest.replay(Backtest.LoggedDecision(decidedAt: Date(), decision: .allow, fired: [], signals: "{}"))
        #expect(backtest.report.missingSignals["distinct.users.device.1h"] == 1)
        #expect(backtest.report.recomputedSignals.isEmpty)
    }
}
