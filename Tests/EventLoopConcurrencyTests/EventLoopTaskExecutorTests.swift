import EventLoopConcurrency
import NIOCore
import NIOPosix
import Testing

@Suite("Event loop task executors")
struct EventLoopTaskExecutorTests {
    @Test("a task preferring a loop's executor runs there, and comes back there after waiting on another loop")
    func runsOnItsLoop() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let executors = EventLoopTaskExecutors(group: group)
        let loops = Array(group.makeIterator())
        let (home, other) = (loops[0], loops[1])
        #expect(executors.executor(for: home) === executors.executor(for: home))
        #expect(executors.executor(for: home) !== executors.executor(for: other))

        let (before, answer, after) = try await withTaskExecutorPreference(executors.executor(for: home)) {
            let before = home.inEventLoop
            // Resumed by a job that completes on the other loop's thread.
            let answer = try await other.submit { other.inEventLoop ? 42 : 0 }.get()
            let after = home.inEventLoop
            // A child task inherits the preference.
            async let child = home.inEventLoop
            let childOnHome = await child
            return (before, answer, after && childOnHome)
        }
        #expect(before)
        #expect(answer == 42)
        #expect(after)
        // Without the preference the same code runs on the concurrency pool, on no loop.
        #expect(!home.inEventLoop && !other.inEventLoop)
        try await group.shutdownGracefully()
    }

    @Test("withDeadline's operation keeps the preference set by withPreferredTaskExecutor, after it suspends too")
    func deadlineOperationsKeepThePreference() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let loops = Array(group.makeIterator())
        let (home, other) = (loops[0], loops[1])
        let executor = EventLoopTaskExecutor(home)
        let (start, resumed) = try await withPreferredTaskExecutor(executor) {
            #expect(PreferredTaskExecutor.current === executor)
            return try await withDeadline(WithDeadlineTests.neverReached, timeoutError: { CancellationError() }) {
                let start = home.inEventLoop
                _ = try await Self.answerLater(on: other)
                return (start, home.inEventLoop)
            }
        }
        #expect(start && resumed)
        #expect(PreferredTaskExecutor.current == nil)
        // With only Swift's own preference, the deadline's task resumes off the loop: the case the task-local fixes.
        let plain = try await withTaskExecutorPreference(executor) {
            try await withDeadline(WithDeadlineTests.neverReached, timeoutError: { CancellationError() }) {
                _ = try await Self.answerLater(on: other)
                return home.inEventLoop
            }
        }
        #expect(!plain)
        try await group.shutdownGracefully()
    }

    /// An answer from `loop` some milliseconds from now: the awaiting task has surely suspended by then, so it is
    /// resumed by the answer. An answer that comes back before the task has finished suspending can let it go on
    /// where it was, on its loop; with `submit` the control above failed once in four full test runs.
    static func answerLater(on loop: any EventLoop) async throws -> Int {
        try await loop.scheduleTask(in: .milliseconds(20)) { 1 }.futureResult.get()
    }
}
