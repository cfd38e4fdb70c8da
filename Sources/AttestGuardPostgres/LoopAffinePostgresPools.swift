import EventLoopConcurrency
public import Logging
public import NIOCore
import NIOPosix
public import PostgresNIO
import Synchronization
import AttestGuardStore

/// PostgreSQL connection pools, one for each event loop of a group, each keeping its connections on its loop.
///
/// A store operation that runs on one of those loops (the server handles each HTTP connection on its own loop)
/// leases from that loop's pool: the query is written and its answer read on the thread already running the
/// request, with no hop to the other loop's thread and back. Anywhere else (background work on the concurrency
/// pool) the pools are taken in turn.
///
/// The configured maximum and minimum are split between the loops, the remainder going to the first pools, so the
/// totals stay as configured (16 on two loops: 8 and 8). A request waits only for its own loop's pool, so a split
/// that would leave a pool fewer than ``minimumConnectionsPerLoop`` connections keeps one pool over the whole
/// group instead (a pool of 4 on two loops, or 16 on more than four).
public final class LoopAffinePostgresPools: Sendable {
    /// The smallest pool a loop gets; below it, one pool serves every loop.
    public static let minimumConnectionsPerLoop = 4

    /// Every pool, in the group's loop order.
    public let all: [PostgresClient]
    /// The pools by loop; `nil` when one pool serves every loop.
    private let perLoop: PerEventLoop<PostgresClient>?
    private let turn = Atomic<Int>(0)

    public init(configuration: PostgresClient.Configuration, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, logger: Logger) {
        let loops = Array(group.makeIterator())
        let maximum = configuration.options.maximumConnections
        guard loops.count > 1, maximum >= loops.count * Self.minimumConnectionsPerLoop else {
            all = [PostgresClient(configuration: configuration, eventLoopGroup: group, backgroundLogger: logger)]
            perLoop = nil
            logger.info("PostgreSQL: one pool for all event loops", metadata: [
                "connections": .stringConvertible(maximum), "loops": .stringConvertible(loops.count),
            ])
            return
        }
        let maximums = Self.split(maximum, among: loops.count)
        let minimums = Self.split(configuration.options.minimumConnections, among: loops.count)
        var index = 0
        let perLoop = PerEventLoop(group: group) { loop in
            var share = configuration
            share.options.maximumConnections = maximums[index]
            share.options.minimumConnections = min(minimums[index], maximums[index])
            index += 1
            return PostgresClient(configuration: share, eventLoopGroup: loop, backgroundLogger: logger)
        }
        self.perLoop = perLoop
        all = perLoop.values
        logger.info("PostgreSQL: one pool per event loop", metadata: [
            "connections": .string(maximums.map(String.init).joined(separator: "+")), "loops": .stringConvertible(loops.count),
        ])
    }

    /// `total` (at least 0) in `count` parts that differ by at most one and add up to it, the larger ones first.
    static func split(_ total: Int, among count: Int) -> [Int] {
        let total = max(total, 0)
        return (0..<count).map { total / count + ($0 < total % count ? 1 : 0) }
    }

    /// The pool of the loop whose thread is running, or the next in turn off the loops.
    public var current: PostgresClient {
        guard let perLoop else { return all[0] }
        if let pool = perLoop.current { return pool }
        let next = turn.wrappingAdd(1, ordering: .relaxed).oldValue
        return all[Int(UInt(bitPattern: next) % UInt(all.count))]
    }

    /// The pool that keeps its connections on `loop`, if the group has it.
    public func pool(for loop: any EventLoop) -> PostgresClient? {
        guard let perLoop else { return all[0] }
        return perLoop[loop]
    }

    /// Runs every pool until the task is cancelled. Each pool's `run()` starts on the caller's thread and marks the
    /// pool running before its first suspension; `onStarted` is called once every pool has, so that nothing leases
    /// from a pool that is not running yet.
    public func run(onStarted: () -> Void = {}) async {
        await withDiscardingTaskGroup { group in
            for pool in all {
                group.addImmediateTask { await pool.run() }
            }
            onStarted()
        }
    }
}
