import AttestVocabulary

/// The run-time lists (kept in the store, changed through `/v1/lists` and `attestguard lists`) as one process last
/// read them: what a rule's `list("name")` of a list declared `managed: true` looks up. Immutable; the process swaps
/// in a new snapshot when a list changes, and each evaluation reads the one it started with (``SignalValues/lists``).
public final class ManagedListSnapshot: Sendable {
    /// The lists by name; a list the store does not have is absent (and matches nothing).
    public let lists: [String: ListContents]

    public init(lists: [String: ListContents]) {
        self.lists = lists
    }

    /// No lists: every managed list matches nothing.
    public static let empty = ManagedListSnapshot(lists: [:])

    /// Whether `text` is in the list `name` of `kind` at `now`; a list the snapshot lacks, or holds with another kind
    /// than the rules declare, matches nothing.
    func contains(_ text: String, list name: String, kind: ListKind, at now: Double) -> Bool {
        guard let contents = lists[name], contents.kind == kind else { return false }
        return contents.contains(text, at: now)
    }
}
