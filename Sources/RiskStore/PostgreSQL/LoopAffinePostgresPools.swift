public import Logging
public import NIOCore
import NIOPosix
public import PostgresNIO
import Synchronization

/// PostgreSQL connection pools, one for each event loop of a group, each keeping its connections on its loop.
///
/// A store operation that runs on one of those loops (the server handles each HTTP connection on its own loop)
/// leases from that loop's pool: the query is written and its answer read on the thread already running the
/// request, with no hop to the other loop's thread and back. Anywhere else (background work on the concurrency
/// pool) the pools are taken in turn.
///
/// The configured maximum and minimum are split between the loops, rounded up (16 on two loops: 8 and 8). A
/// maximum below the number of loops keeps one pool over the whole group, so a pool of 1 stays 1.
public final class LoopAffinePostgresPools: Sendable {
    /// Every pool, in the group's loop order.
    public let all: [PostgresClient]
    private let byLoop: [ObjectIdentifier: PostgresClient]
    private let turn = Atomic<Int>(0)

    public init(configuration: PostgresClient.Configuration, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, logger: Logger) {
        let loops = Array(group.makeIterator())
        guard loops.count > 1, configuration.options.maximumConnections >= loops.count else {
            all = [PostgresClient(configuration: configuration, eventLoopGroup: group, backgroundLogger: logger)]
            byLoop = [:]
            return
        }
        var perLoop = configuration
        perLoop.options.maximumConnections = Self.share(of: configuration.options.maximumConnections, among: loops.count)
        perLoop.options.minimumConnections = Self.share(of: configuration.options.minimumConnections, among: loops.count)
        all = loops.map { PostgresClient(configuration: perLoop, eventLoopGroup: $0, backgroundLogger: logger) }
        byLoop = Dictionary(uniqueKeysWithValues: zip(loops.map { ObjectIdentifier($0) }, all))
    }

    /// `total` split evenly among `count`, rounded up.
    static func share(of total: Int, among count: Int) -> Int {
        (max(total, 0) + count - 1) / count
    }

    /// The pool of the loop whose thread is running, or the next in turn off the loops.
    public var current: PostgresClient {
        if all.count == 1 { return all[0] }
        if let loop = MultiThreadedEventLoopGroup.currentEventLoop, let pool = byLoop[ObjectIdentifier(loop)] { return pool }
        let next = turn.wrappingAdd(1, ordering: .relaxed).oldValue
        return all[Int(UInt(bitPattern: next) % UInt(all.count))]
    }

    /// The pool that keeps its connections on `loop`, if the group has it.
    public func pool(for loop: any EventLoop) -> PostgresClient? {
        all.count == 1 ? all[0] : byLoop[ObjectIdentifier(loop)]
    }

    /// Runs every pool until the task is cancelled. Each pool's `run()` starts on the caller's thread before this
    /// returns to its first suspension, so a pool counts as running as soon as the call is made.
    public func run() async {
        await withDiscardingTaskGroup { group in
            for pool in all {
                group.addImmediateTask { await pool.run() }
            }
        }
    }
}
