import NIOConcurrencyHelpers
public import NIOCore
import NIOPosix

/// Timers for deadlines that seldom fire, shared by every caller: setting or removing one takes a lock and a
/// dictionary write, nothing more. A NIO `scheduleTask` from outside an event loop's thread wakes that thread
/// (an `eventfd` write, then a context switch), and every store statement runs under a deadline: a scheduled task
/// per statement would be a wake-up per verdict for a timer that almost never fires.
///
/// Timers are kept in buckets of `resolution`. While any is set, one repeating task on an event loop fires the
/// due buckets every `resolution`; it stops after `idleTicks` ticks with nothing set and starts again with the
/// next timer, so a steady trickle of short operations does not restart it each time. A timer fires at or after
/// its deadline, never before, and at most about one `resolution` (plus the loop's own delay) after it.
public final class CoarseTimers: Sendable {
    /// A set timer, for ``cancel(_:)``.
    public struct Timer: Sendable, Hashable {
        let bucket: Int64
        let id: UInt64
    }

    /// The timers `withDeadline` uses: 10 ms buckets on a loop of NIO's shared group.
    public static let shared = CoarseTimers(resolution: .milliseconds(10), on: MultiThreadedEventLoopGroup.singleton.next())

    private struct State {
        var buckets: [Int64: [UInt64: @Sendable () -> Void]] = [:]
        var count = 0
        var nextId: UInt64 = 0
        var ticking = false
        var idle = 0
        /// The last bucket fired: every bucket up to it is gone.
        var firedThrough: Int64 = 0
    }

    private let state = NIOLockedValueBox(State())
    private let resolution: Int64
    private let idleTicks: Int
    private let loop: any EventLoop
    /// Monotonic nanoseconds (NIO's uptime clock; tests pass their own).
    private let clock: @Sendable () -> Int64

    /// - Parameters:
    ///   - resolution: The bucket width and tick interval (at least a microsecond).
    ///   - idleTicks: Ticks with no timer set before the repeating task stops.
    ///   - loop: Where the repeating task runs.
    public convenience init(resolution: Duration, idleTicks: Int = 100, on loop: any EventLoop) {
        self.init(resolution: resolution, idleTicks: idleTicks, on: loop, clock: { Int64(NIODeadline.now().uptimeNanoseconds) })
    }

    init(resolution: Duration, idleTicks: Int, on loop: any EventLoop, clock: @escaping @Sendable () -> Int64) {
        self.resolution = max(resolution.wholeNanoseconds, 1_000)
        self.idleTicks = max(idleTicks, 1)
        self.loop = loop
        self.clock = clock
    }

    /// Runs `action` once `delay` has passed, unless the timer is cancelled first. A delay of zero or less runs
    /// it at once, on the caller's thread, and returns `nil`.
    @discardableResult
    public func schedule(in delay: Duration, _ action: @escaping @Sendable () -> Void) -> Timer? {
        let now = clock()
        let nanoseconds = delay.wholeNanoseconds
        guard nanoseconds > 0 else {
            action()
            return nil
        }
        let (deadline, overflow) = now.addingReportingOverflow(nanoseconds)
        let due = overflow ? .max : deadline / resolution + (deadline % resolution == 0 ? 0 : 1)
        let (timer, start) = state.withLockedValue { state -> (Timer, Bool) in
            let start = !state.ticking
            if start {
                state.ticking = true
                state.firedThrough = now / resolution
            }
            // A tick between reading the clock and taking the lock may have fired `due`'s bucket already: then the
            // next one (later, never earlier).
            let bucket = max(due, state.firedThrough + 1)
            let id = state.nextId
            state.nextId &+= 1
            state.buckets[bucket, default: [:]][id] = action
            state.count += 1
            state.idle = 0
            return (Timer(bucket: bucket, id: id), start)
        }
        if start {
            let interval = TimeAmount.nanoseconds(resolution)
            loop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { [self] task in tick(task) }
        }
        return timer
    }

    /// Removes `timer`; `true` when it had not fired yet (it never will now).
    @discardableResult
    public func cancel(_ timer: Timer) -> Bool {
        state.withLockedValue { state in
            guard state.buckets[timer.bucket]?.removeValue(forKey: timer.id) != nil else { return false }
            if state.buckets[timer.bucket]?.isEmpty == true { state.buckets[timer.bucket] = nil }
            state.count -= 1
            return true
        }
    }

    /// Whether the repeating task is running (for tests).
    var isTicking: Bool { state.withLockedValue { $0.ticking } }

    private func tick(_ task: RepeatedTask) {
        if fireDue() { task.cancel() }
    }

    /// Fires every timer whose bucket has passed; `true` when the repeating task should stop (idle long enough).
    func fireDue() -> Bool {
        let current = clock() / resolution
        let (due, stop) = state.withLockedValue { state -> ([@Sendable () -> Void], Bool) in
            var due: [@Sendable () -> Void] = []
            // Walk the elapsed buckets, or the set ones when there are fewer (after a long stall of the loop).
            let elapsed = current - state.firedThrough
            let buckets = elapsed > Int64(state.buckets.count)
                ? state.buckets.keys.filter { $0 <= current }.sorted()
                : Array(stride(from: state.firedThrough + 1, through: current, by: 1))
            for bucket in buckets {
                guard let actions = state.buckets.removeValue(forKey: bucket) else { continue }
                due.append(contentsOf: actions.values)
                state.count -= actions.count
            }
            state.firedThrough = max(state.firedThrough, current)
            if state.count > 0 {
                state.idle = 0
                return (due, false)
            }
            state.idle += 1
            guard state.idle >= idleTicks else { return (due, false) }
            state.ticking = false
            return (due, true)
        }
        for action in due { action() }
        return stop
    }
}
