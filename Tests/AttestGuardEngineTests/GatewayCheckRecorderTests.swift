import AttestGuardEngine
import AttestGuardStore
import Foundation
import Synchronization
import Testing

@Suite("Forward-auth answers counted behind the requests")
struct GatewayCheckRecorderTests {
    /// Keeps what it is given, or fails while told to.
    final class RecordingStore: GatewayCheckStore {
        struct Down: Error {}
        let added = Mutex<[GatewayCheckCount]>([])
        let failing = Mutex(false)

        func addGatewayChecks(_ counts: [GatewayCheckCount]) async throws {
            if failing.withLock({ $0 }) { throw Down() }
            added.withLock { $0 += counts }
        }
        func gatewayChecks(appId: String, from: Int64, to: Int64, limit: Int) async throws -> [GatewayCheckCount] { [] }
        func purgeGatewayChecks(before: Int64) async throws -> Int { 0 }

        var totals: [String: Int64] {
            added.withLock { counts in
                counts.reduce(into: [:]) { $0["\($1.route) \($1.outcome) \($1.passed) \($1.bucketStart)", default: 0] += $1.count }
            }
        }
    }

    static let app = "ABCDE12345.com.example.app"

    @Test("answers sum per route, outcome, result and bucket; a failed flush keeps them for the next")
    func sumsAndRetries() async throws {
        let store = RecordingStore()
        let recorder = GatewayCheckRecorder(store: store)
        let start = Date(timeIntervalSince1970: 1_800)
        for _ in 0..<3 { recorder.note(appId: Self.app, route: "/api/a", outcome: "verified", passed: true, at: start) }
        recorder.note(appId: Self.app, route: "/api/a", outcome: "missing", passed: false, at: start.addingTimeInterval(299))
        recorder.note(appId: Self.app, route: "/api/a", outcome: "verified", passed: true, at: start.addingTimeInterval(300))
        store.failing.withLock { $0 = true }
        await #expect(throws: RecordingStore.Down.self) { try await recorder.flush() }
        #expect(recorder.backlog.pending == 3, "kept for the next flush")
        recorder.note(appId: Self.app, route: "/api/a", outcome: "verified", passed: true, at: start)
        store.failing.withLock { $0 = false }
        try await recorder.flush()
        #expect(store.totals == ["/api/a verified true 1800": 4, "/api/a missing false 1800": 1, "/api/a verified true 2100": 1])
        #expect(recorder.backlog.pending == 0)
        try await recorder.flush()
        #expect(store.added.withLock { $0.count } == 3, "an empty flush writes nothing")
    }

    @Test("past the bound, new counters are dropped and counted; known ones still count")
    func bounded() async throws {
        let store = RecordingStore()
        let recorder = GatewayCheckRecorder(store: store, maximumPending: 2)
        let now = Date(timeIntervalSince1970: 1_800)
        for route in ["/a", "/b", "/c", "/d"] { recorder.note(appId: Self.app, route: route, outcome: "open", passed: true, at: now) }
        recorder.note(appId: Self.app, route: "/a", outcome: "open", passed: true, at: now)
        #expect(recorder.backlog.pending == 2 && recorder.backlog.dropped == 2)
        try await recorder.flush()
        #expect(store.totals == ["/a open true 1800": 2, "/b open true 1800": 1])
    }
}
