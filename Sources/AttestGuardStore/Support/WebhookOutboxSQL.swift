public import AttestVocabulary
public import Foundation
/// The webhook outbox's SQL that SQLite and PostgreSQL share (placeholders differ: each passes its own).
///
/// Only the first pending event of a receiver and subject may be sent. An event written behind a pending one of its
/// subject is parked (`next_attempt_at` at ``parkedUntil``), so that a claim reads the due events through the
/// `(next_attempt_at, id)` index, not the whole backlog; the attempt that finishes the first releases the next
/// (``release(row:at:)``). On PostgreSQL the writing and the finishing of a subject's events take the subject's
/// advisory lock (``lockKey``), so that a writer never parks an event behind one whose finish it did not see; the
/// claim's own check of the first pending id keeps the order whatever the parking says.
public enum WebhookOutboxSQL {
    /// The `next_attempt_at` of an event waiting behind an earlier one of its subject: the year 3000.
    public static let parkedUntil = Date(timeIntervalSince1970: 32_503_680_000)

    /// The text whose hash is a receiver's and subject's advisory lock.
    public static func lockKey(webhook: String, subject: String) -> String { webhook + "\n" + subject }

    /// Whether an earlier pending event of `webhook` and `subject` is in the outbox: placeholders for both.
    public static func hasPending(webhook: String, subject: String) -> String {
        "EXISTS (SELECT 1 FROM webhook_events h WHERE h.status = 'pending' AND h.webhook = \(webhook) AND h.subject = \(subject))"
    }

    /// Makes the first pending event of the row's receiver and subject due at the instant, if it was later (parked):
    /// placeholders for the finished row and the instant.
    public static func release(row: String, at instant: String) -> String {
        """
        UPDATE webhook_events SET next_attempt_at = \(instant)
        WHERE next_attempt_at > \(instant) AND id = (
            SELECT min(n.id) FROM webhook_events n, webhook_events f
            WHERE f.id = \(row) AND n.status = 'pending' AND n.webhook = f.webhook AND n.subject = f.subject
        )
        """
    }

    /// Leases the due events that head their receiver's and subject's pending events, oldest first: placeholders for
    /// the instant, the most events, the claim's token and the lease's end. The conditions on the row itself are
    /// repeated outside the subquery, so that PostgreSQL checks them again on a row another claim changed meanwhile.
    public static func claim(now: String, limit: String, token: String, until: String) -> String {
        """
        UPDATE webhook_events SET lease_token = \(token), lease_until = \(until), attempts = attempts + 1
        WHERE status = 'pending' AND next_attempt_at <= \(now) AND (lease_until IS NULL OR lease_until <= \(now)) AND id IN (
            SELECT e.id FROM webhook_events e
            WHERE e.status = 'pending' AND e.next_attempt_at <= \(now) AND (e.lease_until IS NULL OR e.lease_until <= \(now))
              AND e.id = (SELECT min(h.id) FROM webhook_events h WHERE h.status = 'pending' AND h.webhook = e.webhook AND h.subject = e.subject)
            ORDER BY e.next_attempt_at, e.id LIMIT \(limit)
        )
        RETURNING *
        """
    }

    /// Records an attempt's outcome on its event while the claim (token) still holds it, ending the lease:
    /// placeholders for the row, the token, the status, the next attempt (kept when null), the finish (null while
    /// pending), the HTTP status and the error.
    public static func finish(row: String, token: String, status: String, next: String, finished: String, code: String, error: String) -> String {
        """
        UPDATE webhook_events SET status = \(status), next_attempt_at = coalesce(\(next), next_attempt_at), finished_at = \(finished),
            lease_token = NULL, lease_until = NULL, last_status = \(code), last_error = \(error)
        WHERE id = \(row) AND lease_token = \(token) AND status = 'pending'
        RETURNING id
        """
    }

    /// The columns an attempt inserts into `webhook_attempts`, in the order of its values.
    public static let attemptColumns = "event_row, attempt, outcome, attempted_at, duration_ms, status_code, error, process"

    /// Makes a finished event pending again, due and its retry window starting at the instant: placeholders for the
    /// row and the instant.
    public static func redeliver(row: String, now: String) -> String {
        """
        UPDATE webhook_events SET status = 'pending', next_attempt_at = \(now), retry_since = \(now), finished_at = NULL,
            lease_token = NULL, lease_until = NULL
        WHERE id = \(row) AND status <> 'pending'
        RETURNING *
        """
    }

    /// Each receiver's pending events and the oldest's writing.
    public static let backlog = "SELECT webhook, count(*) AS pending, min(created_at) AS oldest FROM webhook_events WHERE status = 'pending' GROUP BY webhook ORDER BY webhook"

    /// The delivery logs, then the events, finished before the instant (a placeholder).
    public static func purgeAttempts(before instant: String) -> String {
        "DELETE FROM webhook_attempts WHERE event_row IN (SELECT id FROM webhook_events WHERE status <> 'pending' AND finished_at < \(instant))"
    }

    public static func purgeEvents(before instant: String) -> String {
        "DELETE FROM webhook_events WHERE status <> 'pending' AND finished_at < \(instant) RETURNING 1"
    }

    /// The status a finished attempt leaves its event in.
    public static func status(after outcome: WebhookAttemptOutcome) -> WebhookDeliveryStatus {
        switch outcome {
        case .delivered: .delivered
        case .retry: .pending
        case .failed: .failed
        }
    }
}
