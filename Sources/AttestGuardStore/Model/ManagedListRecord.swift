public import AttestVocabulary
public import Foundation

/// A run-time list as the store keeps it: what rules read by name through `list("name")` when their rule set
/// declares it `managed: true`. Its entries are ``ManagedListEntryRecord``s; every change is a
/// ``ManagedListChangeRecord``.
public struct ManagedListRecord: Sendable, Hashable {
    public var name: String
    public var kind: ListKind
    /// What the list is for, as its creator wrote it.
    public var description: String
    public var createdAt: Date
    /// The API key (or `cli:` and the operator) that created it.
    public var createdBy: String
    public var updatedAt: Date
    public var updatedBy: String
    /// Raised by every change of the entries: a process reads a list's entries again when its revision moved.
    public var revision: Int64
    /// The entries after the last change, some of which may have expired since.
    public var entryCount: Int

    public init(
        name: String, kind: ListKind, description: String, createdAt: Date, createdBy: String, updatedAt: Date? = nil, updatedBy: String? = nil,
        revision: Int64 = 1, entryCount: Int = 0
    ) {
        self.name = name
        self.kind = kind
        self.description = description
        self.createdAt = createdAt
        self.createdBy = createdBy
        self.updatedAt = updatedAt ?? createdAt
        self.updatedBy = updatedBy ?? createdBy
        self.revision = revision
        self.entryCount = entryCount
    }
}

/// One entry of a run-time list, in its stored form (`ListEntryText`).
public struct ManagedListEntryRecord: Sendable, Hashable {
    public var value: String
    /// When it stops matching; `nil`: never. An expired entry is dropped at the list's next change.
    public var expiresAt: Date?
    /// Why it is on the list, as the analyst wrote it (may be empty).
    public var note: String
    public var addedAt: Date
    public var addedBy: String

    public init(value: String, expiresAt: Date? = nil, note: String = "", addedAt: Date, addedBy: String) {
        self.value = value
        self.expiresAt = expiresAt
        self.note = note
        self.addedAt = addedAt
        self.addedBy = addedBy
    }
}

/// What one change does to a run-time list's entries.
public enum ManagedListEdit: Sendable, Hashable {
    /// The list holds exactly these entries afterwards.
    case replace([ManagedListEntryRecord])
    /// These entries are added; an entry already on the list takes the new expiry and note.
    case add([ManagedListEntryRecord])
    /// Entries with these values are taken off (a value not on the list is skipped).
    case remove([String])

    /// The action's name in the change log.
    public var action: ManagedListChangeRecord.Action {
        switch self {
        case .replace: .replaced
        case .add: .added
        case .remove: .removed
        }
    }

    /// The values the edit names.
    public var values: [String] {
        switch self {
        case .replace(let entries), .add(let entries): entries.map(\.value)
        case .remove(let values): values
        }
    }
}

/// One change of a run-time list, as the change log keeps it: who, when, what.
public struct ManagedListChangeRecord: Sendable, Hashable {
    /// What was done.
    public enum Action: String, Sendable, Hashable, CaseIterable {
        case created, replaced, added, removed, deleted
    }

    /// Increasing in the order changes were stored.
    public var id: Int64
    public var listName: String
    public var at: Date
    public var actor: String
    public var action: Action
    /// Entries added or updated by the change.
    public var added: Int
    /// Entries taken off by the change (for `replaced`, those the new entries do not keep; expired ones are not
    /// counted).
    public var removed: Int
    /// The list's entries after the change.
    public var entries: Int
    /// The values the change named, at most ``ManagedListChangeRecord/maximumValuesKept``, in the order given.
    public var values: [String]

    /// How many of a change's values the log keeps: enough to read what an analyst did, bounded for a replace of a
    /// whole list.
    public static let maximumValuesKept = 100

    public init(id: Int64, listName: String, at: Date, actor: String, action: Action, added: Int, removed: Int, entries: Int, values: [String]) {
        self.id = id
        self.listName = listName
        self.at = at
        self.actor = actor
        self.action = action
        self.added = added
        self.removed = removed
        self.entries = entries
        self.values = values
    }
}

/// How a change of a run-time list came out.
public enum ManagedListChangeOutcome: Sendable, Hashable {
    /// Stored: the list as it now is, and the change log's record.
    case changed(ManagedListRecord, ManagedListChangeRecord)
    /// No list has the name.
    case notFound
    /// The list would hold this many entries, more than allowed; nothing changed.
    case full(entries: Int)
    /// The list is of this kind, not the one its entries were checked for (it was deleted and made again); nothing
    /// changed.
    case kindChanged(ListKind)
}

/// How the creation of a run-time list came out.
public enum ManagedListCreateOutcome: Sendable, Hashable {
    case created(ManagedListRecord)
    /// A list of that name exists: the one stored.
    case exists(ManagedListRecord)
    /// The store holds the most lists it may; nothing stored.
    case tooMany
}

extension ManagedListEntryRecord {
    /// The entries with one per value, the last given of a value winning: what both backends store.
    package static func distinct(_ entries: [ManagedListEntryRecord]) -> [ManagedListEntryRecord] {
        var positions: [String: Int] = [:]
        var kept: [ManagedListEntryRecord] = []
        for entry in entries {
            if let position = positions[entry.value] {
                kept[position] = entry
            } else {
                positions[entry.value] = kept.count
                kept.append(entry)
            }
        }
        return kept
    }
}
