import Foundation

/// A bounded map whose entries stop answering at an instant of their own, for ``ScoringFactsCache``.
///
/// An insert into a full table first drops the entries that have expired and, when that frees less than an eighth
/// of the room, entries in the dictionary's order until an eighth is free: a sweep costs O(capacity) and comes at
/// most once per capacity/8 inserts, and no lookup ever pays for it. Which live entries go is arbitrary; a dropped
/// one is read again from the store by the next verdict that needs it, as after its expiry.
struct ExpiringTable<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Entry: Sendable {
        var value: Value
        var expiresAt: Date
    }

    private var entries: [Key: Entry] = [:]
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    var count: Int { entries.count }

    /// The value kept for `key`, unless it has expired at `now`.
    func value(for key: Key, at now: Date) -> Value? {
        guard let entry = entries[key], entry.expiresAt > now else { return nil }
        return entry.value
    }

    /// Keeps `value` for `key` until `expiresAt` (replacing what was kept), making room first when the table is full.
    mutating func insert(_ value: Value, for key: Key, expiresAt: Date, now: Date) {
        guard capacity > 0 else { return }
        if entries.count >= capacity, entries[key] == nil { makeRoom(now: now) }
        entries[key] = Entry(value: value, expiresAt: expiresAt)
    }

    mutating func remove(_ key: Key) {
        entries.removeValue(forKey: key)
    }

    mutating func removeAll() {
        entries.removeAll(keepingCapacity: true)
    }

    private mutating func makeRoom(now: Date) {
        let target = capacity - max(1, capacity / 8)
        entries = entries.filter { $0.value.expiresAt > now }
        guard entries.count > target else { return }
        let dropped = Array(entries.keys.prefix(entries.count - target))
        for key in dropped { entries.removeValue(forKey: key) }
    }
}
