@testable import EventLoopConcurrency
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing

@Suite("CoarseTimers")
struct CoarseTimersTests {
    /// When each action ran, in uptime nanoseconds, by name.
    final class Firings: Sendable {
        private let times = NIOLockedValueBox<[String: [UInt64]]>([:])

        func record(_ name: String) { times.withLockedValue { $0[name, default: []].append(NIODeadline.now().uptimeNanoseconds) } }
        var all: [String: [UInt64]] { times.withLockedValue { $0 } }

        /// Waits (up to 10 s) until `count` actions have run.
        func wait(for count: Int) async throws {
            for _ in 0..<1_000 where all.values.map(\.count).reduce(0, +) < count { try await Task.sleep(for: .milliseconds(10)) }
        }
    }

    let loop = MultiThreadedEventLoopGroup.singleton.next()

    @Test("a timer fires once, never before its deadline")
    func firesOnceNotEarly() async throws {
        let timers = CoarseTimers(resolution: .milliseconds(5), on: loop)
        let firings = Firings()
        var setAt: [String: UInt64] = [:]
        for delay in [1, 7, 23, 40] {
            setAt["\(delay)"] = NIODeadline.now().uptimeNanoseconds
            #expect(timers.schedule(in: .milliseconds(delay)) { firings.record("\(delay)") } != nil)
        }
        try await firings.wait(for: 4)
        try await Task.sleep(for: .milliseconds(60))
        let all = firings.all
        for delay in [1, 7, 23, 40] {
            let times = try #require(all["\(delay)"])
            #expect(times.count == 1)
            #expect(times[0] >= setAt["\(delay)"]! + UInt64(delay) * 1_000_000, "timer \(delay) ms fired early")
        }
    }

    @Test("a cancelled timer never fires; cancelling twice or after firing says false")
    func cancel() async throws {
        let timers = CoarseTimers(resolution: .milliseconds(2), on: loop)
        let firings = Firings()
        let kept = try #require(timers.schedule(in: .milliseconds(10)) { firings.record("kept") })
        let dropped = try #require(timers.schedule(in: .milliseconds(10)) { firings.record("dropped") })
        #expect(timers.cancel(dropped))
        #expect(!timers.cancel(dropped))
        try await firings.wait(for: 1)
        try await Task.sleep(for: .milliseconds(30))
        #expect(firings.all.keys.sorted() == ["kept"])
        #expect(!timers.cancel(kept))
    }

    @Test("zero or less runs at once and sets no timer")
    func immediate() {
        let timers = CoarseTimers(resolution: .milliseconds(5), on: loop)
        let firings = Firings()
        #expect(timers.schedule(in: .zero) { firings.record("zero") } == nil)
        #expect(timers.schedule(in: .seconds(-3)) { firings.record("negative") } == nil)
        #expect(firings.all.keys.sorted() == ["negative", "zero"])
        #expect(!timers.isTicking)
    }

    @Test("thousands of timers from many tasks each fire exactly once, or never when cancelled")
    func many() async throws {
        let timers = CoarseTimers(resolution: .milliseconds(1), on: loop)
        let firings = Firings()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<2_000 {
                group.addTask {
                    let timer = timers.schedule(in: .milliseconds(index % 20 + 1)) { firings.record("\(index)") }
                    if index % 2 == 1, let timer { timers.cancel(timer) }
                }
            }
        }
        try await firings.wait(for: 1_000)
        try await Task.sleep(for: .milliseconds(50))
        let all = firings.all
        #expect(all.count >= 1_000)
        #expect(all.values.allSatisfy { $0.count == 1 })
        // An odd one fires only if its timer beat the cancel (a 1 ms deadline on a slow machine); most must not.
        #expect(all.keys.filter { Int($0)! % 2 == 0 }.count == 1_000)
        #expect(all.keys.filter { Int($0)! % 2 == 1 }.count < 100)
    }

    @Test("the repeating task stops when idle and starts again for the next timer")
    func idleStop() async throws {
        let timers = CoarseTimers(resolution: .milliseconds(1), idleTicks: 3, on: loop)
        let firings = Firings()
        // A far timer holds the task running while the test looks: a 2 ms timer alone may fire and the task go idle
        // before a preempted test thread reads isTicking.
        let hold = try #require(timers.schedule(in: .seconds(600)) { firings.record("hold") })
        #expect(timers.isTicking)
        timers.schedule(in: .milliseconds(2)) { firings.record("first") }
        try await firings.wait(for: 1)
        #expect(timers.cancel(hold))
        for _ in 0..<2_500 where timers.isTicking { try await Task.sleep(for: .milliseconds(2)) }
        #expect(!timers.isTicking)
        let again = try #require(timers.schedule(in: .seconds(600)) { firings.record("hold") })
        #expect(timers.isTicking)
        timers.schedule(in: .milliseconds(2)) { firings.record("second") }
        try await firings.wait(for: 2)
        #expect(timers.cancel(again))
        #expect(firings.all.keys.sorted() == ["first", "second"])
    }
}

@Suite("CoarseTimers, on a manual clock")
struct CoarseTimersManualClockTests {
    /// Nanoseconds the test sets.
    final class ManualNanoseconds: Sendable {
        private let value = NIOLockedValueBox<Int64>(0)
        var now: Int64 { value.withLockedValue { $0 } }
        func set(milliseconds: Int64) { value.withLockedValue { $0 = milliseconds * 1_000_000 } }
    }

    @Test("a timer set with a clock reading older than the last tick still fires, one bucket later")
    func setBehindALaterTick() {
        let clock = ManualNanoseconds()
        // A resolution far above the test's run time, so that the real repeating task never fires anything.
        let timers = CoarseTimers(
            resolution: .seconds(1_000), idleTicks: 100, on: MultiThreadedEventLoopGroup.singleton.next(), clock: { clock.now }
        )
        let fired = NIOLockedValueBox<[String]>([])
        timers.schedule(in: .seconds(500)) { fired.withLockedValue { $0.append("first") } }  // starts the ticks
        clock.set(milliseconds: 3_500_000)  // 3,500 s: buckets up to 3 (3,000 s) are done
        #expect(!timers.fireDue())
        #expect(fired.withLockedValue { $0 } == ["first"])
        // The race: this caller read the clock (at 2,000 s) before the tick above took the lock. Its deadline,
        // 2,001 s, falls in bucket 3, already fired.
        clock.set(milliseconds: 2_000_000)
        timers.schedule(in: .seconds(1)) { fired.withLockedValue { $0.append("late reader") } }
        clock.set(milliseconds: 3_999_000)
        _ = timers.fireDue()
        #expect(fired.withLockedValue { $0 } == ["first"], "fired before the next bucket")
        clock.set(milliseconds: 4_000_000)
        _ = timers.fireDue()
        #expect(fired.withLockedValue { $0 } == ["first", "late reader"])
    }
}
