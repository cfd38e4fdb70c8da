@testable import AttestGuard
import AttestTestSupport
import Foundation
import RiskRules
import RiskStore
import Testing

@Suite("Decision log")
struct DecisionLogTests {
    @Test("every verdict is queued off the request path and written in batches, with hashed ids and a snapshot without raw ids", arguments: TestStoreBackend.available)
    func writesVerdicts(backend: TestStoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let clock = ManualClock(VelocityTests.start)
            let engine = VelocityTests.engine(test.store, clock: clock)
            for _ in 0..<6 {
                _ = try await engine.scorer.score(ScoreRequest(appId: VelocityTests.appId, userId: "user-1", ip: "203.0.113.9", action: "buy"))
            }
            #expect(engine.scorer.decisionLog.backlog.queued == 6)
            #expect(try await test.store.decisions(since: .distantPast, after: nil, limit: 10).isEmpty, "nothing is written on the request path")
            try await engine.scorer.decisionLog.flush()
            #expect(engine.scorer.decisionLog.backlog.queued == 0)
            let logged = try await test.store.decisions(since: .distantPast, after: nil, limit: 10)
            #expect(logged.count == 6)
            #expect(logged.prefix(4).allSatisfy { $0.decision == "allow" && $0.fired.isEmpty })
            let last = try #require(logged.last)
            #expect(last.decision == "review" && last.ruleDecision == "review" && last.endpoint == "score" && last.ruleSetVersion == VelocityTests.rules.version)
            #expect(last.fired == "busy-user", "the sixth request of one minute fires the velocity rule")
            #expect(last.userHash != nil && last.userHash != "user-1" && last.ipHash != nil && last.ipHash != "203.0.113.9")
            #expect(!last.signals.contains("user-1") && !last.signals.contains("203.0.113.9"))
            #expect(last.signals.contains(#""velocity.score_requests.user.1m":6"#), "\(last.signals)")
        }
    }

    @Test("the queue is bounded: past its limit the oldest entries are dropped and counted")
    func boundedQueue() async throws {
        try await withTestStore(.sqlite) { (test: TestStore) async throws in
            let writer = DecisionLogWriter(store: test.store, maximumQueued: 3)
            for index in 0..<5 {
                writer.append(DecisionLogEntry(
                    appId: "a", decidedAt: Date(timeIntervalSince1970: Double(index)), endpoint: "score", keyId: nil, userHash: nil, ipHash: nil,
                    decision: "allow", ruleDecision: "allow", score: 0, ruleSetVersion: "v", fired: "", signals: "{}"
                ))
            }
            #expect(writer.backlog.queued == 3 && writer.backlog.dropped == 2)
            try await writer.flush()
            #expect(try await test.store.decisions(since: .distantPast, after: nil, limit: 10).map(\.decidedAt.timeIntervalSince1970) == [2, 3, 4])
        }
    }
}
