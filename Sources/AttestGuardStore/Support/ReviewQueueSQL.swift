public import AttestVocabulary
/// The review queue's SQL that SQLite and PostgreSQL share (placeholders differ: each passes its own).
public enum ReviewQueueSQL {
    /// Openings in the order a transaction writes them: by subject, so that two processes folding the same subjects
    /// take their rows' locks in one order and never deadlock.
    public static func writingOrder(_ openings: [ReviewOpening]) -> [ReviewOpening] {
        openings.sorted { $0.identity.utf8.lexicographicallyPrecedes($1.identity.utf8) }
    }

    /// Marks pending items past their expiry (the placeholder `now`) expired.
    public static func sweep(now: String) -> String {
        "UPDATE review_items SET status = 'expired' WHERE status IN ('open', 'claimed') AND expires_at <= \(now)"
    }

    /// The items `filter` admits, their expiry compared with `now` (a placeholder).
    public static func condition(_ filter: ReviewItemFilter, now: String) -> String {
        let pending = "status IN ('open', 'claimed') AND expires_at > \(now)"
        switch filter {
        case .pending: return pending
        case .open: return "status = 'open' AND expires_at > \(now)"
        case .claimed: return "status = 'claimed' AND expires_at > \(now)"
        case .decided: return "status IN ('approved', 'rejected')"
        case .approved: return "status = 'approved'"
        case .rejected: return "status = 'rejected'"
        case .expired: return "(status = 'expired' OR (status IN ('open', 'claimed') AND expires_at <= \(now)))"
        case .all: return "TRUE"
        }
    }

    /// The columns an opening inserts, in the order of its values.
    public static let openingColumns = """
        app_id, subject_kind, subject, key_id, user_hash, device_hash, endpoint, action, score, fired, rule_set_version,
        first_request_id, last_request_id, verdicts, opened_at, last_verdict_at, expires_at, status
        """

    /// What an opening does to the pending item about its subject: the later verdict's facts win (an opening
    /// another process writes late never takes the item back), the counts add up, the first request and the expiry
    /// stay. `greatest` is the dialect's two-argument maximum (`greatest`, `max`).
    public static func fold(greatest: String) -> String {
        let later = "excluded.last_verdict_at >= review_items.last_verdict_at"
        return """
        ON CONFLICT (app_id, subject_kind, subject) WHERE status IN ('open', 'claimed') DO UPDATE SET
            key_id = coalesce(review_items.key_id, excluded.key_id),
            user_hash = coalesce(review_items.user_hash, excluded.user_hash),
            device_hash = coalesce(review_items.device_hash, excluded.device_hash),
            endpoint = CASE WHEN \(later) THEN excluded.endpoint ELSE review_items.endpoint END,
            action = CASE WHEN \(later) THEN excluded.action ELSE review_items.action END,
            score = CASE WHEN \(later) THEN excluded.score ELSE review_items.score END,
            fired = CASE WHEN \(later) THEN excluded.fired ELSE review_items.fired END,
            rule_set_version = CASE WHEN \(later) THEN excluded.rule_set_version ELSE review_items.rule_set_version END,
            first_request_id = coalesce(review_items.first_request_id, excluded.first_request_id),
            last_request_id = CASE WHEN \(later) THEN coalesce(excluded.last_request_id, review_items.last_request_id)
                ELSE coalesce(review_items.last_request_id, excluded.last_request_id) END,
            verdicts = review_items.verdicts + excluded.verdicts,
            last_verdict_at = \(greatest)(review_items.last_verdict_at, excluded.last_verdict_at)
        """
    }
}
