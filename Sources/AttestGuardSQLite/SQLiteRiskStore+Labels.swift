public import AttestVocabulary
import Foundation
import SQLiteNIO
public import AttestGuardStore

extension SQLiteRiskStore {
    /// One transaction for the whole batch, each label written by ``write(_:on:)`` (``FraudLabelRecord/replaces(_:)``).
    public func storeLabels(_ labels: [FraudLabelRecord]) async throws -> [LabelWriteOutcome] {
        guard !labels.isEmpty else { return [] }
        let (folded, positions) = FraudLabelRecord.folded(labels)
        let outcomes = try await transaction { connection in
            var outcomes: [LabelWriteOutcome] = []
            for label in folded { outcomes.append(try await Self.write(label, on: connection)) }
            return outcomes
        }
        return FraudLabelRecord.outcomes(positions: positions, folded: outcomes)
    }

    /// Stores one label inside a transaction: an insert that does nothing on a label of the same identity, then an
    /// update that lands only when the new label differs and is as late or later.
    static func write(_ label: FraudLabelRecord, on connection: SQLiteConnection) async throws -> LabelWriteOutcome {
        let binds: [SQLiteData] = [
            .text(label.appId), .text(label.kind.rawValue), .text(label.subject), .text(label.source), .text(label.label.rawValue),
            SQLiteValues.bind(label.labelledAt),
        ]
        let inserted = try await connection.query(
            """
            INSERT INTO labels (app_id, subject_kind, subject, source, label, labelled_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
            ON CONFLICT (app_id, subject_kind, subject, source) DO NOTHING RETURNING 1
            """,
            binds
        )
        guard inserted.isEmpty else { return .created }
        let replaced = try await connection.query(
            """
            UPDATE labels SET label = ?5, labelled_at = ?6
            WHERE app_id = ?1 AND subject_kind = ?2 AND subject = ?3 AND source = ?4 AND label <> ?5 AND labelled_at <= ?6
            RETURNING 1
            """,
            binds
        )
        return replaced.isEmpty ? .unchanged : .replaced
    }

    public func deleteLabels(appId: String, kind: LabelSubjectKind, subject: String, source: String?) async throws -> Int {
        try await query(
            """
            DELETE FROM labels WHERE app_id = ?1 AND subject_kind = ?2 AND subject = ?3 AND (?4 IS NULL OR source = ?4) RETURNING 1
            """,
            [.text(appId), .text(kind.rawValue), .text(subject), SQLiteValues.bind(source)]
        ).count
    }

    public func labels(appId: String?) async throws -> [FraudLabelRecord] {
        try await query(SQLiteLabelQueries.all, [SQLiteValues.bind(appId)]).map(FraudLabelRecord.init(sqlite:))
    }

    public func labels(for decisions: [DecisionLogEntry]) async throws -> [FraudLabelRecord] {
        let subjects = LabelSubjects(decisions)
        guard !subjects.isEmpty else { return [] }
        return try await query(
            """
            SELECT l.* FROM json_each(?1) AS x
            JOIN labels l ON l.app_id = json_extract(x.value, '$[0]') AND l.subject_kind = json_extract(x.value, '$[1]')
                         AND l.subject = json_extract(x.value, '$[2]')
            ORDER BY l.app_id, l.subject_kind, l.subject, l.source
            """,
            [.text(subjects.json)]
        ).map(FraudLabelRecord.init(sqlite:))
    }

    public func labels(appId: String, of subjects: [LabelLookup]) async throws -> [FraudLabelRecord] {
        guard !subjects.isEmpty else { return [] }
        let pairs = (try? JSONSerialization.data(withJSONObject: subjects.map { [$0.kind.rawValue, $0.subject] })) ?? Data("[]".utf8)
        return try await query(
            """
            SELECT l.* FROM json_each(?2) AS x
            JOIN labels l ON l.app_id = ?1 AND l.subject_kind = json_extract(x.value, '$[0]') AND l.subject = json_extract(x.value, '$[1]')
            ORDER BY l.subject_kind, l.subject, l.source
            """,
            [.text(appId), .text(String(decoding: pairs, as: UTF8.self))]
        ).map(FraudLabelRecord.init(sqlite:))
    }

    public func decision(appId: String, requestId: String) async throws -> DecisionLogEntry? {
        try await query(
            "SELECT * FROM decision_log WHERE app_id = ?1 AND request_id = ?2 ORDER BY decided_at DESC, seq DESC LIMIT 1",
            [.text(appId), .text(requestId)]
        ).first.map(DecisionLogEntry.init(sqlite:))
    }
}

extension SQLiteDecisionLogReader: LabelReader {
    public func labels(appId: String?) async throws -> [FraudLabelRecord] {
        try await rows(SQLiteLabelQueries.all, [SQLiteValues.bind(appId)]).map(FraudLabelRecord.init(sqlite:))
    }
}

/// The label reads the store and the read-only reader share.
enum SQLiteLabelQueries {
    static let all = "SELECT * FROM labels WHERE ?1 IS NULL OR app_id = ?1 ORDER BY app_id, subject_kind, subject, source"
}

extension FraudLabelRecord {
    init(sqlite row: SQLiteRow) throws {
        let reader = SQLiteRowReader(row: row, table: "labels")
        self.init(
            appId: try reader.text("app_id"), kind: try reader.enumeration("subject_kind", as: LabelSubjectKind.self),
            subject: try reader.text("subject"), source: try reader.text("source"), label: try reader.enumeration("label", as: FraudLabel.self),
            labelledAt: try reader.date("labelled_at")
        )
    }
}
