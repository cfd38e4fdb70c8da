import EventLoopConcurrency
import NIOConcurrencyHelpers
import Testing

@Suite("withDeadline, abandoning what does not stop")
struct WithAbandoningDeadlineTests {
    typealias Gate = WithDeadlineTests.Gate
    typealias TimedOut = WithDeadlineTests.TimedOut

    /// What the hooks saw.
    final class Hooks: Sendable {
        let calls = NIOLockedValueBox<[String]>([])
        func note(_ call: String) { calls.withLockedValue { $0.append(call) } }
    }

    @Test("an operation that ignores cancellation is abandoned: the caller gets the timeout error, both hooks run once")
    func abandoned() async throws {
        let gate = Gate()
        let hooks = Hooks()
        await #expect(throws: TimedOut.self) {
            try await withDeadline(
                .milliseconds(50), abandoningAfter: .milliseconds(50),
                onTimeout: { hooks.note("timeout") }, onAbandon: { hooks.note("abandon") },
                timeoutError: { TimedOut() }
            ) {
                await gate.wait()
                return 1
            }
        }
        // The gate opens only after the answer: however late the scheduler runs anything, the operation cannot
        // finish first.
        #expect(hooks.calls.withLockedValue { $0 } == ["timeout", "abandon"])
        gate.open()
    }

    @Test("an operation the timeout hook breaks stops at once: timeout error, no abandonment")
    func brokenByTheHook() async throws {
        let gate = Gate()
        let hooks = Hooks()
        await #expect(throws: TimedOut.self) {
            try await withDeadline(
                .milliseconds(50), abandoningAfter: WithDeadlineTests.neverReached,
                onTimeout: { hooks.note("timeout"); gate.open() }, onAbandon: { hooks.note("abandon") },
                timeoutError: { TimedOut() }
            ) {
                await gate.wait()
                throw CancellationError()
            }
        }
        #expect(hooks.calls.withLockedValue { $0 } == ["timeout"])
    }

    @Test("in time: the value or the operation's own error, and no hook runs")
    func inTime() async throws {
        let hooks = Hooks()
        let value = try await withDeadline(
            WithDeadlineTests.neverReached, abandoningAfter: .milliseconds(1), onTimeout: { hooks.note("timeout") },
            onAbandon: { hooks.note("abandon") }, timeoutError: { TimedOut() }
        ) { 42 }
        #expect(value == 42)
        await #expect(throws: WithDeadlineTests.Failed.self) {
            try await withDeadline(WithDeadlineTests.neverReached, abandoningAfter: .milliseconds(1), timeoutError: { TimedOut() }) {
                throw WithDeadlineTests.Failed()
            }
        }
        #expect(hooks.calls.withLockedValue { $0 }.isEmpty)
    }

    @Test("a caller cancelled while the operation ignores it is still answered by the deadline")
    func cancelledCaller() async throws {
        let gate = Gate()
        let caller = Task {
            try await withDeadline(.milliseconds(100), abandoningAfter: .milliseconds(50), timeoutError: { TimedOut() }) {
                await gate.wait()
                return 1
            }
        }
        caller.cancel()
        await #expect(throws: TimedOut.self) { try await caller.value }
        gate.open()
    }

    @Test("many quick operations each get their own answer")
    func many() async throws {
        try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for index in 0..<500 {
                group.addTask {
                    (index, try await withDeadline(WithDeadlineTests.neverReached, abandoningAfter: .seconds(1), timeoutError: { TimedOut() }) { index * 2 })
                }
            }
            for try await (index, doubled) in group { #expect(doubled == index * 2) }
        }
    }
}
