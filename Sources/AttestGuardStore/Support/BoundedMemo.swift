public import Synchronization

/// The results of a pure, costly function for the arguments it was given lately: the store ids of velocity and
/// distinct series (a SHA-256 each) and the keyed hashes of request subjects (an HMAC-SHA-256 each). Each costs
/// several thousand instructions, and a verdict computes about a dozen, mostly for the same few arguments while a key,
/// user or device is active; a look-up here costs a hash of the arguments and a comparison.
///
/// It holds at most `capacity` results in each of two generations: a new result goes into the current one, and when
/// that is full it becomes the previous one (the one before is dropped) and a new one starts. A result found in the
/// previous generation moves to the current one, so what is still asked for survives a turnover. Memory stays bounded
/// whatever the traffic, and a result computed again is the same result, so forgetting costs time only. Keys must be
/// equal exactly when the function's results are: a `String` key compares by canonical equivalence, not by bytes.
///
/// The look-up is public and inlinable so that each memo's module specialises it: an unspecialised look-up
/// instantiates the generations' generic metadata and hashes the key through witness tables, which costs more than a
/// hit saves on a short digest. Swift 6.3 specialises an inlinable function from another module only when it is
/// public; a `package` one is called unspecialised.
public final class BoundedMemo<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    @usableFromInline
    struct Generations {
        @usableFromInline var current: [Key: Value]
        @usableFromInline var previous: [Key: Value]

        @usableFromInline
        init() {
            current = [:]
            previous = [:]
        }
    }

    @usableFromInline let generations: Mutex<Generations>
    @usableFromInline let capacity: Int
    @usableFromInline let compute: @Sendable (Key) -> Value

    /// A memo of `compute`, holding at most `capacity` results in each of its two generations.
    public init(capacity: Int, compute: @escaping @Sendable (Key) -> Value) {
        precondition(capacity > 0, "a memo holds at least one result")
        self.capacity = capacity
        self.compute = compute
        generations = Mutex(Generations())
    }

    /// `compute(key)`: the result kept from before, or computed now and kept.
    @inlinable
    public func value(for key: Key) -> Value {
        // A dropped generation (up to `capacity` results) is freed when this returns, not under the lock.
        var dropped: [Key: Value] = [:]
        defer { withExtendedLifetime(dropped) {} }
        if let value = generations.withLock({ generations -> Value? in
            if let value = generations.current[key] { return value }
            guard let value = generations.previous[key] else { return nil }
            dropped = Self.keep(value, for: key, in: &generations, capacity: capacity)
            return value
        }) {
            return value
        }
        let value = compute(key)
        dropped = generations.withLock { Self.keep(value, for: key, in: &$0, capacity: capacity) }
        return value
    }

    /// How many results the memo holds, in both generations.
    public var count: Int { generations.withLock { $0.current.count + $0.previous.count } }

    /// Puts `value` in the current generation, turning the generations over first when it is full; returns the
    /// dropped generation for the caller to free outside the lock.
    @inlinable
    static func keep(_ value: Value, for key: Key, in generations: inout Generations, capacity: Int) -> [Key: Value] {
        var dropped: [Key: Value] = [:]
        if generations.current.count >= capacity {
            dropped = generations.previous
            generations.previous = generations.current
            generations.current = [:]
        }
        generations.current[key] = value
        return dropped
    }
}
