public import Foundation

// Run-time lists (contract: "Run-time lists"): what an analyst sends to make and change one, and how one is shown.

/// The paths of the run-time list routes that name a list, for the clients that call them.
public enum ManagedListPaths {
    /// `POST /v1/lists/{name}/entries` (add) and `PUT` (replace), with a ``ManagedListEntriesBody``.
    public static func entries(_ name: String) -> String {
        "/v1/lists/\(name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"])) ?? name)/entries"
    }
}

/// `POST /v1/lists` request body: a new, empty list.
public struct ManagedListCreateBody: Codable, Sendable, Hashable {
    /// Letters, digits and `_`, starting with a letter or `_`, at most 64 bytes: what rules write in `list("name")`.
    public var name: String
    /// `string` (the default) or `cidr`.
    public var kind: String?
    /// What the list is for (at most 512 bytes).
    public var description: String?

    public init(name: String, kind: String? = nil, description: String? = nil) {
        self.name = name
        self.kind = kind
        self.description = description
    }
}

/// One entry as a change sends it.
public struct ManagedListEntryInputBody: Codable, Sendable, Hashable {
    /// The text (`string` list) or an IPv4/IPv6 address or CIDR block (`cidr` list); stored in its canonical form.
    public var value: String
    /// When the entry stops matching (RFC 3339); at most one of this and `ttlSeconds`.
    public var expiresAt: String?
    /// Seconds from the change to the entry's expiry (1 to ten years).
    public var ttlSeconds: Int?
    /// Why the entry is on the list (at most 256 bytes).
    public var note: String?

    public init(value: String, expiresAt: String? = nil, ttlSeconds: Int? = nil, note: String? = nil) {
        self.value = value
        self.expiresAt = expiresAt
        self.ttlSeconds = ttlSeconds
        self.note = note
    }
}

/// `PUT /v1/lists/{name}/entries` (replace) and `POST /v1/lists/{name}/entries` (add) request body as JSON. (The
/// same routes take `text/csv`: a `value` column, optionally `expiresAt`, `ttlSeconds` and `note`.)
public struct ManagedListEntriesBody: Codable, Sendable, Hashable {
    public var entries: [ManagedListEntryInputBody]
    /// The time to live of every entry that names neither `expiresAt` nor `ttlSeconds`.
    public var ttlSeconds: Int?
    /// The note of every entry that names none.
    public var note: String?

    public init(entries: [ManagedListEntryInputBody], ttlSeconds: Int? = nil, note: String? = nil) {
        self.entries = entries
        self.ttlSeconds = ttlSeconds
        self.note = note
    }
}

/// `POST /v1/lists/{name}/entries/remove` request body.
public struct ManagedListRemoveBody: Codable, Sendable, Hashable {
    /// The entries to take off, in any form the list's kind takes; one not on the list is skipped.
    public var values: [String]

    public init(values: [String]) {
        self.values = values
    }
}

/// A run-time list as the routes and `attestguard lists --json` show it.
public struct ManagedListBody: Codable, Sendable, Hashable {
    public var name: String
    public var kind: String
    public var description: String
    public var createdAt: Date
    /// The API key's name (or `cli:` and the operator) that made it.
    public var createdBy: String
    public var updatedAt: Date
    public var updatedBy: String
    /// Raised by every change of the entries.
    public var revision: Int64
    /// The entries after the last change (some may have expired since).
    public var entryCount: Int

    public init(
        name: String, kind: String, description: String, createdAt: Date, createdBy: String, updatedAt: Date, updatedBy: String, revision: Int64,
        entryCount: Int
    ) {
        self.name = name
        self.kind = kind
        self.description = description
        self.createdAt = createdAt
        self.createdBy = createdBy
        self.updatedAt = updatedAt
        self.updatedBy = updatedBy
        self.revision = revision
        self.entryCount = entryCount
    }
}

/// `GET /v1/lists` response: every list, by name.
public struct ManagedListsBody: Codable, Sendable, Hashable {
    public var lists: [ManagedListBody]

    public init(lists: [ManagedListBody]) {
        self.lists = lists
    }
}

/// One stored entry.
public struct ManagedListEntryBody: Codable, Sendable, Hashable {
    public var value: String
    public var expiresAt: Date?
    public var note: String
    public var addedAt: Date
    public var addedBy: String

    public init(value: String, expiresAt: Date?, note: String, addedAt: Date, addedBy: String) {
        self.value = value
        self.expiresAt = expiresAt
        self.note = note
        self.addedAt = addedAt
        self.addedBy = addedBy
    }
}

/// `GET /v1/lists/{name}` response: the list and its entries that have not expired, by value.
public struct ManagedListContentsBody: Codable, Sendable, Hashable {
    public var list: ManagedListBody
    public var entries: [ManagedListEntryBody]

    public init(list: ManagedListBody, entries: [ManagedListEntryBody]) {
        self.list = list
        self.entries = entries
    }
}

/// One record of a list's change log.
public struct ManagedListChangeBody: Codable, Sendable, Hashable {
    public var id: Int64
    public var list: String
    public var at: Date
    public var actor: String
    /// `created`, `replaced`, `added`, `removed` or `deleted`.
    public var action: String
    /// Entries added or updated.
    public var added: Int
    /// Entries taken off.
    public var removed: Int
    /// The list's entries after the change.
    public var entries: Int
    /// The values the change named (at most 100).
    public var values: [String]

    public init(id: Int64, list: String, at: Date, actor: String, action: String, added: Int, removed: Int, entries: Int, values: [String]) {
        self.id = id
        self.list = list
        self.at = at
        self.actor = actor
        self.action = action
        self.added = added
        self.removed = removed
        self.entries = entries
        self.values = values
    }
}

/// The response to a change of a list's entries: the list as it now is and the change as logged.
public struct ManagedListChangedBody: Codable, Sendable, Hashable {
    public var list: ManagedListBody
    public var change: ManagedListChangeBody

    public init(list: ManagedListBody, change: ManagedListChangeBody) {
        self.list = list
        self.change = change
    }
}

/// `GET /v1/lists/{name}/changes` response (and `attestguard lists changes --json`): the change log, newest first.
public struct ManagedListChangesBody: Codable, Sendable, Hashable {
    public var changes: [ManagedListChangeBody]

    public init(changes: [ManagedListChangeBody]) {
        self.changes = changes
    }
}
