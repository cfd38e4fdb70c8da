@testable import AttestGuard
import AttestTestSupport
import Foundation
import RiskStore
import Synchronization
import Testing

/// Reads that overlap a flush, step by step: the store below is held at each point where a read could miss or
/// double a batch, and the read must count every event exactly once without waiting for the flush.
@Suite("Velocity reads during flushes")
struct VelocityFlushTests {
    static let appId = VelocityTests.appId
    static let subjects = VelocitySubjects(user: "overlap")

    static func record(_ recorder: VelocityRecorder, _ count: Int) {
        for _ in 0..<count {
            recorder.record(.scoreRequests, appId: appId, subjects: subjects, at: VelocityTests.start)
        }
    }

    /// A recorder over the test store, held by a ``HeldVelocityStore``.
    static func held(_ test: TestStore) -> (HeldVelocityStore, VelocityRecorder) {
        let store = HeldVelocityStore(test.store)
        return (store, VelocityRecorder(store: store, keying: .publicTestKey, clock: ManualClock(VelocityTests.start)))
    }

    static func read(_ recorder: VelocityRecorder) async throws -> Int64 {
        let sum = VelocitySum(
            subject: recorder.keying.subject("user", "overlap"), event: "score_requests",
            since: Int64(VelocityTests.start.timeIntervalSince1970) - 60
        )
        return try await recorder.sums(appId: appId, [sum])[0]
    }

    @Test("a read while the batch is in flight, before and after its commit, counts it once", arguments: TestStoreBackend.available)
    func readDuringFlush(backend: TestStoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let (store, recorder) = Self.held(test)
            Self.record(recorder, 3)
            store.holdAdd.close()
            store.holdAfterAdd.close()
            let flush = Task { try await recorder.flush() }
            await store.addEntered.wait()
            #expect(try await Self.read(recorder) == 3, "in flight, not committed: counted from memory")
            store.holdAdd.open()
            await store.addCommitted.wait()
            #expect(try await Self.read(recorder) == 3, "committed, the flush not yet returned: counted from the store only")
            Self.record(recorder, 2)
            #expect(try await Self.read(recorder) == 5, "newer events pending beside the committed batch")
            store.holdAfterAdd.open()
            try await flush.value
            #expect(try await Self.read(recorder) == 5)
            try await recorder.flush()
            #expect(try await Self.read(recorder) == 5)
            #expect(recorder.backlog.pending == 0)
        }
    }

    @Test("a read that looked at memory before a flush and at the store after its commit counts the batch once", arguments: TestStoreBackend.available)
    func readStraddlesFlush(backend: TestStoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let (store, recorder) = Self.held(test)
            Self.record(recorder, 4)
            store.holdSums.close()
            let read = Task { try await Self.read(recorder) }
            await store.sumsEntered.wait()
            try await recorder.flush()
            store.holdSums.open()
            #expect(try await read.value == 4)
        }
    }

    @Test("a failed flush puts its batch back: reads keep counting it once, and the next flush writes it", arguments: TestStoreBackend.available)
    func failedFlush(backend: TestStoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let (store, recorder) = Self.held(test)
            Self.record(recorder, 2)
            store.failAdds.withLock { $0 = true }
            await #expect(throws: StoreError.self) { try await recorder.flush() }
            #expect(try await Self.read(recorder) == 2)
            Self.record(recorder, 1)
            store.failAdds.withLock { $0 = false }
            try await recorder.flush()
            #expect(try await Self.read(recorder) == 3)
            #expect(try await test.store.velocitySums(appId: Self.appId, [VelocitySum(
                subject: recorder.keying.subject("user", "overlap"), event: "score_requests", since: 0
            )]) == [3], "written once")
        }
    }
}

/// A velocity store whose writes and reads can be held at chosen points, and whose writes can fail.
final class HeldVelocityStore: VelocityStore {
    let inner: any VelocityStore
    let holdAdd = Gate()
    let holdAfterAdd = Gate()
    let holdSums = Gate()
    let addEntered = Gate(closed: true)
    let addCommitted = Gate(closed: true)
    let sumsEntered = Gate(closed: true)
    let failAdds = Mutex(false)

    init(_ inner: any VelocityStore) {
        self.inner = inner
    }

    func addVelocity(_ increments: [VelocityIncrement], flush: VelocityFlush?) async throws {
        addEntered.open()
        await holdAdd.wait()
        if failAdds.withLock({ $0 }) { throw StoreError(.unavailable, "held store: failing on purpose") }
        try await inner.addVelocity(increments, flush: flush)
        addCommitted.open()
        await holdAfterAdd.wait()
    }

    func velocitySums(appId: String, _ sums: [VelocitySum], writer: String?) async throws -> VelocityReading {
        sumsEntered.open()
        await holdSums.wait()
        return try await inner.velocitySums(appId: appId, sums, writer: writer)
    }

    func rollUpVelocity(granularity: Int, into coarser: Int, before: Int64, limit: Int) async throws -> Int {
        try await inner.rollUpVelocity(granularity: granularity, into: coarser, before: before, limit: limit)
    }

    func purgeVelocity(granularity: Int, before: Int64) async throws -> Int {
        try await inner.purgeVelocity(granularity: granularity, before: before)
    }

    func purgeVelocityFlushes(before: Date) async throws -> Int {
        try await inner.purgeVelocityFlushes(before: before)
    }
}

/// Open or closed; `wait()` returns at once when open, else when it opens.
final class Gate: Sendable {
    private let state: Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>

    init(closed: Bool = false) {
        state = Mutex((!closed, []))
    }

    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0.resume() }
    }

    func close() {
        state.withLock { $0.open = false }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
    }
}
