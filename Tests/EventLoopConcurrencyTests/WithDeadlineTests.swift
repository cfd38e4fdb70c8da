import EventLoopConcurrency
import NIOConcurrencyHelpers
import Testing

@Suite("withDeadline")
struct WithDeadlineTests {
    struct TimedOut: Error, Equatable {}
    struct Failed: Error, Equatable {}

    /// A gate an operation waits at, ignoring cancellation, until the test opens it.
    final class Gate: Sendable {
        private let state = NIOLockedValueBox<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

        func wait() async {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLockedValue { state in
                    if state.open { return true }
                    state.waiters.append(continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }

        func open() {
            let waiters = state.withLockedValue { state in
                state.open = true
                defer { state.waiters = [] }
                return state.waiters
            }
            waiters.forEach { $0.resume() }
        }
    }

    /// A deadline the operations of these tests never reach when they work: the suite starts hundreds of tests at
    /// once on two cores, and an operation can wait tens of seconds for a thread before it runs.
    static let neverReached: Duration = .seconds(600)

    @Test("an operation that finishes in time returns its value")
    func value() async throws {
        let value = try await withDeadline(Self.neverReached, timeoutError: { TimedOut() }) { 42 }
        #expect(value == 42)
    }

    @Test("an operation's own error comes through as is")
    func operationError() async {
        await #expect(throws: Failed()) {
            try await withDeadline(Self.neverReached, timeoutError: { TimedOut() }) { () async throws -> Int in throw Failed() }
        }
    }

    @Test("a late operation is cancelled, and the timeout error comes once it has stopped")
    func timeout() async throws {
        let sawCancellation = NIOLockedValueBox<Bool?>(nil)
        await #expect(throws: TimedOut()) {
            try await withDeadline(.milliseconds(20), timeoutError: { TimedOut() }) { () async throws -> Int in
                do {
                    try await Task.sleep(for: .seconds(30))
                } catch {
                    sawCancellation.withLockedValue { $0 = Task.isCancelled }
                    throw error
                }
                return 1
            }
        }
        // The operation had stopped before the call returned: it never outlives the caller.
        #expect(sawCancellation.withLockedValue { $0 } == true)
    }

    @Test("an operation that finishes with a value despite the deadline keeps its value")
    func lateValue() async throws {
        let gate = Gate()
        let opener = Task {
            try? await Task.sleep(for: .milliseconds(100))
            gate.open()
        }
        // The operation ignores its cancellation and returns a value after the deadline passed.
        let value = try await withDeadline(.milliseconds(10), timeoutError: { TimedOut() }) { () async -> Int in
            await gate.wait()
            return 7
        }
        #expect(value == 7)
        await opener.value
    }

    @Test("a limit of zero or less times out")
    func zeroLimit() async {
        await #expect(throws: TimedOut()) {
            try await withDeadline(.zero, timeoutError: { TimedOut() }) { try await Task.sleep(for: .seconds(30)) }
        }
        await #expect(throws: TimedOut()) {
            try await withDeadline(.seconds(-1), timeoutError: { TimedOut() }) { try await Task.sleep(for: .seconds(30)) }
        }
    }

    @Test("cancelling the caller cancels the operation, whose outcome is thrown")
    func callerCancelled() async throws {
        let started = Gate()
        let caller = Task {
            try await withDeadline(Self.neverReached, timeoutError: { TimedOut() }) { () async throws -> Int in
                started.open()
                try await Task.sleep(for: .seconds(30))
                return 1
            }
        }
        await started.wait()
        caller.cancel()
        await #expect(throws: CancellationError.self) { try await caller.value }
    }

    @Test("many quick operations each get their own answer")
    func many() async throws {
        try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<2_000 {
                group.addTask { try await withDeadline(Self.neverReached, timeoutError: { TimedOut() }) { index } }
            }
            var sum = 0
            for try await value in group { sum += value }
            #expect(sum == (0..<2_000).reduce(0, +))
        }
    }

    @Test("durations convert to whole nanoseconds, saturating")
    func nanoseconds() {
        #expect(Duration.milliseconds(1_500).wholeNanoseconds == 1_500_000_000)
        #expect(Duration.nanoseconds(-7).wholeNanoseconds == -7)
        #expect(Duration.seconds(Int64.max).wholeNanoseconds == .max)
        #expect(Duration.seconds(Int64.min).wholeNanoseconds == .min)
    }
}
