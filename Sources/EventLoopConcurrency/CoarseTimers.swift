import NIOConcurrencyHelpers
public import NIOCore
import NIOPosix

/// Timers for deadlines that seldom fire, shared by every caller: setting or removing one takes a lock and a
/// dictionary write, nothing more. A NIO `scheduleTask` from outside an event loop's thread wakes that thread
/// (an `eventfd` write, then a context switch), and every store statement runs under a deadline: a scheduled task
/// per statement would be a wake-up per verdict for a timer that almost never fires.
///
/// Timers are kept in buckets of `resolution`. One task on an event loop is armed for the earliest set bucket; when
/// it runs it fires the due buckets and arms itself again for the earliest bucket left, if any. A timer earlier than
/// the armed bucket cancels that task and arms one for itself. Callers' deadlines mostly share one length, so a new
/// timer is almost always later than the armed one and arms nothing: under a steady load the loop wakes about once
/// per deadline's length; an idle process wakes only for the deadlines it still sets (a task repeating every
/// `resolution` would wake it 100 times a second). A timer fires at or after its deadline, never before, and at most
/// about one `resolution` (plus the loop's own delay) after it.
public final class CoarseTimers: Sendable {
    /// A set timer, for ``cancel(_:)``.
    public struct Timer: Sendable, Hashable {
        let bucket: Int64
        let id: UInt64
    }

    /// The timers `withDeadline` uses: 10 ms buckets on a loop of NIO's shared group.
    public static let shared = CoarseTimers(resolution: .milliseconds(10), on: MultiThreadedEventLoopGroup.singleton.next())

    /// Arms a task that calls `fire` at or after the given monotonic nanoseconds; returns what cancels it.
    typealias Arm = @Sendable (_ atNanoseconds: Int64, _ fire: @escaping @Sendable () -> Void) -> ArmedTask

    /// What cancels an armed task.
    struct ArmedTask: Sendable {
        let cancel: @Sendable () -> Void
    }

    private struct State {
        var buckets: [Int64: [UInt64: @Sendable () -> Void]] = [:]
        var nextId: UInt64 = 0
        /// The bucket the one pending task is armed for, its number, and what cancels it; `nil` when no task is
        /// (then no timer is set). Never later than the earliest set bucket.
        var armed: (bucket: Int64, number: UInt64, task: ArmedTask)?
        /// The number of the next task armed.
        var nextTask: UInt64 = 0
        /// The last bucket fired: every bucket up to it is gone.
        var firedThrough: Int64 = 0
    }

    private let state: NIOLockedValueBox<State>
    private let resolution: Int64
    private let arm: Arm
    /// Monotonic nanoseconds (NIO's uptime clock; tests pass their own).
    private let clock: @Sendable () -> Int64

    /// - Parameters:
    ///   - resolution: The bucket width (at least a microsecond).
    ///   - loop: Where the task that fires the timers runs.
    public convenience init(resolution: Duration, on loop: any EventLoop) {
        self.init(
            resolution: resolution,
            clock: { Int64(NIODeadline.now().uptimeNanoseconds) },
            arm: { nanoseconds, fire in
                let scheduled = loop.scheduleTask(deadline: .uptimeNanoseconds(UInt64(max(nanoseconds, 0)))) { fire() }
                return ArmedTask(cancel: { scheduled.cancel() })
            }
        )
    }

    init(resolution: Duration, clock: @escaping @Sendable () -> Int64, arm: @escaping Arm) {
        self.resolution = max(resolution.wholeNanoseconds, 1_000)
        self.clock = clock
        self.arm = arm
        self.state = NIOLockedValueBox(State(firedThrough: clock() / self.resolution))
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
        return state.withLockedValue { state -> Timer in
            // A firing between reading the clock and taking the lock may have fired `due`'s bucket already: then
            // the next one (later, never earlier).
            let bucket = max(due, state.firedThrough + 1)
            let id = state.nextId
            state.nextId &+= 1
            state.buckets[bucket, default: [:]][id] = action
            if state.armed.map({ bucket < $0.bucket }) ?? true {
                // Rare (an earlier deadline than every one set), so arming under the lock costs little; it keeps one
                // task pending at a time.
                state.armed?.task.cancel()
                armTask(for: bucket, in: &state)
            }
            return Timer(bucket: bucket, id: id)
        }
    }

    /// Removes `timer`; `true` when it had not fired yet (it never will now). The armed task stays: when it runs
    /// with nothing due it arms for the earliest timer left, or for nothing.
    @discardableResult
    public func cancel(_ timer: Timer) -> Bool {
        state.withLockedValue { state in
            guard state.buckets[timer.bucket]?.removeValue(forKey: timer.id) != nil else { return false }
            if state.buckets[timer.bucket]?.isEmpty == true { state.buckets[timer.bucket] = nil }
            return true
        }
    }

    /// Whether a task is armed (for tests): from the first timer set until the armed task runs with none left.
    var isArmed: Bool { state.withLockedValue { $0.armed != nil } }

    /// Arms a task for `bucket`, recorded as the one armed.
    private func armTask(for bucket: Int64, in state: inout State) {
        let (nanoseconds, overflow) = bucket.multipliedReportingOverflow(by: resolution)
        let number = state.nextTask
        state.nextTask &+= 1
        state.armed = (bucket, number, arm(overflow ? .max : nanoseconds) { [self] in fireDue(task: number) })
    }

    /// Runs as the armed task numbered `task`: fires every timer whose bucket has passed, then arms for the earliest
    /// left. A task already replaced (its cancel came too late) only fires what is due; one that runs before its
    /// bucket (a loop whose clock is not the uptime clock) arms for that bucket again.
    func fireDue(task: UInt64) {
        let current = clock() / resolution
        let due = state.withLockedValue { state -> [@Sendable () -> Void] in
            var due: [@Sendable () -> Void] = []
            if current > state.firedThrough {
                for bucket in state.buckets.keys.filter({ $0 <= current }).sorted() {
                    due.append(contentsOf: state.buckets.removeValue(forKey: bucket)!.values)
                }
                state.firedThrough = current
            }
            guard let armed = state.armed, armed.number == task else { return due }
            state.armed = nil
            if let next = armed.bucket > current ? armed.bucket : state.buckets.keys.min() { armTask(for: next, in: &state) }
            return due
        }
        for action in due { action() }
    }
}
