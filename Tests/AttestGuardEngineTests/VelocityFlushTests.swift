import AttestVocabulary
@testable import AttestGuardEngine
import AttestTestSupport
import Foundation
import AttestGuardStore
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
            subject: recorder.keying.subject(.user, "overlap"), event: "score_requests",
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
                subject: recorder.keying.subject(.user, "overlap"), event: "score_requests", since: 0
            )]) == [3], "written once")
        }
    }

    // MARK: - Flushes written in chunks

    static let users = (0..<40).map { "chunked-\($0)" }

    /// A recorder writing one slot per chunk, with `events(user)` events recorded for each of ``users``.
    static func chunked(_ test: TestStore, events: (Int) -> Int) -> (HeldVelocityStore, VelocityRecorder) {
        let store = HeldVelocityStore(test.store)
        let recorder = VelocityRecorder(store: store, keying: .publicTestKey, chunkRows: 1, clock: ManualClock(VelocityTests.start))
        for (index, user) in users.enumerated() {
            for _ in 0..<events(index) {
                recorder.record(.scoreRequests, appId: appId, subjects: VelocitySubjects(user: user), at: VelocityTests.start)
            }
        }
        return (store, recorder)
    }

    static func sums(_ recorder: VelocityRecorder) -> [VelocitySum] {
        users.map { user in
            VelocitySum(subject: recorder.keying.subject(.user, user), event: "score_requests", since: Int64(VelocityTests.start.timeIntervalSince1970) - 60)
        }
    }

    @Test("a batch is cut into chunks of whole slots in slot order, every series in exactly one")
    func chunking() {
        var batch: VelocityRecorder.Batch = [:]
        for index in 0..<500 {
            batch[VelocityRecorder.Series(appId: Self.appId, subject: "s\(index)", event: "e")] = [60: Int64(index + 1), 120: 1]
        }
        let chunks = VelocityRecorder.chunks(of: batch, rows: 50)
        #expect(chunks.count > 1)
        let lastSlots: [Int64] = chunks.map(\.lastSlot)
        #expect(lastSlots == lastSlots.sorted())
        #expect(Set(lastSlots).count == chunks.count)
        #expect(chunks.dropLast().allSatisfy { $0.increments.count >= 50 }, "only the last chunk may be short")
        var previousLast: Int64 = -1
        for chunk in chunks {
            let slots = chunk.series.map(VelocityRecorder.slot(of:))
            #expect(slots.allSatisfy { $0 > previousLast && $0 <= chunk.lastSlot }, "whole slots, after the previous chunk's")
            previousLast = chunk.lastSlot
        }
        let written = chunks.flatMap(\.series)
        #expect(written.count == batch.count && Set(written) == Set(batch.keys))
        let writtenCount: Int64 = chunks.flatMap(\.increments).map(\.count).reduce(0, +)
        let batchCount: Int64 = batch.values.flatMap(\.values).reduce(0, +)
        #expect(writtenCount == batchCount)
        #expect(VelocityRecorder.chunks(of: [:], rows: 50).isEmpty)
    }

    @Test("a read between two chunks of one flush counts every series once", arguments: TestStoreBackend.available)
    func readBetweenChunks(backend: TestStoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let (store, recorder) = Self.chunked(test) { $0 % 3 + 1 }
            let truth = Self.users.indices.map { Int64($0 % 3 + 1) }
            store.holdAfterAdd.close()
            let flush = Task { try await recorder.flush() }
            await store.addCommitted.wait()
            #expect(store.adds.withLock { $0 } == 1, "held after the first chunk")
            #expect(try await recorder.sums(appId: Self.appId, Self.sums(recorder)) == truth, "one chunk committed, the others in flight")
            recorder.record(.scoreRequests, appId: Self.appId, subjects: VelocitySubjects(user: Self.users[0]), at: VelocityTests.start)
            var newer = truth
            newer[0] += 1
            #expect(try await recorder.sums(appId: Self.appId, Self.sums(recorder)) == newer, "and a newer event pending")
            store.holdAfterAdd.open()
            try await flush.value
            #expect(store.adds.withLock { $0 } > 2, "written in several chunks")
            #expect(try await recorder.sums(appId: Self.appId, Self.sums(recorder)) == newer)
            try await recorder.flush()
            #expect(try await test.store.velocitySums(appId: Self.appId, Self.sums(recorder)) == newer, "each written once")
        }
    }

    @Test("a chunk that fails puts itself and the later chunks back; the committed ones stay, nothing is written twice", arguments: TestStoreBackend.available)
    func failedChunk(backend: TestStoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let (store, recorder) = Self.chunked(test) { $0 + 1 }
            let truth = Self.users.indices.map { Int64($0 + 1) }
            store.failAddNumber.withLock { $0 = 3 }
            await #expect(throws: StoreError.self) { try await recorder.flush() }
            let stored = try await test.store.velocitySums(appId: Self.appId, Self.sums(recorder))
            #expect(stored.contains(0) && stored.contains { $0 > 0 }, "two chunks committed before the failure, the rest not")
            #expect(try await recorder.sums(appId: Self.appId, Self.sums(recorder)) == truth)
            #expect(recorder.backlog.pending == stored.filter { $0 == 0 }.count, "the uncommitted series are pending again")
            store.failAddNumber.withLock { $0 = nil }
            try await recorder.flush()
            #expect(try await test.store.velocitySums(appId: Self.appId, Self.sums(recorder)) == truth)
            #expect(try await recorder.sums(appId: Self.appId, Self.sums(recorder)) == truth)
        }
    }

    @Test("a flush spread over some time pauses between its chunks and still writes everything", arguments: [TestStoreBackend.sqlite])
    func spreadFlush(backend: TestStoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let (store, recorder) = Self.chunked(test) { _ in 1 }
            let started = ContinuousClock.now
            try await recorder.flush(spreadingOver: .milliseconds(300))
            let chunks = store.adds.withLock { $0 }
            #expect(chunks > 2)
            #expect(ContinuousClock.now - started >= .milliseconds(300), "\(chunks) chunks, paused between")
            #expect(try await test.store.velocitySums(appId: Self.appId, Self.sums(recorder)) == Self.users.map { _ in 1 })
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
    /// Fails the add with this number (1: the first), once.
    let failAddNumber = Mutex<Int?>(nil)
    /// Adds that reached the store (committed).
    let adds = Mutex(0)

    init(_ inner: any VelocityStore) {
        self.inner = inner
    }

    func addVelocity(_ increments: [VelocityIncrement], flush: VelocityFlush?) async throws {
        addEntered.open()
        await holdAdd.wait()
        if failAdds.withLock({ $0 }) { throw StoreError(.unavailable, "held store: failing on purpose") }
        let failThis = failAddNumber.withLock { number -> Bool in
            guard number == adds.withLock({ $0 }) + 1 else { return false }
            number = nil
            return true
        }
        if failThis { throw StoreError(.unavailable, "held store: failing this add on purpose") }
        try await inner.addVelocity(increments, flush: flush)
        adds.withLock { $0 += 1 }
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
