public import Foundation

/// Where a page of a decision search ends: the last entry's decision instant and sequence. The next page starts
/// strictly before it, in (decidedAt, sequence) order, so entries decided at one instant are neither lost nor
/// repeated between pages.
public struct DecisionLogPosition: Sendable, Hashable {
    public var decidedAt: Date
    public var sequence: Int64

    public init(decidedAt: Date, sequence: Int64) {
        self.decidedAt = decidedAt
        self.sequence = sequence
    }

    /// The position of a logged entry.
    public init(_ entry: DecisionLogEntry) {
        self.init(decidedAt: entry.decidedAt, sequence: entry.sequence)
    }
}

/// The decisions about one subject of one app, decided in `[from, to)`, newest first, after a position, at most
/// `limit`. Bounds on the range and the limit are the caller's; the store applies what it is given.
public struct DecisionSearch: Sendable, Hashable {
    /// What a search looks a decision up by: the key id as logged (standard base64), or a keyed hash.
    public enum Subject: Sendable, Hashable {
        case key(String)
        case userHash(String)
        case deviceHash(String)
    }

    public var appId: String
    public var subject: Subject
    public var from: Date
    public var to: Date
    /// The previous page's last entry; `nil` for the first page.
    public var after: DecisionLogPosition?
    public var limit: Int

    public init(appId: String, subject: Subject, from: Date, to: Date, after: DecisionLogPosition? = nil, limit: Int) {
        self.appId = appId
        self.subject = subject
        self.from = from
        self.to = to
        self.after = after
        self.limit = limit
    }

    /// The column the subject is stored in (a fixed name, never input) and its value.
    package var column: (name: String, value: String) {
        switch subject {
        case .key(let keyId): ("key_id", keyId)
        case .userHash(let hash): ("user_hash", hash)
        case .deviceHash(let hash): ("device_hash", hash)
        }
    }

    /// Where the page starts: after the previous page, else at the end of the range.
    package var start: DecisionLogPosition {
        after ?? DecisionLogPosition(decidedAt: to, sequence: 0)
    }
}
