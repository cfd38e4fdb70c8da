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
        #expect(!timers.isArmed)
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

    @Test("the task armed for a timer on the loop fires it, then arms for nothing once none is left")
    func armedOnTheLoop() async throws {
        let timers = CoarseTimers(resolution: .milliseconds(1), on: loop)
        let firings = Firings()
        // Whether a task is armed right after a timer is set is for the manual clock's tests: here a preempted test
        // thread could look after the 2 ms timer fired.
        timers.schedule(in: .milliseconds(2)) { firings.record("first") }
        try await firings.wait(for: 1)
        for _ in 0..<2_500 where timers.isArmed { try await Task.sleep(for: .milliseconds(2)) }
        #expect(!timers.isArmed)
        timers.schedule(in: .milliseconds(2)) { firings.record("second") }
        try await firings.wait(for: 2)
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

    /// The tasks the timers armed, which the test runs itself.
    final class ArmedTasks: Sendable {
        struct Task: Sendable {
            var seconds: Int64
            var fire: @Sendable () -> Void
            var cancelled = false
        }

        private let tasks = NIOLockedValueBox<[Task]>([])

        func arm(nanoseconds: Int64, fire: @escaping @Sendable () -> Void) -> CoarseTimers.ArmedTask {
            let index = tasks.withLockedValue { tasks in
                tasks.append(Task(seconds: nanoseconds / 1_000_000_000, fire: fire))
                return tasks.count - 1
            }
            return CoarseTimers.ArmedTask(cancel: { self.tasks.withLockedValue { $0[index].cancelled = true } })
        }

        /// The seconds each task was armed for, in order, and whether it was cancelled.
        var log: [String] { tasks.withLockedValue { $0.map { "\($0.seconds)\($0.cancelled ? " cancelled" : "")" } } }

        /// Runs the task armed `index`th (from 0), as its loop would.
        func run(_ index: Int) { tasks.withLockedValue { $0[index].fire }() }
    }

    @Test("a timer set with a clock reading older than the last firing still fires, one bucket later")
    func setBehindALaterFiring() {
        let clock = ManualNanoseconds()
        let tasks = ArmedTasks()
        let timers = CoarseTimers(resolution: .seconds(1_000), clock: { clock.now }, arm: tasks.arm)
        let fired = NIOLockedValueBox<[String]>([])
        timers.schedule(in: .seconds(500)) { fired.withLockedValue { $0.append("first") } }
        clock.set(milliseconds: 3_500_000)  // 3,500 s: buckets up to 3 (3,000 s) are done
        tasks.run(0)
        #expect(fired.withLockedValue { $0 } == ["first"])
        // The race: this caller read the clock (at 2,000 s) before the firing above took the lock. Its deadline,
        // 2,001 s, falls in bucket 3, already fired.
        clock.set(milliseconds: 2_000_000)
        timers.schedule(in: .seconds(1)) { fired.withLockedValue { $0.append("late reader") } }
        #expect(tasks.log == ["1000", "4000"], "armed for the next bucket")
        clock.set(milliseconds: 3_999_000)
        tasks.run(1)  // early: nothing fires, and the task is armed again
        #expect(fired.withLockedValue { $0 } == ["first"], "fired before the next bucket")
        #expect(tasks.log == ["1000", "4000", "4000"])
        clock.set(milliseconds: 4_000_000)
        tasks.run(2)
        #expect(fired.withLockedValue { $0 } == ["first", "late reader"])
        #expect(!timers.isArmed)
    }

    @Test("one task is armed, for the earliest timer: an earlier timer replaces it, and none is left once no timer is")
    func armsForTheEarliest() throws {
        let clock = ManualNanoseconds()
        let tasks = ArmedTasks()
        let timers = CoarseTimers(resolution: .seconds(1), clock: { clock.now }, arm: tasks.arm)
        let fired = NIOLockedValueBox<[String]>([])
        timers.schedule(in: .seconds(5)) { fired.withLockedValue { $0.append("5 s") } }
        let eight = timers.schedule(in: .seconds(8)) { fired.withLockedValue { $0.append("8 s") } }
        #expect(tasks.log == ["5"], "a later timer arms nothing")
        let three = timers.schedule(in: .seconds(3)) { fired.withLockedValue { $0.append("3 s") } }
        #expect(tasks.log == ["5 cancelled", "3"], "an earlier timer replaces the armed task")
        #expect(timers.cancel(try #require(three)))
        clock.set(milliseconds: 3_000)
        tasks.run(1)  // nothing due; armed for the earliest timer left
        #expect(fired.withLockedValue { $0 }.isEmpty)
        #expect(tasks.log == ["5 cancelled", "3", "5"])
        clock.set(milliseconds: 5_000)
        tasks.run(0)  // the replaced task, its cancel too late: fires what is due, arms nothing
        #expect(fired.withLockedValue { $0 } == ["5 s"])
        #expect(tasks.log == ["5 cancelled", "3", "5"])
        tasks.run(2)  // the armed one: nothing left due; armed for 8 s
        #expect(tasks.log == ["5 cancelled", "3", "5", "8"])
        #expect(timers.cancel(try #require(eight)))
        clock.set(milliseconds: 8_000)
        tasks.run(3)
        #expect(fired.withLockedValue { $0 } == ["5 s"])
        #expect(tasks.log == ["5 cancelled", "3", "5", "8"], "nothing left: nothing armed")
        #expect(!timers.isArmed)
        timers.schedule(in: .seconds(1)) { fired.withLockedValue { $0.append("9 s") } }
        #expect(tasks.log == ["5 cancelled", "3", "5", "8", "9"])
    }

    @Test("a deadline past the clock's range is armed without overflowing and never fires")
    func farDeadline() {
        let clock = ManualNanoseconds()
        let tasks = ArmedTasks()
        let timers = CoarseTimers(resolution: .milliseconds(10), clock: { clock.now }, arm: tasks.arm)
        let fired = NIOLockedValueBox<[String]>([])
        clock.set(milliseconds: 1_000)
        timers.schedule(in: .seconds(Int64.max)) { fired.withLockedValue { $0.append("never") } }
        #expect(tasks.log == ["\(Int64.max / 1_000_000_000)"])
        timers.schedule(in: .milliseconds(5)) { fired.withLockedValue { $0.append("soon") } }
        #expect(tasks.log == ["\(Int64.max / 1_000_000_000) cancelled", "1"])
        clock.set(milliseconds: 1_010)
        tasks.run(1)
        #expect(fired.withLockedValue { $0 } == ["soon"])
        #expect(tasks.log.count == 3 && timers.isArmed, "armed again for the far one, once")
    }
}
