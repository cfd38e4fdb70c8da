public import AttestGuardStore
public import AttestGuardWire
import Foundation

extension WebhookDeliveryBody {
    /// The outbox row as the delivery-log routes answer it; `attempts` adds the log.
    public init(_ record: WebhookEventRecord, attempts: [WebhookAttemptRecord]? = nil) {
        self.init(
            id: String(record.id), eventId: record.eventId, webhook: record.webhook, type: record.type.rawValue, appId: record.appId,
            subject: record.subject, status: record.status.rawValue, attempts: record.attempts, createdAt: record.createdAt,
            nextAttemptAt: record.status == .pending && record.nextAttemptAt < WebhookOutboxSQL.parkedUntil ? record.nextAttemptAt : nil, finishedAt: record.finishedAt, lastStatus: record.lastStatus,
            lastError: record.lastError, event: try? WireJSON.decoder().decode(WebhookEventBody.self, from: Data(record.payload.utf8)),
            log: attempts?.map { attempt in
                WebhookAttemptBody(
                    attempt: attempt.attempt, outcome: attempt.outcome.rawValue, attemptedAt: attempt.attemptedAt,
                    durationMilliseconds: attempt.durationMilliseconds, statusCode: attempt.statusCode, error: attempt.error, process: attempt.process
                )
            }
        )
    }
}
