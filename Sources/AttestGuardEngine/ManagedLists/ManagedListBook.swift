public import AttestGuardStore
public import AttestVocabulary
public import Foundation
public import RiskRules
import Synchronization

/// The run-time lists as this process holds them for the rules: a ``ManagedListSnapshot`` each verdict takes at its
/// start (one lock, no store read), swapped whole by ``refresh(from:now:)``, which reads the store's catalogue and
/// the entries of only the lists whose revision moved. Refreshes run one at a time.
public final class ManagedListBook: Sendable {
    /// What one refresh changed.
    public struct Refresh: Sendable, Hashable {
        /// Lists read again (new, or changed since the last refresh), by name.
        public var read: [String]
        /// Lists gone from the store since the last refresh.
        public var dropped: [String]
        /// Every list held after the refresh, with its kind.
        public var kinds: [String: ListKind]
    }

    /// What a list's entries were read at: a list deleted and made again restarts its revision, so its creation
    /// instant tells the two apart.
    private struct ReadAt: Sendable, Hashable {
        var createdAt: Date
        var revision: Int64
    }

    private struct Held: Sendable {
        var snapshot = ManagedListSnapshot.empty
        var revisions: [String: ReadAt] = [:]
    }

    private let held = Mutex(Held())
    private let waiters = RefreshQueue()

    public init() {}

    /// The lists as last read.
    public var snapshot: ManagedListSnapshot { held.withLock { $0.snapshot } }

    /// Reads what changed in the store since the last refresh and swaps it in.
    @discardableResult
    public func refresh(from store: any ManagedListStore, now: Date) async throws -> Refresh {
        try await waiters.serially {
            let catalogue = try await store.managedLists()
            let (snapshot, revisions) = self.held.withLock { ($0.snapshot, $0.revisions) }
            var lists: [String: ListContents] = [:]
            var newRevisions: [String: ReadAt] = [:]
            var read: [String] = []
            for list in catalogue {
                let readAt = ReadAt(createdAt: list.createdAt, revision: list.revision)
                newRevisions[list.name] = readAt
                if revisions[list.name] == readAt, let contents = snapshot.lists[list.name], contents.kind == list.kind {
                    lists[list.name] = contents
                    continue
                }
                let entries = try await store.managedListEntries(name: list.name, now: now)
                lists[list.name] = ListContents(
                    kind: list.kind, entries: entries.map { ListContents.Entry(value: $0.value, expiresAt: $0.expiresAt?.timeIntervalSince1970) }
                )
                read.append(list.name)
            }
            let dropped = revisions.keys.filter { newRevisions[$0] == nil }.sorted()
            let fresh = ManagedListSnapshot(lists: lists)
            self.held.withLock { $0 = Held(snapshot: fresh, revisions: newRevisions) }
            return Refresh(read: read, dropped: dropped, kinds: lists.mapValues(\.kind))
        }
    }
}

/// Runs async bodies one after another (a refresh that finds another running waits for it).
private actor RefreshQueue {
    private var tail: Task<Void, Never>?

    func serially<Result: Sendable>(_ body: @escaping @Sendable () async throws -> Result) async throws -> Result {
        let previous = tail
        let task = Task { () async throws -> Result in
            await previous?.value
            return try await body()
        }
        tail = Task { _ = try? await task.value }
        return try await task.value
    }
}
