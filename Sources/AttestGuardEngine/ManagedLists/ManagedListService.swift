public import AttestGuardStore
public import AttestVocabulary
import Foundation
import RiskRules

/// Run-time lists (contract: "Run-time lists"): analysts create them and change their entries through `/v1/lists`
/// and `attestguard lists`; rules read them by name (`list("name")` of a list declared `managed: true`) as they read
/// list files. Every change is one store transaction, logged with who made it; every process reads the lists that
/// changed within its list refresh period (``book``), and the process that made a change reads it at once.
public struct ManagedListService: Sendable {
    /// The most lists the store holds.
    public static let maximumLists = 100
    /// The most entries one list holds (expired entries are dropped at each change and do not count).
    public static let maximumEntries = 50_000
    /// The longest description and note, in UTF-8 bytes.
    public static let maximumDescriptionBytes = 512
    public static let maximumNoteBytes = 256
    /// The longest time to live an entry may be given: ten years.
    public static let maximumTTLSeconds = ManagedListEntryLimits.maximumLifetimeSeconds
    /// The most change-log records one read returns.
    public static let changeListingLimit = 1_000

    /// A list with its entries.
    public struct Contents: Sendable {
        public var list: ManagedListRecord
        public var entries: [ManagedListEntryRecord]
    }

    /// A change as stored.
    public struct Change: Sendable {
        public var list: ManagedListRecord
        public var change: ManagedListChangeRecord
    }

    let store: any RiskStore
    public let clock: any EngineClock
    /// The lists as this process holds them for the rules.
    public let book: ManagedListBook

    /// Whether a change is read into ``book`` at once (a server's verdicts see it), or left to the next refresh (the
    /// CLI, which holds no verdicts and would read every list for nothing).
    let readsOwnChanges: Bool
    /// Told of every change (`list.changed`).
    let webhooks: WebhookPublisher?

    public init(
        store: any RiskStore, clock: any EngineClock, book: ManagedListBook = ManagedListBook(), readsOwnChanges: Bool = true,
        webhooks: WebhookPublisher? = nil
    ) {
        self.webhooks = webhooks
        self.store = store
        self.clock = clock
        self.book = book
        self.readsOwnChanges = readsOwnChanges
    }

    /// Creates the empty list `name` of `kind`.
    /// - Throws: `invalid_field` for a name that is not a list name or a description too long; `list_already_exists`
    ///   (409); `too_many_lists` (409).
    public func create(name: String, kind: ListKind, description: String, actor: String) async throws -> ManagedListRecord {
        try Self.checkName(name)
        let description = description.trimmingCharacters(in: .whitespacesAndNewlines)
        guard description.utf8.count <= Self.maximumDescriptionBytes, !description.unicodeScalars.contains(where: Self.isControl) else {
            throw EngineError.invalid(.invalidField, "description is at most \(Self.maximumDescriptionBytes) bytes of text without control characters")
        }
        let record = ManagedListRecord(name: name, kind: kind, description: description, createdAt: clock.now(), createdBy: actor)
        switch try await withStore({ try await store.createManagedList(record, maximumLists: Self.maximumLists) }) {
        case .created(let created):
            await refreshQuietly()
            await webhooks?.publish(.listChanged(name, .created, by: actor, at: created.createdAt))
            return created
        case .exists(let existing):
            throw EngineError(.conflict, code: .listAlreadyExists, "a list named \(name) exists (kind \(existing.kind), made \(existing.createdAt.formatted(.iso8601)) by \(existing.createdBy))")
        case .tooMany:
            throw EngineError(.conflict, code: .tooManyLists, "the store holds \(Self.maximumLists) lists, the most it may; delete one first")
        }
    }

    /// Creates the empty list `name` of `kind` that a rule set declares, unless one of that name exists (whatever its
    /// kind); `true` when it made one. The actor is `rules`.
    @discardableResult
    public func createDeclared(name: String, kind: ListKind) async throws -> Bool {
        try Self.checkName(name)
        let record = ManagedListRecord(
            name: name, kind: kind, description: "declared by the rules (lists: { \(name): { managed: true } })", createdAt: clock.now(), createdBy: "rules"
        )
        switch try await withStore({ try await store.createManagedList(record, maximumLists: Self.maximumLists) }) {
        case .created:
            await webhooks?.publish(.listChanged(name, .created, by: record.createdBy, at: record.createdAt))
            return true
        case .exists: return false
        case .tooMany: throw EngineError(.conflict, code: .tooManyLists, "the store holds \(Self.maximumLists) lists, the most it may")
        }
    }

    /// Every list, by name.
    public func lists() async throws -> [ManagedListRecord] {
        try await withStore { try await store.managedLists() }
    }

    /// The list `name` with its entries that have not expired.
    /// - Throws: `list_not_found` (404).
    public func contents(of name: String) async throws -> Contents {
        try Self.checkName(name)
        guard let list = try await withStore({ try await store.managedList(name: name) }) else { throw Self.notFound(name) }
        let entries = try await withStore { try await store.managedListEntries(name: name, now: clock.now()) }
        return Contents(list: list, entries: entries)
    }

    /// Applies a change to the entries of `name`, checked whole first: every entry must take the list's kind.
    /// - Throws: `list_not_found` (404); `list_entry_invalid` (400) naming the first bad entry; `list_full` (409);
    ///   `precondition_failed` (412) when the list was made again with another kind between the check and the write.
    public func change(_ name: String, _ submission: ManagedListChangeSubmission, actor: String) async throws -> Change {
        try Self.checkName(name)
        guard let list = try await withStore({ try await store.managedList(name: name) }) else { throw Self.notFound(name) }
        let now = clock.now()
        let edit: ManagedListEdit
        switch submission {
        case .replace(let entries): edit = .replace(try entries.map { try Self.entry($0, kind: list.kind, now: now, actor: actor) })
        case .add(let entries): edit = .add(try entries.map { try Self.entry($0, kind: list.kind, now: now, actor: actor) })
        case .remove(let entries): edit = .remove(try entries.map { try Self.value($0, kind: list.kind) })
        }
        guard edit.values.count <= Self.maximumEntries else {
            throw EngineError(.conflict, code: .listFull, "a change names at most \(Self.maximumEntries) entries, not \(edit.values.count)")
        }
        let outcome = try await withStore {
            try await store.changeManagedList(
                name: name, edit: edit, actor: actor, at: now, maximumEntries: Self.maximumEntries, expectedKind: list.kind
            )
        }
        switch outcome {
        case .changed(let list, let change):
            await refreshQuietly()
            await webhooks?.publish(.listChanged(change))
            return Change(list: list, change: change)
        case .notFound:
            throw Self.notFound(name)
        case .full(let entries):
            throw EngineError(.conflict, code: .listFull, "the list would hold \(entries) entries, more than \(Self.maximumEntries); nothing changed")
        case .kindChanged(let kind):
            throw EngineError(
                .preconditionFailed, code: .preconditionFailed,
                "the list \(name) was made again as a \(kind) list while this change was checked; nothing changed: send it again"
            )
        }
    }

    /// Deletes the list `name` and its entries (its change log stays).
    /// - Throws: `list_not_found` (404).
    public func delete(_ name: String, actor: String) async throws {
        try Self.checkName(name)
        let now = clock.now()
        guard try await withStore({ try await store.deleteManagedList(name: name, actor: actor, at: now) }) else { throw Self.notFound(name) }
        await refreshQuietly()
        await webhooks?.publish(.listChanged(name, .deleted, by: actor, at: now))
    }

    /// The change log, newest first: of one list (also after it was deleted), or of every list.
    public func changes(of name: String?, limit: Int = changeListingLimit) async throws -> [ManagedListChangeRecord] {
        if let name { try Self.checkName(name) }
        return try await withStore { try await store.managedListChanges(name: name, limit: min(max(limit, 1), Self.changeListingLimit)) }
    }

    /// Reads the store's lists into ``book`` now.
    @discardableResult
    public func refresh() async throws -> ManagedListBook.Refresh {
        try await withStore { try await book.refresh(from: store, now: clock.now()) }
    }

    /// After a change in this process: the process's own rules see it at once; if the read fails, the refresh
    /// loop reads it within its period.
    private func refreshQuietly() async {
        guard readsOwnChanges else { return }
        _ = try? await book.refresh(from: store, now: clock.now())
    }

    // MARK: Checks

    static func checkName(_ name: String) throws(EngineError) {
        guard ListDeclaration.isValidName(name) else {
            throw EngineError.invalid(.invalidField, "a list name is letters, digits and _, starting with a letter or _, at most 64 bytes")
        }
    }

    static func notFound(_ name: String) -> EngineError {
        EngineError(.notFound, code: .listNotFound, "no list named \(name); `attestguard lists create` or POST /v1/lists makes one")
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool { scalar.properties.generalCategory == .control }

    static func value(_ submitted: ManagedListEntrySubmission, kind: ListKind) throws(EngineError) -> String {
        switch ListEntryText.normalise(submitted.value, kind: kind) {
        case .success(let value): return value
        case .failure(let refusal): throw EngineError.invalid(.listEntryInvalid, "\(submitted.position): \(refusal.message)")
        }
    }

    static func entry(_ submitted: ManagedListEntrySubmission, kind: ListKind, now: Date, actor: String) throws(EngineError) -> ManagedListEntryRecord {
        let value = try value(submitted, kind: kind)
        var expiresAt = submitted.expiresAt
        if let ttl = submitted.ttlSeconds {
            guard expiresAt == nil else {
                throw EngineError.invalid(.listEntryInvalid, "\(submitted.position): give expiresAt or ttlSeconds, not both")
            }
            guard (1...maximumTTLSeconds).contains(ttl) else {
                throw EngineError.invalid(.listEntryInvalid, "\(submitted.position): ttlSeconds is 1 to \(maximumTTLSeconds)")
            }
            expiresAt = now.addingTimeInterval(TimeInterval(ttl))
        }
        if let expiresAt, expiresAt <= now {
            throw EngineError.invalid(.listEntryInvalid, "\(submitted.position): expiresAt \(expiresAt.formatted(.iso8601)) has passed")
        }
        let note = (submitted.note ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard note.utf8.count <= maximumNoteBytes, !note.unicodeScalars.contains(where: isControl) else {
            throw EngineError.invalid(.listEntryInvalid, "\(submitted.position): a note is at most \(maximumNoteBytes) bytes of text without control characters")
        }
        return ManagedListEntryRecord(value: value, expiresAt: expiresAt, note: note, addedAt: now, addedBy: actor)
    }
}
