import AttestVocabulary
public import Foundation
import PostgresNIO
public import AttestGuardStore

extension PostgresRiskStore {
    /// The most drafts one insert statement carries.
    static let webhookInsertChunk = 500

    /// One transaction: the advisory lock of every receiver and subject written (in one order, so that writers never
    /// deadlock), then the drafts in order, `webhookInsertChunk` a statement. A draft is parked when an earlier draft
    /// of its subject is in the same write or a pending event of it is in the outbox.
    public func enqueueWebhookEvents(_ drafts: [WebhookEventDraft]) async throws {
        guard !drafts.isEmpty else { return }
        let logger = self.logger
        var seen: Set<String> = []
        let follows = drafts.map { !seen.insert(WebhookOutboxSQL.lockKey(webhook: $0.webhook, subject: $0.subject)).inserted }
        let keys = seen.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        try await transaction { connection in
            _ = try await connection.query(
                """
                SELECT pg_advisory_xact_lock(hashtextextended(k, 0))
                FROM (SELECT k FROM unnest(\(keys)::text[]) WITH ORDINALITY AS t(k, n) ORDER BY n) AS ordered
                """,
                logger: logger
            ).collect()
            for start in stride(from: 0, to: drafts.count, by: Self.webhookInsertChunk) {
                let chunk = start..<min(start + Self.webhookInsertChunk, drafts.count)
                let part = drafts[chunk]
                var binds = PostgresBindings()
                binds.append(part.map(\.eventId))
                binds.append(part.map(\.webhook))
                binds.append(part.map { $0.appId ?? "" })
                binds.append(part.map(\.subject))
                binds.append(part.map(\.type.rawValue))
                binds.append(part.map(\.payload))
                binds.append(part.map(\.createdAt))
                binds.append(Array(follows[chunk]))
                binds.append(WebhookOutboxSQL.parkedUntil)
                let sql = """
                    INSERT INTO webhook_events (event_id, webhook, app_id, subject, type, payload, created_at, retry_since, status, next_attempt_at)
                    SELECT d.event_id, d.webhook, NULLIF(d.app_id, ''), d.subject, d.type, d.payload, d.created_at, d.created_at, 'pending',
                        CASE WHEN d.follows OR \(WebhookOutboxSQL.hasPending(webhook: "d.webhook", subject: "d.subject")) THEN $9::timestamptz
                             ELSE d.created_at END
                    FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[], $8::bool[])
                        WITH ORDINALITY AS d(event_id, webhook, app_id, subject, type, payload, created_at, follows, n)
                    ORDER BY d.n
                    ON CONFLICT (event_id, webhook) DO NOTHING
                    """
                try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger)
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
            // The subject's lock first: a writer that parks an event behind this one either committed before (and the
            // release below sees its event) or waits until this commits (and finds this one finished).
            _ = try await connection.query(
                """
                SELECT pg_advisory_xact_lock(hashtextextended(webhook || E'\\n' || subject, 0)) FROM webhook_events WHERE id = \(attempt.eventRow)
                """,
                logger: logger
            ).collect()
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
            let recorded = try await !connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger).collect().isEmpty
            if recorded, status != .pending {
                var release = PostgresBindings()
                release.append(attempt.eventRow)
                release.append(attempt.attemptedAt)
                try await connection.query(
                    PostgresQuery(unsafeSQL: WebhookOutboxSQL.release(row: "$1", at: "$2::timestamptz"), binds: release), logger: logger
                )
            }
            return recorded
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
