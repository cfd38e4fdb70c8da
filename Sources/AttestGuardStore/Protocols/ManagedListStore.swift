public import AttestVocabulary
public import Foundation

/// Where run-time lists are kept, shared by every server process on the store: the lists, their entries and the log
/// of every change. Each change of a list's entries is one transaction that locks the list, so concurrent changes
/// of one list apply one after the other and each raises its revision once.
public protocol ManagedListStore: Sendable {
    /// Creates an empty list unless one of its name exists or the store holds `maximumLists` already; logs the
    /// creation.
    func createManagedList(_ list: ManagedListRecord, maximumLists: Int) async throws -> ManagedListCreateOutcome

    /// Every list, by name (the catalogue each process polls to learn which lists changed).
    func managedLists() async throws -> [ManagedListRecord]

    /// The list `name`, or `nil`.
    func managedList(name: String) async throws -> ManagedListRecord?

    /// The list's entries that have not expired at `now`, by value.
    func managedListEntries(name: String, now: Date) async throws -> [ManagedListEntryRecord]

    /// Applies `edit` to the list `name` at `at` on behalf of `actor`: drops the entries expired at `at`, applies
    /// the edit, and refuses the whole change when the list would hold more than `maximumEntries`, or, with
    /// `expectedKind`, when the list (deleted and made again since its entries were checked) is of another kind.
    func changeManagedList(
        name: String, edit: ManagedListEdit, actor: String, at: Date, maximumEntries: Int, expectedKind: ListKind?
    ) async throws -> ManagedListChangeOutcome

    /// Deletes the list and its entries, logging the deletion; `false` when there was none.
    func deleteManagedList(name: String, actor: String, at: Date) async throws -> Bool

    /// The change log, newest first, at most `limit`: of one list (deleted lists' changes stay), or of all.
    func managedListChanges(name: String?, limit: Int) async throws -> [ManagedListChangeRecord]
}

extension ManagedListStore {
    /// ``changeManagedList(name:edit:actor:at:maximumEntries:expectedKind:)`` whatever the list's kind.
    public func changeManagedList(
        name: String, edit: ManagedListEdit, actor: String, at: Date, maximumEntries: Int
    ) async throws -> ManagedListChangeOutcome {
        try await changeManagedList(name: name, edit: edit, actor: actor, at: at, maximumEntries: maximumEntries, expectedKind: nil)
    }
}
