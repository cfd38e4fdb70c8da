public import Foundation

/// An entry as an analyst submits it (the API's JSON or CSV, the CLI), before it is checked against its list's
/// kind: the text, and at most one of an expiry instant and a time to live.
public struct ManagedListEntrySubmission: Sendable, Hashable {
    public var value: String
    public var expiresAt: Date?
    /// Seconds from the change to the entry's expiry.
    public var ttlSeconds: Int?
    public var note: String?
    /// Where the entry came from, for an error's message ("entry 3", "line 7").
    public var position: String

    public init(value: String, expiresAt: Date? = nil, ttlSeconds: Int? = nil, note: String? = nil, position: String) {
        self.value = value
        self.expiresAt = expiresAt
        self.ttlSeconds = ttlSeconds
        self.note = note
        self.position = position
    }
}

/// A change of a run-time list's entries as submitted.
public enum ManagedListChangeSubmission: Sendable, Hashable {
    case replace([ManagedListEntrySubmission])
    case add([ManagedListEntrySubmission])
    /// The values to take off, in any form the list's kind takes (`203.0.113.7/24` removes `203.0.113.0/24`).
    case remove([ManagedListEntrySubmission])
}
