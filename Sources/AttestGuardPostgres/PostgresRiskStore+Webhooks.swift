public import AttestVocabulary
public import Foundation
import PostgresNIO
public import AttestGuardStore

extension PostgresRiskStore {
    /// One transaction, one insert per draft in order: the outbox ids follow the order the events were published in.
    public func enqueueWebhookEvents(_ drafts: [WebhookEventDraft]) async throws {
        guard !drafts.isEmpty else { return }
        let logger = self.logger
        try await transaction { connection in
            for draft in drafts {
                try await connection.query(
                    """
                    INSERT INTO webhook_events (event_id, webhook, app_id, subject, type, payload, created_at, retry_since, status, next_attempt_at)
                    VALUES (\(draft.eventId), \(draft.webhook), \(draft.appId), \(draft.subject), \(draft.type.rawValue), \(draft.payload),
                        \(draft.createdAt), \(draft.createdAt), 'pending', \(draft.createdAt))
                    ON CONFLICT (event_id, webhook) DO NOTHING
                    """,
                    logger: logger
                )
            }
        }
    }

    public func claimWebhookEvents(now: Date, leaseUntil: Date, token: String, limit: Int) async throws -> [WebhookEventRecord] {
        var binds = PostgresBindings()
        binds.append(now)
        binds.append(Int64(max(limit, 0)))
        binds.append(token)
        binds.append(leaseUntil)
        let sql = WebhookOutboxSQL.claim(now: "$1::timestamptz", limit: "$2", token: "$3", until: "$4")
        return try await rows(PostgresQuery(unsafeSQL: sql, binds: binds)).map(WebhookEventRecord.init(postgres:)).sorted { $0.id < $1.id }
    }

    public func finishWebhookAttempt(_ attempt: WebhookAttempt) async throws -> Bool {
        let logger = self.logger
        return try await transaction { connection in
            try await connection.query(
                """
                INSERT INTO webhook_attempts (\(unescaped: WebhookOutboxSQL.attemptColumns))
                VALUES (\(attempt.eventRow), \(Int32(clamping: attempt.attempt)), \(attempt.outcome.rawValue), \(attempt.attemptedAt),
                    \(Int32(clamping: attempt.durationMilliseconds)), \(attempt.statusCode.map { Int32(clamping: $0) }), \(attempt.error), \(attempt.process))
                """,
                logger: logger
            )
            let status = WebhookOutboxSQL.status(after: attempt.outcome)
            var binds = PostgresBindings()
            binds.append(attempt.eventRow)
            binds.append(attempt.leaseToken)
            binds.append(status.rawValue)
            binds.append(attempt.nextAttemptAt)
            binds.append(status == .pending ? nil : attempt.attemptedAt)
            binds.append(attempt.statusCode.map { Int32(clamping: $0) })
            binds.append(attempt.error)
            let sql = WebhookOutboxSQL.finish(
                row: "$1", token: "$2", status: "$3", next: "$4::timestamptz", finished: "$5::timestamptz", code: "$6::integer", error: "$7"
            )
            return try await !connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger).collect().isEmpty
        }
    }

    public func webhookEvents(filter: WebhookEventFilter, cursor: Int64?, limit: Int) async throws -> [WebhookEventRecord] {
        try await rows(
            """
            SELECT * FROM webhook_events
            WHERE id < \(cursor ?? Int64.max) AND (\(filter.webhook)::text IS NULL OR webhook = \(filter.webhook))
              AND (\(filter.status?.rawValue)::text IS NULL OR status = \(filter.status?.rawValue))
              AND (\(filter.appId)::text IS NULL OR app_id = \(filter.appId))
            ORDER BY id DESC LIMIT \(Int64(max(limit, 0)))
            """
        ).map(WebhookEventRecord.init(postgres:))
    }

    public func webhookEvent(id: Int64) async throws -> WebhookEventRecord? {
        try await rows("SELECT * FROM webhook_events WHERE id = \(id)").first.map(WebhookEventRecord.init(postgres:))
    }

    public func webhookAttempts(eventRow: Int64) async throws -> [WebhookAttemptRecord] {
        try await rows("SELECT * FROM webhook_attempts WHERE event_row = \(eventRow) ORDER BY id").map { row in
            let read = PostgresRowReader(row, table: "webhook_attempts")
            return WebhookAttemptRecord(
                attempt: Int(try read("attempt", as: Int32.self)), outcome: try read.enumeration("outcome", as: WebhookAttemptOutcome.self),
                attemptedAt: try read("attempted_at"), durationMilliseconds: Int(try read("duration_ms", as: Int32.self)),
                statusCode: try read("status_code", as: Int32?.self).map(Int.init), error: try read("error"), process: try read("process")
            )
        }
    }

    public func redeliverWebhookEvent(id: Int64, now: Date) async throws -> WebhookEventRecord? {
        var binds = PostgresBindings()
        binds.append(id)
        binds.append(now)
        let sql = WebhookOutboxSQL.redeliver(row: "$1", now: "$2::timestamptz")
        if let changed = try await rows(PostgresQuery(unsafeSQL: sql, binds: binds)).first {
            return try WebhookEventRecord(postgres: changed)
        }
        return try await webhookEvent(id: id)
    }

    public func webhookBacklog() async throws -> [WebhookBacklog] {
        try await rows(PostgresQuery(unsafeSQL: WebhookOutboxSQL.backlog)).map { row in
            let read = PostgresRowReader(row, table: "webhook_events")
            return WebhookBacklog(webhook: try read("webhook"), pending: Int(try read("pending", as: Int64.self)), oldestCreatedAt: try read("oldest"))
        }
    }

    public func purgeWebhookEvents(finishedBefore instant: Date) async throws -> Int {
        let logger = self.logger
        return try await transaction { connection in
            var binds = PostgresBindings()
            binds.append(instant)
            try await connection.query(PostgresQuery(unsafeSQL: WebhookOutboxSQL.purgeAttempts(before: "$1::timestamptz"), binds: binds), logger: logger)
            return try await connection.query(
                PostgresQuery(unsafeSQL: WebhookOutboxSQL.purgeEvents(before: "$1::timestamptz"), binds: binds), logger: logger
            ).collect().count
        }
    }
}

extension WebhookEventRecord {
    init(postgres row: PostgresRow) throws {
        let read = PostgresRowReader(row, table: "webhook_events")
        self.init(
            id: try read("id"), eventId: try read("event_id"), webhook: try read("webhook"), appId: try read("app_id"), subject: try read("subject"),
            type: try read.enumeration("type", as: WebhookEventType.self), payload: try read("payload"), createdAt: try read("created_at"),
            retrySince: try read("retry_since"), status: try read.enumeration("status", as: WebhookDeliveryStatus.self),
            attempts: Int(try read("attempts", as: Int32.self)), nextAttemptAt: try read("next_attempt_at"), leaseToken: try read("lease_token"),
            leaseUntil: try read("lease_until"), finishedAt: try read("finished_at"), lastStatus: try read("last_status", as: Int32?.self).map(Int.init),
            lastError: try read("last_error")
        )
    }
}
