import Synchronization

/// The store ids of the series (velocity sums, distinct counts) this process named lately. An id is the first 16
/// bytes of a SHA-256 over the series' parts: several thousand instructions, and a verdict names about ten series,
/// the same few again and again while a key, user or device is active (and again when the write-behind flushes
/// them). The memo hands out the id it computed before for the same series.
///
/// It holds at most `capacity` ids and starts over when full, so memory stays bounded whatever the traffic; an id
/// computed again is the same id (the function is pure), so forgetting costs time only.
package final class SeriesIdMemo<Series: Hashable & Sendable>: Sendable {
    private let ids: Mutex<[Series: [UInt8]]>
    private let capacity: Int
    private let make: @Sendable (Series) -> [UInt8]

    /// A memo of `make`, holding at most `capacity` ids.
    package init(capacity: Int, make: @escaping @Sendable (Series) -> [UInt8]) {
        precondition(capacity > 0, "a memo holds at least one id")
        self.capacity = capacity
        self.make = make
        ids = Mutex([:])
    }

    /// The id of `series`: the one computed before, or `make(series)`.
    package func id(of series: Series) -> [UInt8] {
        if let id = ids.withLock({ $0[series] }) { return id }
        let id = make(series)
        ids.withLock { ids in
            if ids.count >= capacity { ids.removeAll(keepingCapacity: true) }
            ids[series] = id
        }
        return id
    }

    /// How many ids the memo holds.
    package var count: Int { ids.withLock { $0.count } }
}
