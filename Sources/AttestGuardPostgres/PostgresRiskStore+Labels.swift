public import AttestVocabulary
import Foundation
import PostgresNIO
public import AttestGuardStore

extension PostgresRiskStore {
    /// One statement for the whole batch: an insert that, on a label of the same identity, replaces it only when the
    /// new one differs and is as late or later (``FraudLabelRecord/replaces(_:)``). A row comes back for each label
    /// written, `xmax = 0` telling an insert from an update; a label without a row changed nothing.
    public func storeLabels(_ labels: [FraudLabelRecord]) async throws -> [LabelWriteOutcome] {
        guard !labels.isEmpty else { return [] }
        let (folded, positions) = FraudLabelRecord.folded(labels)
        let written = try await rows(Self.labelUpsert(folded))
        var outcomes: [FraudLabelRecord.Identity: LabelWriteOutcome] = [:]
        for row in written {
            let read = PostgresRowReader(row, table: "labels")
            let identity = FraudLabelRecord.Identity(
                appId: try read("app_id"), kind: try read.enumeration("subject_kind", as: LabelSubjectKind.self), subject: try read("subject"),
                source: try read("source")
            )
            outcomes[identity] = try read("created", as: Bool.self) ? .created : .replaced
        }
        return FraudLabelRecord.outcomes(positions: positions, folded: folded.map { outcomes[$0.identity] ?? .unchanged })
    }

    /// The insert that stores labels of distinct identities, each replacing a stored one only when it differs and is
    /// as late or later; it returns a row per label written, `created` telling an insert from an update.
    static func labelUpsert(_ folded: [FraudLabelRecord]) -> PostgresQuery {
        """
        INSERT INTO labels AS stored (app_id, subject_kind, subject, source, label, labelled_at)
        SELECT a, k, s, o, l, t
        FROM unnest(\(folded.map(\.appId))::text[], \(folded.map(\.kind.rawValue))::text[], \(folded.map(\.subject))::text[],
                    \(folded.map(\.source))::text[], \(folded.map(\.label.rawValue))::text[], \(folded.map(\.labelledAt))::timestamptz[])
             AS x(a, k, s, o, l, t)
        ON CONFLICT (app_id, subject_kind, subject, source) DO UPDATE SET label = excluded.label, labelled_at = excluded.labelled_at
        WHERE stored.label <> excluded.label AND excluded.labelled_at >= stored.labelled_at
        RETURNING app_id, subject_kind, subject, source, (xmax = 0) AS created
        """
    }

    public func deleteLabels(appId: String, kind: LabelSubjectKind, subject: String, source: String?) async throws -> Int {
        try await rows(
            """
            DELETE FROM labels
            WHERE app_id = \(appId) AND subject_kind = \(kind.rawValue) AND subject = \(subject)
              AND (\(source)::text IS NULL OR source = \(source)::text)
            RETURNING 1
            """
        ).count
    }

    public func labels(appId: String?) async throws -> [FraudLabelRecord] {
        try await laggingRows(
            """
            SELECT * FROM labels WHERE \(appId)::text IS NULL OR app_id = \(appId)::text
            ORDER BY app_id, subject_kind, subject, source
            """
        ).map(FraudLabelRecord.init(postgres:))
    }

    public func labels(for decisions: [DecisionLogEntry]) async throws -> [FraudLabelRecord] {
        let subjects = LabelSubjects(decisions)
        guard !subjects.isEmpty else { return [] }
        return try await laggingRows(
            """
            SELECT l.* FROM labels l
            JOIN unnest(\(subjects.appIds)::text[], \(subjects.kinds)::text[], \(subjects.subjects)::text[]) AS x(a, k, s)
              ON l.app_id = x.a AND l.subject_kind = x.k AND l.subject = x.s
            ORDER BY l.app_id, l.subject_kind, l.subject, l.source
            """
        ).map(FraudLabelRecord.init(postgres:))
    }

    public func labels(appId: String, of subjects: [LabelLookup]) async throws -> [FraudLabelRecord] {
        guard !subjects.isEmpty else { return [] }
        return try await rows(
            """
            SELECT l.* FROM labels l
            JOIN unnest(\(subjects.map(\.kind.rawValue))::text[], \(subjects.map(\.subject))::text[]) AS x(k, s)
              ON l.app_id = \(appId) AND l.subject_kind = x.k AND l.subject = x.s
            ORDER BY l.subject_kind COLLATE "C", l.subject COLLATE "C", l.source COLLATE "C"
            """
        ).map(FraudLabelRecord.init(postgres:))
    }

    public func decision(appId: String, requestId: String) async throws -> DecisionLogEntry? {
        try await laggingRows(Self.decisionQuery(appId: appId, requestId: requestId)).first.map(DecisionLogEntry.init(postgres:))
    }

    /// The query of ``decision(appId:requestId:)``: a probe of each day's `decision_log_by_request`, keyed by the
    /// request id's 64-bit hash seeded with the app's (schema 36), then the newest of what they find. The query names
    /// the same expression; the request id and the app are compared on the rows read.
    static func decisionQuery(appId: String, requestId: String) -> PostgresQuery {
        """
        SELECT * FROM decision_log
        WHERE hashtextextended(request_id, hashtextextended(app_id, 0)) = hashtextextended(\(requestId), hashtextextended(\(appId), 0))
          AND request_id = \(requestId) AND app_id = \(appId)
        ORDER BY decided_at DESC, seq DESC LIMIT 1
        """
    }
}

extension FraudLabelRecord {
    init(postgres row: PostgresRow) throws {
        let read = PostgresRowReader(row, table: "labels")
        self.init(
            appId: try read("app_id"), kind: try read.enumeration("subject_kind", as: LabelSubjectKind.self), subject: try read("subject"),
            source: try read("source"), label: try read.enumeration("label", as: FraudLabel.self), labelledAt: try read("labelled_at")
        )
    }
}
