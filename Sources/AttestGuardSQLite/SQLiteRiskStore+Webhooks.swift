import AttestVocabulary
public import Foundation
import SQLiteNIO
public import AttestGuardStore

extension SQLiteRiskStore {
    /// One `BEGIN IMMEDIATE` transaction, one insert per draft in order: a draft is parked when a pending event of its
    /// subject (an earlier draft of this write included) is in the outbox.
    public func enqueueWebhookEvents(_ drafts: [WebhookEventDraft]) async throws {
        guard !drafts.isEmpty else { return }
        try await transaction { connection in
            for draft in drafts {
                _ = try await connection.query(
                    """
                    INSERT INTO webhook_events (event_id, webhook, app_id, subject, type, payload, created_at, retry_since, status, next_attempt_at)
                    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7, 'pending', CASE WHEN \(WebhookOutboxSQL.hasPending(webhook: "?2", subject: "?4")) THEN ?8 ELSE ?7 END)
                    ON CONFLICT (event_id, webhook) DO NOTHING
                    """,
                    [.text(draft.eventId), .text(draft.webhook), SQLiteValues.bind(draft.appId), .text(draft.subject), .text(draft.type.rawValue),
                     .text(draft.payload), SQLiteValues.bind(draft.createdAt), SQLiteValues.bind(WebhookOutboxSQL.parkedUntil)]
                )
            }
        }
    }

    public func claimWebhookEvents(now: Date, leaseUntil: Date, token: String, limit: Int) async throws -> [WebhookEventRecord] {
        try await transaction { connection in
            try await connection.query(
                WebhookOutboxSQL.claim(now: "?1", limit: "?2", token: "?3", until: "?4"),
                [SQLiteValues.bind(now), .integer(max(limit, 0)), .text(token), SQLiteValues.bind(leaseUntil)]
            ).map(WebhookEventRecord.init(sqlite:)).sorted { $0.id < $1.id }
        }
    }

    public func finishWebhookAttempt(_ attempt: WebhookAttempt) async throws -> Bool {
        try await transaction { connection in
            _ = try await connection.query(
                "INSERT INTO webhook_attempts (\(WebhookOutboxSQL.attemptColumns)) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                [SQLiteValues.bind(attempt.eventRow), .integer(attempt.attempt), .text(attempt.outcome.rawValue), SQLiteValues.bind(attempt.attemptedAt),
                 .integer(attempt.durationMilliseconds), SQLiteValues.bind(attempt.statusCode.map(Int64.init)), .text(attempt.error), .text(attempt.process)]
            )
            let status = WebhookOutboxSQL.status(after: attempt.outcome)
            let recorded = try await !connection.query(
                WebhookOutboxSQL.finish(row: "?1", token: "?2", status: "?3", next: "?4", finished: "?5", code: "?6", error: "?7"),
                [SQLiteValues.bind(attempt.eventRow), .text(attempt.leaseToken), .text(status.rawValue), SQLiteValues.bind(attempt.nextAttemptAt),
                 SQLiteValues.bind(status == .pending ? nil : attempt.attemptedAt), SQLiteValues.bind(attempt.statusCode.map(Int64.init)), .text(attempt.error)]
            ).isEmpty
            if recorded, status != .pending {
                _ = try await connection.query(
                    WebhookOutboxSQL.release(row: "?1", at: "?2"), [SQLiteValues.bind(attempt.eventRow), SQLiteValues.bind(attempt.attemptedAt)]
                )
            }
            return recorded
        }
    }

    public func webhookEvents(filter: WebhookEventFilter, cursor: Int64?, limit: Int) async throws -> [WebhookEventRecord] {
        try await query(
            """
            SELECT * FROM webhook_events
            WHERE id < ?1 AND (?2 IS NULL OR webhook = ?2) AND (?3 IS NULL OR status = ?3) AND (?4 IS NULL OR app_id = ?4)
            ORDER BY id DESC LIMIT ?5
            """,
            [SQLiteValues.bind(cursor ?? Int64.max), SQLiteValues.bind(filter.webhook), SQLiteValues.bind(filter.status?.rawValue),
             SQLiteValues.bind(filter.appId), .integer(max(limit, 0))]
        ).map(WebhookEventRecord.init(sqlite:))
    }

    public func webhookEvent(id: Int64) async throws -> WebhookEventRecord? {
        try await query("SELECT * FROM webhook_events WHERE id = ?1", [SQLiteValues.bind(id)]).first.map(WebhookEventRecord.init(sqlite:))
    }

    public func webhookAttempts(eventRow: Int64) async throws -> [WebhookAttemptRecord] {
        try await query("SELECT * FROM webhook_attempts WHERE event_row = ?1 ORDER BY id", [SQLiteValues.bind(eventRow)]).map { row in
            let read = SQLiteRowReader(row: row, table: "webhook_attempts")
            return WebhookAttemptRecord(
                attempt: Int(try read.integer("attempt")), outcome: try read.enumeration("outcome", as: WebhookAttemptOutcome.self),
                attemptedAt: try read.date("attempted_at"), durationMilliseconds: Int(try read.integer("duration_ms")),
                statusCode: try read.optionalInteger("status_code").map(Int.init), error: try read.text("error"), process: try read.text("process")
            )
        }
    }

    public func redeliverWebhookEvent(id: Int64, now: Date) async throws -> WebhookEventRecord? {
        let changed = try await query(WebhookOutboxSQL.redeliver(row: "?1", now: "?2"), [SQLiteValues.bind(id), SQLiteValues.bind(now)])
        if let row = changed.first { return try WebhookEventRecord(sqlite: row) }
        return try await webhookEvent(id: id)
    }

    public func webhookBacklog() async throws -> [WebhookBacklog] {
        try await query(WebhookOutboxSQL.backlog).map { row in
            let read = SQLiteRowReader(row: row, table: "webhook_events")
            return WebhookBacklog(webhook: try read.text("webhook"), pending: Int(try read.integer("pending")), oldestCreatedAt: try read.date("oldest"))
        }
    }

    public func purgeWebhookEvents(finishedBefore instant: Date) async throws -> Int {
        try await transaction { connection in
            _ = try await connection.query(WebhookOutboxSQL.purgeAttempts(before: "?1"), [SQLiteValues.bind(instant)])
            return try await connection.query(WebhookOutboxSQL.purgeEvents(before: "?1"), [SQLiteValues.bind(instant)]).count
        }
    }
}

extension WebhookEventRecord {
    init(sqlite row: SQLiteRow) throws {
        let read = SQLiteRowReader(row: row, table: "webhook_events")
        self.init(
            id: try read.integer("id"), eventId: try read.text("event_id"), webhook: try read.text("webhook"), appId: try read.optionalText("app_id"),
            subject: try read.text("subject"), type: try read.enumeration("type", as: WebhookEventType.self), payload: try read.text("payload"),
            createdAt: try read.date("created_at"), retrySince: try read.date("retry_since"),
            status: try read.enumeration("status", as: WebhookDeliveryStatus.self), attempts: Int(try read.integer("attempts")),
            nextAttemptAt: try read.date("next_attempt_at"), leaseToken: try read.optionalText("lease_token"), leaseUntil: try read.optionalDate("lease_until"),
            finishedAt: try read.optionalDate("finished_at"), lastStatus: try read.optionalInteger("last_status").map(Int.init), lastError: try read.text("last_error")
        )
    }
}
