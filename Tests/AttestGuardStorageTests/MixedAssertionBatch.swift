import AttestGuardStore
import Testing

/// The batch both stores' group-commit tests commit: three keys (key 1 already at counter 7) and five assertions given
/// out of key order: key 2's counter 5, a stale counter 7 of key 1, key 2's counter 4, a replay of counter 4's
/// challenge with counter 6, and key 0's counter 1.
struct MixedAssertionBatch {
    var keys: [KeyRecord]
    /// Key 2's challenges: counter 4's (sent twice) and counter 5's.
    var first: NewChallenge
    var second: NewChallenge
    /// Key 1's challenge, sent with the counter it already holds.
    var stale: NewChallenge
    /// Key 0's challenge.
    var fresh: NewChallenge

    /// Registers the keys in `store`, commits key 1's counter 7 and issues the challenges.
    init(in store: any RiskStore) async throws {
        var keys: [KeyRecord] = []
        for index in 0..<3 { keys.append(try await StoreFixtures.register(StoreFixtures.key(deviceId: "batch-\(index)"), in: store)) }
        try #require(try await StoreFixtures.assert(keys[1], counter: 7, in: store).isCommitted)
        self.keys = keys
        first = try await StoreFixtures.issueChallenge(for: keys[2], in: store)
        second = try await StoreFixtures.issueChallenge(for: keys[2], in: store)
        stale = try await StoreFixtures.issueChallenge(for: keys[1], in: store)
        fresh = try await StoreFixtures.issueChallenge(for: keys[0], in: store)
    }

    /// The five assertions, in the order the batch is given them.
    var commits: [AssertionCommit] {
        [(keys[2], 5, second), (keys[1], 7, stale), (keys[2], 4, first), (keys[2], 6, first), (keys[0], 1, fresh)].map { key, counter, challenge in
            AssertionCommit(claim: StoreFixtures.claim(challenge, key: key), counter: Int64(counter), requestContext: #"{"method":"POST"}"#)
        }
    }
}
