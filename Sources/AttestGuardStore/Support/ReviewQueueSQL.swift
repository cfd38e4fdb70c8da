public import AttestVocabulary
/// The review queue's SQL that SQLite and PostgreSQL share (placeholders differ: each passes its own).
public enum ReviewQueueSQL {
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
}
