public import AttestVocabulary
public import Foundation
import PostgresNIO
public import AttestGuardStore

extension PostgresRiskStore {
    /// One transaction: the sweep, then one upsert per opening in ``ReviewQueueSQL/writingOrder(_:)`` (the recorder
    /// folds repeats first, and review verdicts of chosen actions are few, so a statement each costs less than building
    /// arrays for them).
    public func openReviewItems(_ openings: [ReviewOpening], now: Date) async throws {
        let logger = self.logger
        try await transaction { connection in
            try await connection.query(Self.sweep(now), logger: logger)
            for opening in ReviewQueueSQL.writingOrder(openings) {
                try await connection.query(
                    """
                    INSERT INTO review_items (\(unescaped: ReviewQueueSQL.openingColumns))
                    VALUES (\(opening.appId), \(opening.subjectKind.rawValue), \(opening.subject), \(opening.keyId), \(opening.userHash),
                        \(opening.deviceHash), \(opening.endpoint.rawValue), \(opening.action), \(opening.score), \(opening.fired),
                        \(opening.ruleSetVersion), \(opening.firstRequestId), \(opening.lastRequestId), \(Int64(opening.verdicts)),
                        \(opening.firstVerdictAt), \(opening.lastVerdictAt), \(opening.expiresAt), 'open')
                    \(unescaped: ReviewQueueSQL.fold(greatest: "greatest"))
                    """,
                    logger: logger
                )
            }
        }
    }

    public func reviewItems(appId: String, filter: ReviewItemFilter, cursor: Int64?, limit: Int, now: Date) async throws -> [ReviewItemRecord] {
        let start: Int64 = cursor ?? (filter.oldestFirst ? 0 : Int64.max)
        let order = filter.oldestFirst ? "ORDER BY id" : "ORDER BY id DESC"
        let after = filter.oldestFirst ? ">" : "<"
        return try await rows(
            """
            WITH asked AS (SELECT \(now)::timestamptz AS now_at)
            SELECT review_items.* FROM review_items, asked
            WHERE app_id = \(appId) AND id \(unescaped: after) \(start) AND \(unescaped: ReviewQueueSQL.condition(filter, now: "asked.now_at"))
            \(unescaped: order) LIMIT \(Int64(max(limit, 0)))
            """
        ).map(ReviewItemRecord.init(postgres:))
    }

    public func reviewItem(appId: String, id: Int64) async throws -> ReviewItemRecord? {
        try await rows("SELECT * FROM review_items WHERE app_id = \(appId) AND id = \(id)").first.map(ReviewItemRecord.init(postgres:))
    }

    /// One transaction: the item is read `FOR UPDATE`, so that a concurrent change waits and then sees this one.
    public func changeReviewItem(_ change: ReviewItemChange) async throws -> ReviewItemChangeOutcome {
        let logger = self.logger
        return try await transaction { connection in
            let rows = try await connection.query(
                "SELECT * FROM review_items WHERE app_id = \(change.appId) AND id = \(change.itemId) FOR UPDATE", logger: logger
            ).collect()
            guard let item = try rows.first.map(ReviewItemRecord.init(postgres:)) else { return .notFound }
            guard item.yields(to: change.analyst, at: change.at) else {
                return item.status(at: change.at).isPending ? .claimed(item) : .closed(item)
            }
            let updated: [PostgresRow]
            switch change.kind {
            case .claim:
                updated = try await connection.query(
                    """
                    UPDATE review_items SET status = 'claimed', claimed_by = \(change.analyst), claimed_at = \(change.at)
                    WHERE app_id = \(change.appId) AND id = \(change.itemId) RETURNING *
                    """,
                    logger: logger
                ).collect()
            case .decide(let decision, let note, let followUps):
                updated = try await connection.query(
                    """
                    UPDATE review_items SET status = \(decision.status.rawValue), decided_by = \(change.analyst), decided_at = \(change.at),
                        note = \(note), follow_ups = \(followUps)
                    WHERE app_id = \(change.appId) AND id = \(change.itemId) RETURNING *
                    """,
                    logger: logger
                ).collect()
                if let label = change.label(of: item) { _ = try await connection.query(Self.labelUpsert([label]), logger: logger).collect() }
            }
            guard let changed = try updated.first.map(ReviewItemRecord.init(postgres:)) else { return .notFound }
            return .changed(changed)
        }
    }

    public func recordReviewFollowUps(appId: String, id: Int64, followUps: String) async throws {
        _ = try await rows("UPDATE review_items SET follow_ups = \(followUps) WHERE app_id = \(appId) AND id = \(id)")
    }

    public func purgeReviewItems(closedBefore instant: Date) async throws -> Int {
        let logger = self.logger
        return try await transaction { connection in
            try await connection.query(Self.sweep(instant), logger: logger)
            return try await connection.query(
                """
                DELETE FROM review_items WHERE status NOT IN ('open', 'claimed') AND coalesce(decided_at, expires_at) < \(instant) RETURNING 1
                """,
                logger: logger
            ).collect().count
        }
    }

    private static func sweep(_ now: Date) -> PostgresQuery {
        var binds = PostgresBindings()
        binds.append(now)
        return PostgresQuery(unsafeSQL: ReviewQueueSQL.sweep(now: "$1"), binds: binds)
    }
}

extension ReviewItemRecord {
    init(postgres row: PostgresRow) throws {
        let read = PostgresRowReader(row, table: "review_items")
        self.init(
            id: try read("id"), appId: try read("app_id"), subjectKind: try read.enumeration("subject_kind", as: LabelSubjectKind.self),
            subject: try read("subject"), keyId: try read("key_id"), userHash: try read("user_hash"), deviceHash: try read("device_hash"),
            endpoint: try read.enumeration("endpoint", as: Endpoint.self), action: try read("action"), score: try read("score"),
            fired: try read("fired"), ruleSetVersion: try read("rule_set_version"), firstRequestId: try read("first_request_id"),
            lastRequestId: try read("last_request_id"), verdicts: Int(try read("verdicts", as: Int64.self)), openedAt: try read("opened_at"),
            lastVerdictAt: try read("last_verdict_at"), expiresAt: try read("expires_at"),
            storedStatus: try read.enumeration("status", as: ReviewItemStatus.self), claimedBy: try read("claimed_by"),
            claimedAt: try read("claimed_at"), decidedBy: try read("decided_by"), decidedAt: try read("decided_at"), note: try read("note"),
            followUps: try read("follow_ups")
        )
    }
}
