public import AttestVocabulary
public import Foundation
import SQLiteNIO
public import AttestGuardStore

extension SQLiteRiskStore {
    public func openReviewItems(_ openings: [ReviewOpening], now: Date) async throws {
        try await transaction { connection in
            _ = try await connection.query(ReviewQueueSQL.sweep(now: "?1"), [SQLiteValues.bind(now)])
            for opening in ReviewQueueSQL.writingOrder(openings) {
                _ = try await connection.query(
                    """
                    INSERT INTO review_items (\(ReviewQueueSQL.openingColumns))
                    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, 'open')
                    \(ReviewQueueSQL.fold(greatest: "max"))
                    """,
                    [
                        .text(opening.appId), .text(opening.subjectKind.rawValue), .text(opening.subject), SQLiteValues.bind(opening.keyId),
                        SQLiteValues.bind(opening.userHash), SQLiteValues.bind(opening.deviceHash), .text(opening.endpoint.rawValue),
                        SQLiteValues.bind(opening.action), .float(opening.score), .text(opening.fired), .text(opening.ruleSetVersion),
                        SQLiteValues.bind(opening.firstRequestId), SQLiteValues.bind(opening.lastRequestId), .integer(opening.verdicts),
                        SQLiteValues.bind(opening.firstVerdictAt), SQLiteValues.bind(opening.lastVerdictAt), SQLiteValues.bind(opening.expiresAt),
                    ]
                )
            }
        }
    }

    public func reviewItems(appId: String, filter: ReviewItemFilter, cursor: Int64?, limit: Int, now: Date) async throws -> [ReviewItemRecord] {
        let order = filter.oldestFirst ? "id > ?2 ORDER BY id" : "id < ?2 ORDER BY id DESC"
        let start: Int64 = cursor ?? (filter.oldestFirst ? 0 : Int64.max)
        return try await query(
            "SELECT * FROM review_items WHERE app_id = ?1 AND \(ReviewQueueSQL.condition(filter, now: "?3")) AND \(order) LIMIT ?4",
            [.text(appId), SQLiteValues.bind(start), SQLiteValues.bind(now), .integer(max(limit, 0))]
        ).map(ReviewItemRecord.init(sqlite:))
    }

    public func reviewItem(appId: String, id: Int64) async throws -> ReviewItemRecord? {
        try await query("SELECT * FROM review_items WHERE app_id = ?1 AND id = ?2", [.text(appId), SQLiteValues.bind(id)]).first.map(ReviewItemRecord.init(sqlite:))
    }

    /// One `BEGIN IMMEDIATE` transaction: the item is read, checked and changed with no other writer between.
    public func changeReviewItem(_ change: ReviewItemChange) async throws -> ReviewItemChangeOutcome {
        try await transaction { connection in
            let rows = try await connection.query("SELECT * FROM review_items WHERE app_id = ?1 AND id = ?2", [.text(change.appId), SQLiteValues.bind(change.itemId)])
            guard let item = try rows.first.map(ReviewItemRecord.init(sqlite:)) else { return .notFound }
            guard item.yields(to: change.analyst, at: change.at) else {
                return item.status(at: change.at).isPending ? .claimed(item) : .closed(item)
            }
            let updated: [SQLiteRow]
            switch change.kind {
            case .claim:
                updated = try await connection.query(
                    "UPDATE review_items SET status = 'claimed', claimed_by = ?3, claimed_at = ?4 WHERE app_id = ?1 AND id = ?2 RETURNING *",
                    [.text(change.appId), SQLiteValues.bind(change.itemId), .text(change.analyst), SQLiteValues.bind(change.at)]
                )
            case .decide(let decision, let note, let followUps):
                updated = try await connection.query(
                    """
                    UPDATE review_items SET status = ?3, decided_by = ?4, decided_at = ?5, note = ?6, follow_ups = ?7
                    WHERE app_id = ?1 AND id = ?2 RETURNING *
                    """,
                    [.text(change.appId), SQLiteValues.bind(change.itemId), .text(decision.status.rawValue), .text(change.analyst), SQLiteValues.bind(change.at),
                     .text(note), .text(followUps)]
                )
                if let label = change.label(of: item) { _ = try await Self.write(label, on: connection) }
            }
            guard let changed = try updated.first.map(ReviewItemRecord.init(sqlite:)) else { return .notFound }
            return .changed(changed)
        }
    }

    public func recordReviewFollowUps(appId: String, id: Int64, followUps: String) async throws {
        _ = try await query("UPDATE review_items SET follow_ups = ?3 WHERE app_id = ?1 AND id = ?2", [.text(appId), SQLiteValues.bind(id), .text(followUps)])
    }

    public func purgeReviewItems(closedBefore instant: Date) async throws -> Int {
        try await transaction { connection in
            _ = try await connection.query(ReviewQueueSQL.sweep(now: "?1"), [SQLiteValues.bind(instant)])
            return try await connection.query(
                "DELETE FROM review_items WHERE status NOT IN ('open', 'claimed') AND coalesce(decided_at, expires_at) < ?1 RETURNING 1",
                [SQLiteValues.bind(instant)]
            ).count
        }
    }
}

extension ReviewItemRecord {
    init(sqlite row: SQLiteRow) throws {
        let read = SQLiteRowReader(row: row, table: "review_items")
        self.init(
            id: try read.integer("id"), appId: try read.text("app_id"), subjectKind: try read.enumeration("subject_kind", as: LabelSubjectKind.self),
            subject: try read.text("subject"), keyId: try read.optionalText("key_id"), userHash: try read.optionalText("user_hash"),
            deviceHash: try read.optionalText("device_hash"), endpoint: try read.enumeration("endpoint", as: Endpoint.self),
            action: try read.optionalText("action"), score: try read.real("score"), fired: try read.text("fired"),
            ruleSetVersion: try read.text("rule_set_version"), firstRequestId: try read.optionalText("first_request_id"),
            lastRequestId: try read.optionalText("last_request_id"), verdicts: Int(try read.integer("verdicts")), openedAt: try read.date("opened_at"),
            lastVerdictAt: try read.date("last_verdict_at"), expiresAt: try read.date("expires_at"),
            storedStatus: try read.enumeration("status", as: ReviewItemStatus.self), claimedBy: try read.optionalText("claimed_by"),
            claimedAt: try read.optionalDate("claimed_at"), decidedBy: try read.optionalText("decided_by"), decidedAt: try read.optionalDate("decided_at"),
            note: try read.text("note"), followUps: try read.text("follow_ups")
        )
    }
}
