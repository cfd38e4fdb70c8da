public import AttestGuardStore
public import AttestGuardWire
import AttestVocabulary
import Foundation

extension ManagedListBody {
    public init(_ list: ManagedListRecord) {
        self.init(
            name: list.name, kind: list.kind.rawValue, description: list.description, createdAt: list.createdAt, createdBy: list.createdBy,
            updatedAt: list.updatedAt, updatedBy: list.updatedBy, revision: list.revision, entryCount: list.entryCount
        )
    }
}

extension ManagedListEntryBody {
    public init(_ entry: ManagedListEntryRecord) {
        self.init(value: entry.value, expiresAt: entry.expiresAt, note: entry.note, addedAt: entry.addedAt, addedBy: entry.addedBy)
    }
}

extension ManagedListChangeBody {
    public init(_ change: ManagedListChangeRecord) {
        self.init(
            id: change.id, list: change.listName, at: change.at, actor: change.actor, action: change.action.rawValue, added: change.added,
            removed: change.removed, entries: change.entries, values: change.values
        )
    }
}

extension ManagedListEntrySubmission {
    /// The entries of a JSON change: each entry's own expiry and note, else the body's.
    /// - Throws: `list_entry_invalid` for an `expiresAt` that is not an RFC 3339 instant.
    public static func entries(of body: ManagedListEntriesBody) throws(EngineError) -> [ManagedListEntrySubmission] {
        var entries: [ManagedListEntrySubmission] = []
        for (index, entry) in body.entries.enumerated() {
            let position = "entry \(index + 1)"
            var expiresAt: Date?
            if let text = entry.expiresAt {
                guard let instant = RFC3339.parse(text) else {
                    throw EngineError.invalid(.listEntryInvalid, "\(position): expiresAt is an RFC 3339 instant such as 2026-12-01T00:00:00Z")
                }
                expiresAt = instant
            }
            let ttl = entry.ttlSeconds ?? (expiresAt == nil ? body.ttlSeconds : nil)
            entries.append(ManagedListEntrySubmission(value: entry.value, expiresAt: expiresAt, ttlSeconds: ttl, note: entry.note ?? body.note, position: position))
        }
        return entries
    }

    /// The CSV columns an entry file may have, in any order and case (``csv(_:)``).
    public static let csvColumns = ["value", "expiresAt", "ttlSeconds", "note"]

    /// The entries of CSV text (RFC 4180, as spreadsheets write it): with a header row naming ``csvColumns`` in any
    /// order and case (a `value` column at least; others are ignored), or one entry a line in the first column (so a
    /// pasted column of addresses is a file). `header` says which (`text/csv; header=present|absent`); when `nil`,
    /// a first row with a cell `value` is the header. Blank lines are skipped; errors name the line.
    /// - Throws: `list_entry_invalid`, also for a header without a `value` column.
    public static func csv(_ text: String, header: Bool? = nil, ttlSeconds: Int? = nil, note: String? = nil) throws(EngineError) -> [ManagedListEntrySubmission] {
        let records: [(line: Int, cells: [String])]
        do throws(CSVText.UnclosedQuote) {
            records = try CSVText.records(text).filter { !$0.cells.allSatisfy { $0.allSatisfy(\.isWhitespace) } }
        } catch {
            throw EngineError.invalid(.listEntryInvalid, "line \(error.line): a quoted cell opened here never ends")
        }
        guard let first = records.first else { return [] }
        let known = Dictionary(uniqueKeysWithValues: csvColumns.map { ($0.lowercased(), $0) })
        let named = first.cells.map { known[$0.trimmingCharacters(in: .whitespaces).lowercased()] }
        let hasHeader = header ?? named.contains("value")
        if hasHeader, !named.contains("value") {
            throw EngineError.invalid(.listEntryInvalid, "line \(first.line): the header names no value column (columns: \(csvColumns.joined(separator: ", ")))")
        }
        let columns: [String?] = hasHeader ? named : ["value"]
        var entries: [ManagedListEntrySubmission] = []
        for record in hasHeader ? Array(records.dropFirst()) : records {
            let position = "line \(record.line)"
            var cells: [String: String] = [:]
            for (column, cell) in zip(columns, record.cells) {
                guard let column, !cell.isEmpty else { continue }
                cells[column] = cell
            }
            var expiresAt: Date?
            if let text = cells["expiresAt"] {
                guard let instant = RFC3339.parse(text) else {
                    throw EngineError.invalid(.listEntryInvalid, "\(position): expiresAt is an RFC 3339 instant such as 2026-12-01T00:00:00Z")
                }
                expiresAt = instant
            }
            var ttl: Int?
            if let text = cells["ttlSeconds"] {
                guard let seconds = Int(text) else { throw EngineError.invalid(.listEntryInvalid, "\(position): ttlSeconds is a whole number of seconds") }
                ttl = seconds
            }
            entries.append(ManagedListEntrySubmission(
                value: cells["value"] ?? "", expiresAt: expiresAt, ttlSeconds: ttl ?? (expiresAt == nil ? ttlSeconds : nil),
                note: cells["note"] ?? note, position: position
            ))
        }
        return entries
    }
}
