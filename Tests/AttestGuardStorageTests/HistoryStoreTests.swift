import AttestTestSupport
import AttestVocabulary
import Foundation
import AttestGuardStore
import Testing

/// The analysts' reads: a key's risk metrics newest first, and the decision log searched by key, user or device.
@Suite("History and decision search in the store")
struct HistoryStoreTests {
    static let app = StoreFixtures.appId
    static let otherApp = StoreFixtures.otherAppId

    static func entry(
        _ offset: TimeInterval, app: String = app, key: String? = nil, user: String? = nil, device: String? = nil, decision: Decision = .allow
    ) -> DecisionLogEntry {
        DecisionLogEntry(
            appId: app, decidedAt: StoreFixtures.now.addingTimeInterval(offset), endpoint: .assertion, keyId: key, userHash: user, ipHash: "h-ip",
            deviceHash: device, decision: decision, ruleDecision: decision, score: 5, ruleSetVersion: "sha256:0011223344556677", fired: "a",
            signals: #"{"key.status":"active"}"#
        )
    }

    static func search(
        _ subject: DecisionSearch.Subject, app: String = app, from: TimeInterval = -86_400, to: TimeInterval = 86_400,
        after: DecisionLogPosition? = nil, limit: Int = 100
    ) -> DecisionSearch {
        DecisionSearch(
            appId: app, subject: subject, from: StoreFixtures.now.addingTimeInterval(from), to: StoreFixtures.now.addingTimeInterval(to),
            after: after, limit: limit
        )
    }

    /// Every page of `search`, following each page's last entry as a cursor carries it: its instant in whole
    /// microseconds since 1970, read back as a `Date` (which PostgresNIO's own encoding would put a microsecond early
    /// about one time in four).
    static func pages(_ store: any RiskStore, _ search: DecisionSearch) async throws -> [[DecisionLogEntry]] {
        var pages: [[DecisionLogEntry]] = []
        var search = search
        while true {
            let page = try await store.searchDecisions(search)
            guard let last = page.last else { return pages }
            pages.append(page)
            let microseconds = (last.decidedAt.timeIntervalSince1970 * 1_000_000).rounded()
            search.after = DecisionLogPosition(decidedAt: Date(timeIntervalSince1970: microseconds / 1_000_000), sequence: last.sequence)
        }
    }

    @Test("pages run newest first without gaps or repeats, also through entries decided at one instant", arguments: StoreBackend.available)
    func pagingAcrossEqualInstants(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            // 40 entries on 8 instants (5 at each), with microseconds on PostgreSQL, over two days.
            var entries: [DecisionLogEntry] = []
            for index in 0..<40 {
                let instant = Double(index / 5)
                entries.append(Self.entry(instant * 3_600 * 5 + instant * 0.123_457, user: "h-user", decision: index % 2 == 0 ? .allow : .deny))
            }
            // Written out of order, in batches, as several processes would.
            try await store.appendDecisions(Array(entries[20...]))
            try await store.appendDecisions(Array(entries[..<20].reversed()))
            let pages = try await Self.pages(store, Self.search(.userHash("h-user"), from: -1, to: 2 * 86_400, limit: 7))
            #expect(pages.map(\.count) == [7, 7, 7, 7, 7, 5])
            let read = pages.flatMap { $0 }
            #expect(Set(read.map(\.sequence)).count == 40, "every entry once")
            let positions = read.map { ($0.decidedAt, $0.sequence) }
            #expect(zip(positions, positions.dropFirst()).allSatisfy { $0.0 > $1.0 || ($0.0 == $1.0 && $0.1 > $1.1) }, "newest first")
            #expect(read.filter { $0.decision == .deny }.count == 20)
        }
    }

    @Test("the range includes its start and excludes its end", arguments: StoreBackend.available)
    func rangeBounds(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            try await store.appendDecisions([-10, 0, 5, 10, 20].map { Self.entry($0, key: "k1") })
            let found = try await store.searchDecisions(Self.search(.key("k1"), from: 0, to: 10))
            #expect(found.map(\.decidedAt) == [5, 0].map { StoreFixtures.now.addingTimeInterval($0) })
            #expect(try await store.searchDecisions(Self.search(.key("k1"), from: 0, to: 10, limit: 1)).count == 1)
            #expect(try await store.searchDecisions(Self.search(.key("k1"), from: 30, to: 40)).isEmpty)
        }
    }

    @Test("a search sees only its app and its subject", arguments: StoreBackend.available)
    func subjectIsolation(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            try await store.appendDecisions([
                Self.entry(1, key: "k1", user: "h-u1", device: "h-d1"),
                Self.entry(2, key: "k2", user: "h-u2", device: "h-d2"),
                Self.entry(3, key: "k3", user: "h-u1", device: nil),
                // The same subjects in another app (a user's hash is the same in every app).
                Self.entry(4, app: Self.otherApp, key: "k1", user: "h-u1", device: "h-d1"),
            ])
            #expect(try await store.searchDecisions(Self.search(.key("k1"))).map(\.keyId) == ["k1"])
            #expect(try await store.searchDecisions(Self.search(.userHash("h-u1"))).map(\.keyId) == ["k3", "k1"])
            #expect(try await store.searchDecisions(Self.search(.deviceHash("h-d1"))).map(\.keyId) == ["k1"])
            #expect(try await store.searchDecisions(Self.search(.deviceHash("h-d2"))).map(\.deviceHash) == ["h-d2"])
            let other = try await store.searchDecisions(Self.search(.userHash("h-u1"), app: Self.otherApp))
            #expect(other.map(\.appId) == [Self.otherApp])
            #expect(try await store.searchDecisions(Self.search(.userHash("h-u9"))).isEmpty)
        }
    }

    @Test("entries keep the device hash, and entries without one are found by key and user", arguments: StoreBackend.available)
    func deviceHashRoundTrip(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            try await store.appendDecisions([Self.entry(0, key: "k1", user: "h-u1", device: "h-d1"), Self.entry(1, key: "k1", user: "h-u1")])
            let all = try await store.decisions(since: .distantPast, after: nil, limit: 10)
            #expect(all.map(\.deviceHash) == ["h-d1", nil])
            #expect(try await store.searchDecisions(Self.search(.key("k1"))).count == 2)
            #expect(try await store.searchDecisions(Self.search(.deviceHash("h-d1"))).map(\.decidedAt) == [StoreFixtures.now])
        }
    }

    @Test("a key's risk metrics come newest first, at most the limit, of that key only", arguments: StoreBackend.available)
    func recentRiskMetrics(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            let key = try await ReceiptScheduleStoreTests.registerDue(store)
            let other = try await ReceiptScheduleStoreTests.registerDue(store)
            for (offset, metric) in [(10.0, 1), (20, 2), (30, 5), (40, 3)] {
                let receipt = ReceiptScheduleStoreTests.refreshed(key, metric: metric, createdOffset: offset)
                _ = try await store.replaceReceipt(ReceiptReplacement(receipt: receipt, leaseOwner: "w", observedAt: receipt.createdAt.addingTimeInterval(1)))
            }
            let recent = try await store.recentRiskMetrics(appId: key.appId, keyId: key.keyId, limit: 3)
            #expect(recent.map(\.riskMetric) == [3, 5, 2])
            #expect(recent.first?.observedAt == StoreFixtures.now.addingTimeInterval(41))
            #expect(try await store.recentRiskMetrics(appId: other.appId, keyId: other.keyId, limit: 3).isEmpty)
            #expect(try await store.recentRiskMetrics(appId: Self.otherApp, keyId: key.keyId, limit: 3).isEmpty)
        }
    }
}
