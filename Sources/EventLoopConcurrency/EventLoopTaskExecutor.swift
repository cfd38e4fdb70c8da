public import NIOCore

/// A Swift concurrency task executor that runs its jobs on one NIO event loop.
///
/// A task that prefers it (`withTaskExecutorPreference`) runs its non-isolated code on the loop's thread: a
/// connection's task then reads its request, runs the handler and writes the response on the thread that owns
/// the socket, and a PostgreSQL answer arriving on the same loop resumes it without waking another thread.
/// Without it, every request hops from the loop to the global concurrency pool and back, and on a small machine
/// each hop is a chance to wait for a time slice.
///
/// The loop must outlive every task that prefers it: a loop that has shut down drops what it is given (NIO logs
/// it), and a task waiting there would never resume. The server uses NIO's shared group, which never shuts down.
public final class EventLoopTaskExecutor: TaskExecutor {
    public let eventLoop: any EventLoop

    public init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}

/// One ``EventLoopTaskExecutor`` for each loop of a group, made once, so that a connection finds its loop's executor
/// without allocating or locking.
public struct EventLoopTaskExecutors: Sendable {
    private let executors: PerEventLoop<EventLoopTaskExecutor>

    public init(group: any EventLoopGroup) {
        executors = PerEventLoop(group: group) { EventLoopTaskExecutor($0) }
    }

    /// The executor of `loop`; a loop outside the group gets one of its own.
    public func executor(for loop: any EventLoop) -> EventLoopTaskExecutor {
        executors[loop] ?? EventLoopTaskExecutor(loop)
    }
}
