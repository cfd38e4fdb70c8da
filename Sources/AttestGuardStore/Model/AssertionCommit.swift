import Foundation

/// A cryptographically verified assertion, ready to be committed: one transaction consumes its challenge and
/// advances the key's counter, or changes nothing.
public struct AssertionCommit: Sendable, Equatable {
    public var claim: ChallengeClaim
    /// The assertion's counter; the key's stored counter must be lower.
    public var counter: Int64
    /// The request the assertion authorised (JSON), kept with the consumed challenge for the rule engine.
    public var requestContext: String?

    public init(claim: ChallengeClaim, counter: Int64, requestContext: String?) {
        self.claim = claim
        self.counter = counter
        self.requestContext = requestContext
    }

    /// The order a batch commits its assertions in, on both stores: by key id, then counter, then arrival (`left`,
    /// `right`: the two assertions' places in the batch). A key's rising counters sent at once thus all commit, and
    /// concurrent batches that share keys take their locks in one order.
    package static func precedesInBatch(_ a: AssertionCommit, _ b: AssertionCommit, arrival left: Int, _ right: Int) -> Bool {
        if a.claim.keyId != b.claim.keyId { return a.claim.keyId.lexicographicallyPrecedes(b.claim.keyId) }
        return a.counter != b.counter ? a.counter < b.counter : left < right
    }
}

/// What committing an assertion did.
public enum AssertionCommitOutcome: Sendable, Equatable {
    /// The challenge is consumed and the counter advanced from `previousCounter`.
    case committed(previousCounter: Int64)
    case rejected(StoreRejection)

    /// Whether the assertion was committed.
    public var isCommitted: Bool {
        if case .committed = self { true } else { false }
    }
}
