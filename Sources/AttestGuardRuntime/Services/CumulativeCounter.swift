import Synchronization

/// A Prometheus counter fed from a total kept elsewhere (a queue's drops since start, the CPU time `/proc`
/// reports): each ``advance(to:)`` adds what the total grew by since the last one, so the counter never goes back
/// and `rate()` and `increase()` read it as they read any counter.
package final class CumulativeCounter: Sendable {
    private let increment: @Sendable (Double) -> Void
    /// The part of the total already added to the counter.
    private let counted = Mutex(0.0)

    /// Feeds the counter that `increment` adds to; it adds 0 at once, so that the series is published from the
    /// start and `increase()` sees its first growth.
    package init(increment: @escaping @Sendable (Double) -> Void) {
        self.increment = increment
        increment(0)
    }

    /// Adds what `total` grew by since the last call; a total that did not grow (or went back) adds nothing.
    package func advance(to total: Double) {
        counted.withLock { counted in
            guard total > counted else { return }
            increment(total - counted)
            counted = total
        }
    }
}
