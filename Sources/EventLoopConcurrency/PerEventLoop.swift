public import NIOCore
import NIOPosix

/// One value for each event loop of a group, made once and found by the loop without locking: the executors that
/// run a connection's task on its loop, the PostgreSQL pools whose connections live on a loop.
public struct PerEventLoop<Value: Sendable>: Sendable {
    /// The values, in the group's loop order.
    public let values: [Value]
    private let byLoop: [ObjectIdentifier: Value]

    /// Makes the value of each of `group`'s loops.
    public init(group: any EventLoopGroup, _ make: (any EventLoop) throws -> Value) rethrows {
        let loops = Array(group.makeIterator())
        let values = try loops.map(make)
        self.values = values
        self.byLoop = Dictionary(uniqueKeysWithValues: zip(loops.map { ObjectIdentifier($0) }, values))
    }

    /// The value of `loop`, or `nil` for a loop outside the group.
    public subscript(loop: any EventLoop) -> Value? {
        byLoop[ObjectIdentifier(loop)]
    }

    /// The value of the loop whose thread is running, or `nil` off the group's loops.
    public var current: Value? {
        MultiThreadedEventLoopGroup.currentEventLoop.flatMap { self[$0] }
    }
}
