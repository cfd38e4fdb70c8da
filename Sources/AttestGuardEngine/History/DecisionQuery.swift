public import Foundation

/// A search of the decision log: the decisions about one key, user or device of an app, decided in `[from, to)`,
/// newest first, a page at a time. What is left out takes the defaults of ``HistoryService``.
public struct DecisionQuery: Sendable, Hashable {
    /// Who the decisions are about. A user or device is looked up by its keyed hash, made here: the identifier
    /// itself is never stored, logged or echoed.
    public enum Subject: Sendable, Hashable {
        case key(KeyId)
        case user(Identifier)
        case device(Identifier)
    }

    public var appId: String
    public var subject: Subject
    /// The start of the range (inclusive); a day before `to` when `nil`.
    public var from: Date?
    /// The end of the range (exclusive); now when `nil`.
    public var to: Date?
    /// Decisions per page; ``HistoryService/defaultLimit`` when `nil`.
    public var limit: Int?
    /// Where the previous page ended (its ``DecisionPage/next``); `nil` for the first page.
    public var cursor: DecisionCursor?

    public init(appId: String, subject: Subject, from: Date? = nil, to: Date? = nil, limit: Int? = nil, cursor: DecisionCursor? = nil) {
        self.appId = appId
        self.subject = subject
        self.from = from
        self.to = to
        self.limit = limit
        self.cursor = cursor
    }
}
