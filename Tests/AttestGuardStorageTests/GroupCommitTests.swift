import AttestGuardStore
import Synchronization
import Testing

/// Group commit without a database: which calls share a batch, in what order, and whose failure is whose. The runs
/// are held at a gate the test opens, so every case is decided by the order of events, never by time.
@Suite("Group commit")
struct GroupCommitTests {
    /// A `run` that records each batch and waits at a gate until the test opens it.
    final class Recorder: Sendable {
        let batches = Mutex<[[Int]]>([])
        /// Each batch's oldest submission.
        let oldest = Mutex<[ContinuousClock.Instant]>([])
        let cancelledRuns = Atomic<Int>(0)
        private let gate = Mutex<(open: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

        func run(_ entries: [Int], oldestSubmitted: ContinuousClock.Instant) async throws -> [Result<Int, any Error>] {
            batches.withLock { $0.append(entries) }
            oldest.withLock { $0.append(oldestSubmitted) }
            await withCheckedContinuation { continuation in
                let open = gate.withLock { gate in
                    if !gate.open { gate.waiting.append(continuation) }
                    return gate.open
                }
                if open { continuation.resume() }
            }
            if Task.isCancelled { cancelledRuns.add(1, ordering: .relaxed) }
            if entries.contains(-1) { throw Failure() }
            return entries.map { $0 % 2 == 0 ? .success($0 * 10) : .failure(Failure()) }
        }

        func open() {
            let waiting = gate.withLock { gate in
                gate.open = true
                defer { gate.waiting = [] }
                return gate.waiting
            }
            waiting.forEach { $0.resume() }
        }

        var batchCount: Int { batches.withLock(\.count) }
    }

    struct Failure: Error {}

    /// Waits (yielding, with a wide bound) until `condition` holds.
    private func eventually(_ condition: () -> Bool) async throws {
        for _ in 0..<100_000 where !condition() {
            try await Task.sleep(for: .milliseconds(1))
        }
        try #require(condition())
    }

    @Test("a call that finds a slot free runs alone and at once")
    func quietCallRunsAlone() async throws {
        let commit = GroupCommit<Int, Int>(maximumBatch: 32, maximumRunning: 2)
        let recorder = Recorder()
        recorder.open()
        #expect(try await commit.submit(4, run: recorder.run) == 40)
        #expect(try await commit.submit(6, run: recorder.run) == 60)
        #expect(recorder.batches.withLock { $0 } == [[4], [6]])
        #expect(commit.counts == (2, 2))
    }

    @Test("while every slot runs, calls queue; each finished batch hands its slot to the next, up to the batch size")
    func busySlotsGather() async throws {
        let commit = GroupCommit<Int, Int>(maximumBatch: 3, maximumRunning: 1)
        let recorder = Recorder()
        let start = ContinuousClock.now
        var queuedBefore: [ContinuousClock.Instant] = []
        try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            group.addTask { (0, try await commit.submit(0, run: recorder.run)) }
            try await eventually { recorder.batchCount == 1 }
            for value in [2, 4, 6, 8, 10] {
                queuedBefore.append(ContinuousClock.now)
                group.addTask { (value, try await commit.submit(value, run: recorder.run)) }
                // One at a time, so that the queue's order is known.
                try await eventually { commit.queued == value / 2 }
            }
            recorder.open()
            var answers: [Int: Int] = [:]
            for try await (value, answer) in group { answers[value] = answer }
            #expect(answers == [0: 0, 2: 20, 4: 40, 6: 60, 8: 80, 10: 100])
        }
        #expect(recorder.batches.withLock { $0 } == [[0], [2, 4, 6], [8, 10]])
        #expect(commit.counts == (3, 6))
        #expect(commit.queued == 0)
        // Each batch carries the submission of its oldest call (2 for the second batch, 8 for the third), which
        // keeps that call's deadline: submitted after the test noted the time before queueing it, before the next.
        let oldest = recorder.oldest.withLock { $0 }
        #expect(oldest.count == 3 && oldest[0] >= start)
        #expect(oldest[1] >= queuedBefore[0] && oldest[1] <= queuedBefore[1])
        #expect(oldest[2] >= queuedBefore[3] && oldest[2] <= queuedBefore[4])
    }

    @Test("one entry's failure is its own; a batch that throws fails each of its entries")
    func failuresStayWithTheirEntries() async throws {
        let commit = GroupCommit<Int, Int>(maximumBatch: 8, maximumRunning: 1)
        let recorder = Recorder()
        let outcomes = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
            group.addTask { (0, (try? await commit.submit(0, run: recorder.run)) != nil) }
            try await eventually { recorder.batchCount == 1 }
            for (offset, value) in [2, 3, 4].enumerated() {
                group.addTask { (value, (try? await commit.submit(value, run: recorder.run)) != nil) }
                try await eventually { commit.queued == offset + 1 }
            }
            recorder.open()
            return try await group.reduce(into: [Int: Bool]()) { $0[$1.0] = $1.1 }
        }
        // 3 is odd: refused alone; 2 and 4 in its batch are answered.
        #expect(outcomes == [0: true, 2: true, 3: false, 4: true])

        let failing = GroupCommit<Int, Int>(maximumBatch: 8, maximumRunning: 1)
        let thrower = Recorder()
        let answered = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
            group.addTask { (0, (try? await failing.submit(0, run: thrower.run)) != nil) }
            try await eventually { thrower.batchCount == 1 }
            for (offset, value) in [2, -1].enumerated() {
                group.addTask { (value, (try? await failing.submit(value, run: thrower.run)) != nil) }
                try await eventually { failing.queued == offset + 1 }
            }
            thrower.open()
            return try await group.reduce(into: [Int: Bool]()) { $0[$1.0] = $1.1 }
        }
        // The first batch ([0]) answered; the second ([2, -1]) threw, and 2 failed with it.
        #expect(answered == [0: true, 2: false, -1: false])
        #expect(thrower.batches.withLock { $0 } == [[0], [2, -1]])
    }

    @Test("a batch's leader going away does not cancel the others' batch")
    func leaderCancellationSparesTheBatch() async throws {
        let commit = GroupCommit<Int, Int>(maximumBatch: 8, maximumRunning: 1)
        let recorder = Recorder()
        let first = Task { try await commit.submit(0, run: recorder.run) }
        try await eventually { recorder.batchCount == 1 }
        let leader = Task { try await commit.submit(2, run: recorder.run) }
        try await eventually { commit.queued == 1 }
        let follower = Task { try await commit.submit(4, run: recorder.run) }
        try await eventually { commit.queued == 2 }
        leader.cancel()
        recorder.open()
        #expect(try await first.value == 0)
        #expect(try await follower.value == 40)
        #expect(try await leader.value == 20)
        #expect(recorder.batches.withLock { $0 } == [[0], [2, 4]])
        #expect(recorder.cancelledRuns.load(ordering: .relaxed) == 0)
    }
}
