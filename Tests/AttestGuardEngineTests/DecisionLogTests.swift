@testable import AttestGuardEngine
import AttestTestSupport
import Foundation
import RiskRules
import AttestGuardStore
import Synchronization
import Testing
import AttestVocabulary

@Suite("Decision log")
struct DecisionLogTests {
    @Test("every verdict is queued off the request path and written in batches, with hashed ids and a snapshot without raw ids", arguments: TestStoreBackend.available)
    func writesVerdicts(backend: TestStoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let clock = ManualClock(VelocityTests.start)
            let engine = VelocityTests.engine(test.store, clock: clock)
            for _ in 0..<6 {
                _ = try await engine.scorer.score(ScoreRequest(
                    appId: VelocityTests.appId, userId: try Identifier("user-1", field: "userId"), deviceId: try Identifier("device-1", field: "deviceId"),
                    ip: try ClientIP("203.0.113.9", field: "ip"), action: "buy"
                ))
            }
            #expect(engine.scorer.decisionLog.backlog.queued == 6)
            #expect(try await test.store.decisions(since: .distantPast, after: nil, limit: 10).isEmpty, "nothing is written on the request path")
            try await engine.scorer.decisionLog.flush()
            #expect(engine.scorer.decisionLog.backlog.queued == 0)
            let logged = try await test.store.decisions(since: .distantPast, after: nil, limit: 10)
            #expect(logged.count == 6)
            #expect(logged.prefix(4).allSatisfy { $0.decision == .allow && $0.fired.isEmpty })
            let last = try #require(logged.last)
            #expect(last.decision == .review && last.ruleDecision == .review && last.endpoint == .score && last.ruleSetVersion == VelocityTests.rules.version)
            #expect(last.fired == "busy-user", "the sixth request of one minute fires the velocity rule")
            #expect(last.userHash != nil && last.userHash != "user-1" && last.ipHash != nil && last.ipHash != "203.0.113.9")
            #expect(last.deviceHash != nil && last.deviceHash != "device-1" && last.deviceHash != last.userHash, "the device's keyed hash")
            #expect(!last.signals.contains("user-1") && !last.signals.contains("203.0.113.9") && !last.signals.contains("device-1"))
            #expect(last.signals.contains(#""velocity.score_requests.user.1m":6"#), "\(last.signals)")
        }
    }

    @Test("the queue is bounded: past its limit the oldest entries are dropped and counted")
    func boundedQueue() async throws {
        try await withTestStore(.sqlite) { (test: TestStore) async throws in
            let writer = DecisionLogWriter(store: test.store, maximumQueued: 3)
            for index in 0..<5 {
                writer.append(DecisionLogEntry(
                    appId: "a", decidedAt: Date(timeIntervalSince1970: Double(index)), endpoint: .score, keyId: nil, userHash: nil, ipHash: nil,
                    decision: .allow, ruleDecision: .allow, score: 0, ruleSetVersion: "v", fired: "", signals: "{}"
                ))
            }
            #expect(writer.backlog.queued == 3 && writer.backlog.dropped == 2)
            try await writer.flush()
            #expect(try await test.store.decisions(since: .distantPast, after: nil, limit: 10).map(\.decidedAt.timeIntervalSince1970) == [2, 3, 4])
        }
    }

    @Test("the snapshot is valid JSON with sorted keys: numbers, strings with every escape, booleans, null for missing and non-finite")
    func snapshotJSON() throws {
        let tricky = "quote \" backslash \\ newline \n tab \t bell \u{07} é 🔑 </script>"
        let signals: [String: SignalValue?] = [
            "receipt.risk_metric": .number(3),
            "key.age": .duration(90_061.25),
            "key.attested_at": .timestamp(1_795_000_000),
            "tiny": .number(1e-7),
            "huge": .number(1e300),
            "negative": .number(-42),
            "infinite": .number(.infinity),
            "not_a_number": .number(.nan),
            "request.action": .string(tricky),
            "devicecheck.bit0": .bool(true),
            "receipt.stale": .bool(false),
            "velocity.assertions.key.1m": nil,
            "request.user_id": .string("raw-user"),
            "request.ip": .string("203.0.113.9"),
            "request.device_id": .string("raw-device"),
        ]
        let text = DecisionSnapshot.json(signals.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) })
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(object["receipt.risk_metric"] as? Double == 3)
        #expect(object["key.age"] as? Double == 90_061.25)
        #expect(object["key.attested_at"] as? Double == 1_795_000_000)
        #expect(object["tiny"] as? Double == 1e-7)
        #expect(object["huge"] as? Double == 1e300)
        #expect(object["negative"] as? Double == -42)
        #expect(object["infinite"] is NSNull && object["not_a_number"] is NSNull)
        #expect(object["request.action"] as? String == tricky)
        #expect(object["devicecheck.bit0"] as? Bool == true && object["receipt.stale"] as? Bool == false)
        #expect(object["velocity.assertions.key.1m"] is NSNull)
        #expect(object["request.user_id"] == nil && object["request.ip"] == nil && object["request.device_id"] == nil)
        #expect(object.count == signals.count - 3)
        let keys = text.dropFirst().split(separator: ",").compactMap { $0.split(separator: ":").first }.filter { $0.hasPrefix("\"") }
        #expect(keys.first == "\"devicecheck.bit0\"" && keys.last == "\"velocity.assertions.key.1m\"", "keys in byte order: \(keys)")
        #expect(!text.contains("\u{07}") && text.contains("\\u0007"), "control characters escaped")
        #expect(DecisionSnapshot.json([]) == "{}")
    }

    @Test("a flush writes what was queued when it began, in batches; entries queued meanwhile wait for the next flush")
    func flushDoesNotChase() async throws {
        let store = RecordingDecisionStore()
        let writer = DecisionLogWriter(store: store, batchSize: 2)
        store.onAppend = { writer.append(Self.entry(100)) }
        for index in 0..<5 { writer.append(Self.entry(index)) }
        try await writer.flush()
        #expect(store.batches.withLock { $0 } == [[0, 1], [2, 3], [4]], "three batches of what was there, none of what came meanwhile")
        #expect(writer.backlog.queued == 3)
    }

    @Test("a failed batch goes back to the front of the queue, in order, ahead of entries queued since")
    func failedBatchRequeued() async throws {
        let store = RecordingDecisionStore()
        let writer = DecisionLogWriter(store: store, batchSize: 2)
        for index in 0..<5 { writer.append(Self.entry(index)) }
        store.failures.withLock { $0 = 1 }
        store.onAppend = { writer.append(Self.entry(100)) }
        await #expect(throws: RecordingDecisionStore.Unavailable.self) { try await writer.flush() }
        #expect(writer.backlog.queued == 6, "the failed batch is back, the untried ones stay, one entry came meanwhile")
        store.onAppend = {}
        try await writer.flush()
        #expect(store.batches.withLock { $0 } == [[0, 1], [2, 3], [4, 100]], "the failed batch first, then the rest in queue order")
        #expect(writer.backlog.queued == 0 && writer.backlog.dropped == 0)
    }

    static func entry(_ index: Int) -> DecisionLogEntry {
        DecisionLogEntry(
            appId: "a", decidedAt: Date(timeIntervalSince1970: Double(index)), endpoint: .score, keyId: nil, userHash: nil, ipHash: nil,
            decision: .allow, ruleDecision: .allow, score: 0, ruleSetVersion: "v", fired: "", signals: "{}"
        )
    }
}

/// A decision log store that only remembers the batches it was given (by their decision instants).
final class RecordingDecisionStore: DecisionLogStore, @unchecked Sendable {
    let batches = Mutex<[[Int]]>([])
    /// Called at the start of every append (set before use, never changed while flushing).
    var onAppend: @Sendable () -> Void = {}

    /// How many of the next appends fail (with ``Unavailable``) before writing anything.
    let failures = Mutex(0)

    struct Unavailable: Error {}

    func appendDecisions(_ entries: [DecisionLogEntry]) async throws {
        onAppend()
        let fail = failures.withLock { count in
            defer { count = max(0, count - 1) }
            return count > 0
        }
        if fail { throw Unavailable() }
        batches.withLock { $0.append(entries.map { Int($0.decidedAt.timeIntervalSince1970) }) }
    }

    func decisions(since: Date, after cursor: DecisionLogEntry?, limit: Int) async throws -> [DecisionLogEntry] { [] }

    func purgeDecisions(before: Date) async throws -> Int { 0 }
}
