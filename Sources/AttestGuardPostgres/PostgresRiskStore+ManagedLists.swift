public import AttestVocabulary
public import Foundation
import PostgresNIO
public import AttestGuardStore

extension PostgresRiskStore {
    public func createManagedList(_ list: ManagedListRecord, maximumLists: Int) async throws -> ManagedListCreateOutcome {
        let created = try await transaction { connection in
            let rows = try await connection.query(
                """
                INSERT INTO managed_lists (name, kind, description, created_at, created_by, updated_at, updated_by, revision, entry_count)
                SELECT \(list.name), \(list.kind.rawValue), \(list.description), \(list.createdAt), \(list.createdBy), \(list.createdAt), \(list.createdBy), 1, 0
                WHERE (SELECT count(*) FROM managed_lists) < \(Int64(maximumLists))
                ON CONFLICT (name) DO NOTHING RETURNING *
                """, logger: self.logger
            ).collect()
            guard let row = rows.first else { return nil as ManagedListRecord? }
            let record = try ManagedListRecord(postgres: row)
            try await connection.query(
                """
                INSERT INTO managed_list_changes (list_name, at, actor, action, added, removed, entries, "values")
                VALUES (\(list.name), \(list.createdAt), \(list.createdBy), \(ManagedListChangeRecord.Action.created.rawValue), 0, 0, 0, \([String]()))
                """, logger: self.logger
            )
            return record
        }
        if let created { return .created(created) }
        if let existing = try await managedList(name: list.name) { return .exists(existing) }
        return .tooMany
    }

    public func managedLists() async throws -> [ManagedListRecord] {
        try await rows("SELECT * FROM managed_lists ORDER BY name COLLATE \"C\"").map(ManagedListRecord.init(postgres:))
    }

    public func managedList(name: String) async throws -> ManagedListRecord? {
        try await rows("SELECT * FROM managed_lists WHERE name = \(name)").first.map(ManagedListRecord.init(postgres:))
    }

    public func managedListEntries(name: String, now: Date) async throws -> [ManagedListEntryRecord] {
        try await rows(
            """
            SELECT * FROM managed_list_entries WHERE list_name = \(name) AND (expires_at IS NULL OR expires_at > \(now))
            ORDER BY value COLLATE "C"
            """
        ).map(ManagedListEntryRecord.init(postgres:))
    }

    public func changeManagedList(
        name: String, edit: ManagedListEdit, actor: String, at: Date, maximumEntries: Int, expectedKind: ListKind?
    ) async throws -> ManagedListChangeOutcome {
        let logger = self.logger
        do {
            return try await transaction { connection in
                // The list's row is the lock every change of its entries takes first.
                let locked = try await connection.query("SELECT kind FROM managed_lists WHERE name = \(name) FOR UPDATE", logger: logger).collect()
                guard let row = locked.first else { return .notFound }
                let kind = try PostgresRowReader(row, table: "managed_lists").enumeration("kind", as: ListKind.self)
                if let expectedKind, kind != expectedKind { return .kindChanged(kind) }
                try await connection.query(
                    "DELETE FROM managed_list_entries WHERE list_name = \(name) AND expires_at <= \(at)", logger: logger
                )
                var added = 0
                var removed = 0
                switch edit {
                case .replace(let entries):
                    let values = entries.map(\.value)
                    removed = try await connection.query(
                        "DELETE FROM managed_list_entries WHERE list_name = \(name) AND NOT (value = ANY(\(values)::text[])) RETURNING 1", logger: logger
                    ).collect().count
                    added = try await Self.upsert(entries, into: name, on: connection, logger: logger)
                case .add(let entries):
                    added = try await Self.upsert(entries, into: name, on: connection, logger: logger)
                case .remove(let values):
                    removed = try await connection.query(
                        "DELETE FROM managed_list_entries WHERE list_name = \(name) AND value = ANY(\(values)::text[]) RETURNING 1", logger: logger
                    ).collect().count
                }
                let counted = try await connection.query(
                    "SELECT count(*)::int8 AS n FROM managed_list_entries WHERE list_name = \(name)", logger: logger
                ).collect()
                let entries = Int(try PostgresRowReader(counted[0], table: "managed_list_entries")("n", as: Int64.self))
                guard entries <= maximumEntries else { throw RollbackSignal(step: .listFull(entries: entries)) }
                let updated = try await connection.query(
                    """
                    UPDATE managed_lists SET revision = revision + 1, entry_count = \(Int32(entries)), updated_at = \(at), updated_by = \(actor)
                    WHERE name = \(name) RETURNING *
                    """, logger: logger
                ).collect()
                let list = try ManagedListRecord(postgres: updated[0])
                let kept = Array(edit.values.prefix(ManagedListChangeRecord.maximumValuesKept))
                let logged = try await connection.query(
                    """
                    INSERT INTO managed_list_changes (list_name, at, actor, action, added, removed, entries, "values")
                    VALUES (\(name), \(at), \(actor), \(edit.action.rawValue), \(Int32(added)), \(Int32(removed)), \(Int32(entries)), \(kept))
                    RETURNING *
                    """, logger: logger
                ).collect()
                return .changed(list, try ManagedListChangeRecord(postgres: logged[0]))
            }
        } catch let signal as RollbackSignal {
            guard case .listFull(let entries) = signal.step else { throw signal }
            return .full(entries: entries)
        }
    }

    /// Inserts the entries, an entry already on the list taking the new expiry and note; the rows written.
    /// (An expiry goes as an instant and a flag: the driver binds no array of optional instants.)
    private static func upsert(_ entries: [ManagedListEntryRecord], into name: String, on connection: PostgresConnection, logger: Logger) async throws -> Int {
        let entries = ManagedListEntryRecord.distinct(entries)
        guard !entries.isEmpty else { return 0 }
        return try await connection.query(
            """
            INSERT INTO managed_list_entries AS stored (list_name, value, expires_at, note, added_at, added_by)
            SELECT \(name), v, CASE WHEN h THEN e END, n, a, b
            FROM unnest(\(entries.map(\.value))::text[], \(entries.map { $0.expiresAt != nil })::bool[], \(entries.map { $0.expiresAt ?? $0.addedAt })::timestamptz[],
                        \(entries.map(\.note))::text[], \(entries.map(\.addedAt))::timestamptz[], \(entries.map(\.addedBy))::text[]) AS x(v, h, e, n, a, b)
            ON CONFLICT (list_name, value) DO UPDATE SET expires_at = excluded.expires_at, note = excluded.note,
                added_at = excluded.added_at, added_by = excluded.added_by
            WHERE stored.expires_at IS DISTINCT FROM excluded.expires_at OR stored.note <> excluded.note
            RETURNING 1
            """, logger: logger
        ).collect().count
    }

    public func deleteManagedList(name: String, actor: String, at: Date) async throws -> Bool {
        let logger = self.logger
        return try await transaction { connection in
            let deleted = try await connection.query(
                "DELETE FROM managed_lists WHERE name = \(name) RETURNING entry_count", logger: logger
            ).collect()
            guard let row = deleted.first else { return false }
            let entries = try PostgresRowReader(row, table: "managed_lists")("entry_count", as: Int32.self)
            try await connection.query(
                """
                INSERT INTO managed_list_changes (list_name, at, actor, action, added, removed, entries, "values")
                VALUES (\(name), \(at), \(actor), \(ManagedListChangeRecord.Action.deleted.rawValue), 0, \(entries), 0, \([String]()))
                """, logger: logger
            )
            return true
        }
    }

    public func managedListChanges(name: String?, limit: Int) async throws -> [ManagedListChangeRecord] {
        try await rows(
            """
            SELECT * FROM managed_list_changes WHERE \(name)::text IS NULL OR list_name = \(name)::text
            ORDER BY id DESC LIMIT \(Int32(clamping: max(limit, 0)))
            """
        ).map(ManagedListChangeRecord.init(postgres:))
    }
}

extension ManagedListRecord {
    init(postgres row: PostgresRow) throws {
        let read = PostgresRowReader(row, table: "managed_lists")
        self.init(
            name: try read("name"), kind: try read.enumeration("kind", as: ListKind.self), description: try read("description"),
            createdAt: try read("created_at"), createdBy: try read("created_by"), updatedAt: try read("updated_at"), updatedBy: try read("updated_by"),
            revision: try read("revision"), entryCount: Int(try read("entry_count", as: Int32.self))
        )
    }
}

extension ManagedListEntryRecord {
    init(postgres row: PostgresRow) throws {
        let read = PostgresRowReader(row, table: "managed_list_entries")
        self.init(
            value: try read("value"), expiresAt: try read("expires_at"), note: try read("note"), addedAt: try read("added_at"), addedBy: try read("added_by")
        )
    }
}

extension ManagedListChangeRecord {
    init(postgres row: PostgresRow) throws {
        let read = PostgresRowReader(row, table: "managed_list_changes")
        self.init(
            id: try read("id"), listName: try read("list_name"), at: try read("at"), actor: try read("actor"),
            action: try read.enumeration("action", as: Action.self), added: Int(try read("added", as: Int32.self)),
            removed: Int(try read("removed", as: Int32.self)), entries: Int(try read("entries", as: Int32.self)), values: try read("values")
        )
    }
}
