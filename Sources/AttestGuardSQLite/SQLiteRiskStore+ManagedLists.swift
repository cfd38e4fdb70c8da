public import AttestVocabulary
public import Foundation
import SQLiteNIO
public import AttestGuardStore

extension SQLiteRiskStore {
    public func createManagedList(_ list: ManagedListRecord, maximumLists: Int) async throws -> ManagedListCreateOutcome {
        let created = try await transaction { connection -> ManagedListRecord? in
            let rows = try await connection.query(
                """
                INSERT INTO managed_lists (name, kind, description, created_at, created_by, updated_at, updated_by, revision, entry_count)
                SELECT ?1, ?2, ?3, ?4, ?5, ?4, ?5, 1, 0 WHERE (SELECT count(*) FROM managed_lists) < ?6
                ON CONFLICT (name) DO NOTHING RETURNING *
                """,
                [.text(list.name), .text(list.kind.rawValue), .text(list.description), SQLiteValues.bind(list.createdAt), .text(list.createdBy),
                 .integer(maximumLists)]
            )
            guard let row = rows.first else { return nil }
            let record = try ManagedListRecord(sqlite: row)
            try await Self.logChange(
                on: connection, name: list.name, at: list.createdAt, actor: list.createdBy, action: .created, added: 0, removed: 0, entries: 0, values: []
            )
            return record
        }
        if let created { return .created(created) }
        if let existing = try await managedList(name: list.name) { return .exists(existing) }
        return .tooMany
    }

    public func managedLists() async throws -> [ManagedListRecord] {
        try await query("SELECT * FROM managed_lists ORDER BY name").map(ManagedListRecord.init(sqlite:))
    }

    public func managedList(name: String) async throws -> ManagedListRecord? {
        try await query("SELECT * FROM managed_lists WHERE name = ?1", [.text(name)]).first.map(ManagedListRecord.init(sqlite:))
    }

    public func managedListEntries(name: String, now: Date) async throws -> [ManagedListEntryRecord] {
        try await query(
            "SELECT * FROM managed_list_entries WHERE list_name = ?1 AND (expires_at IS NULL OR expires_at > ?2) ORDER BY value",
            [.text(name), SQLiteValues.bind(now)]
        ).map(ManagedListEntryRecord.init(sqlite:))
    }

    public func changeManagedList(
        name: String, edit: ManagedListEdit, actor: String, at: Date, maximumEntries: Int, expectedKind: ListKind?
    ) async throws -> ManagedListChangeOutcome {
        do {
            return try await transaction { connection in
                // BEGIN IMMEDIATE holds the write lock: changes of one store apply one after the other.
                let locked = try await connection.query("SELECT kind FROM managed_lists WHERE name = ?1", [.text(name)])
                guard let row = locked.first else { return .notFound }
                let kind = try SQLiteRowReader(row: row, table: "managed_lists").enumeration("kind", as: ListKind.self)
                if let expectedKind, kind != expectedKind { return .kindChanged(kind) }
                _ = try await connection.query(
                    "DELETE FROM managed_list_entries WHERE list_name = ?1 AND expires_at <= ?2", [.text(name), SQLiteValues.bind(at)]
                )
                var added = 0
                var removed = 0
                switch edit {
                case .replace(let entries):
                    let keep = Set(entries.map(\.value))
                    let current = try await connection.query("SELECT value FROM managed_list_entries WHERE list_name = ?1", [.text(name)])
                    for row in current {
                        let value = try SQLiteRowReader(row: row, table: "managed_list_entries").text("value")
                        guard !keep.contains(value) else { continue }
                        _ = try await connection.query("DELETE FROM managed_list_entries WHERE list_name = ?1 AND value = ?2", [.text(name), .text(value)])
                        removed += 1
                    }
                    added = try await Self.upsert(entries, into: name, on: connection)
                case .add(let entries):
                    added = try await Self.upsert(entries, into: name, on: connection)
                case .remove(let values):
                    for value in Set(values) {
                        removed += try await connection.query(
                            "DELETE FROM managed_list_entries WHERE list_name = ?1 AND value = ?2 RETURNING 1", [.text(name), .text(value)]
                        ).count
                    }
                }
                let counted = try await connection.query("SELECT count(*) AS n FROM managed_list_entries WHERE list_name = ?1", [.text(name)])
                let entries = Int(try SQLiteRowReader(row: counted[0], table: "managed_list_entries").integer("n"))
                guard entries <= maximumEntries else { throw RollbackSignal(step: .listFull(entries: entries)) }
                let updated = try await connection.query(
                    """
                    UPDATE managed_lists SET revision = revision + 1, entry_count = ?2, updated_at = ?3, updated_by = ?4 WHERE name = ?1 RETURNING *
                    """,
                    [.text(name), .integer(entries), SQLiteValues.bind(at), .text(actor)]
                )
                let list = try ManagedListRecord(sqlite: updated[0])
                let change = try await Self.logChange(
                    on: connection, name: name, at: at, actor: actor, action: edit.action, added: added, removed: removed, entries: entries,
                    values: Array(edit.values.prefix(ManagedListChangeRecord.maximumValuesKept))
                )
                return .changed(list, change)
            }
        } catch let signal as RollbackSignal {
            guard case .listFull(let entries) = signal.step else { throw signal }
            return .full(entries: entries)
        }
    }

    /// Inserts the entries, an entry already on the list taking the new expiry and note; the rows written.
    private static func upsert(_ entries: [ManagedListEntryRecord], into name: String, on connection: SQLiteConnection) async throws -> Int {
        var written = 0
        for entry in ManagedListEntryRecord.distinct(entries) {
            written += try await connection.query(
                """
                INSERT INTO managed_list_entries AS stored (list_name, value, expires_at, note, added_at, added_by) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                ON CONFLICT (list_name, value) DO UPDATE SET expires_at = excluded.expires_at, note = excluded.note,
                    added_at = excluded.added_at, added_by = excluded.added_by
                WHERE stored.expires_at IS NOT excluded.expires_at OR stored.note <> excluded.note
                RETURNING 1
                """,
                [.text(name), .text(entry.value), SQLiteValues.bind(entry.expiresAt), .text(entry.note), SQLiteValues.bind(entry.addedAt), .text(entry.addedBy)]
            ).count
        }
        return written
    }

    @discardableResult
    private static func logChange(
        on connection: SQLiteConnection, name: String, at: Date, actor: String, action: ManagedListChangeRecord.Action,
        added: Int, removed: Int, entries: Int, values: [String]
    ) async throws -> ManagedListChangeRecord {
        let encoded = String(decoding: try JSONEncoder().encode(values), as: UTF8.self)
        let rows = try await connection.query(
            """
            INSERT INTO managed_list_changes (list_name, at, actor, action, added, removed, entries, "values")
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) RETURNING *
            """,
            [.text(name), SQLiteValues.bind(at), .text(actor), .text(action.rawValue), .integer(added), .integer(removed), .integer(entries), .text(encoded)]
        )
        return try ManagedListChangeRecord(sqlite: rows[0])
    }

    public func deleteManagedList(name: String, actor: String, at: Date) async throws -> Bool {
        try await transaction { connection in
            let deleted = try await connection.query("DELETE FROM managed_lists WHERE name = ?1 RETURNING entry_count", [.text(name)])
            guard let row = deleted.first else { return false }
            let entries = Int(try SQLiteRowReader(row: row, table: "managed_lists").integer("entry_count"))
            try await Self.logChange(on: connection, name: name, at: at, actor: actor, action: .deleted, added: 0, removed: entries, entries: 0, values: [])
            return true
        }
    }

    public func managedListChanges(name: String?, limit: Int) async throws -> [ManagedListChangeRecord] {
        try await query(
            "SELECT * FROM managed_list_changes WHERE ?1 IS NULL OR list_name = ?1 ORDER BY id DESC LIMIT ?2",
            [name.map(SQLiteData.text) ?? .null, .integer(max(limit, 0))]
        ).map(ManagedListChangeRecord.init(sqlite:))
    }
}

extension ManagedListRecord {
    init(sqlite row: SQLiteRow) throws {
        let read = SQLiteRowReader(row: row, table: "managed_lists")
        self.init(
            name: try read.text("name"), kind: try read.enumeration("kind", as: ListKind.self), description: try read.text("description"),
            createdAt: try read.date("created_at"), createdBy: try read.text("created_by"), updatedAt: try read.date("updated_at"),
            updatedBy: try read.text("updated_by"), revision: try read.integer("revision"), entryCount: Int(try read.integer("entry_count"))
        )
    }
}

extension ManagedListEntryRecord {
    init(sqlite row: SQLiteRow) throws {
        let read = SQLiteRowReader(row: row, table: "managed_list_entries")
        self.init(
            value: try read.text("value"), expiresAt: try read.optionalDate("expires_at"), note: try read.text("note"), addedAt: try read.date("added_at"),
            addedBy: try read.text("added_by")
        )
    }
}

extension ManagedListChangeRecord {
    init(sqlite row: SQLiteRow) throws {
        let read = SQLiteRowReader(row: row, table: "managed_list_changes")
        let values: [String]
        do {
            values = try JSONDecoder().decode([String].self, from: Data(try read.text("values").utf8))
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.corruptRow, "managed_list_changes.values is not a JSON list of strings")
        }
        self.init(
            id: try read.integer("id"), listName: try read.text("list_name"), at: try read.date("at"), actor: try read.text("actor"),
            action: try read.enumeration("action", as: Action.self), added: Int(try read.integer("added")), removed: Int(try read.integer("removed")),
            entries: Int(try read.integer("entries")), values: values
        )
    }
}
