import Foundation
import PostgresNIO

/// `commitAssertion` as one named prepared statement (parsed and planned once per connection), one round trip:
/// `consumed` consumes the challenge when it may be (unused, unexpired, this app and purpose, this user and key where
/// bound); only then `advanced` locks the key and advances its counter when the key is active and its counter lower,
/// reading the counter it had under that lock. Both or neither: when the challenge was consumed and the counter could
/// not advance, `attestguard_refuse_assertion_counter()` (schema 16) raises SQLSTATE ``refusedCounterState``, which
/// rolls the statement back, and the store reads that error as the counter's refusal. Rows are locked challenge
/// first, then key, as every other writer does; a writer that held a row lock is waited for and the conditions are
/// checked again on the row it committed (READ COMMITTED), so 64 racers still have one winner.
///
/// It answers the step that failed (`challenge`; `counter` comes as the error), or the key's previous counter.
struct CommitAssertionStatement: PostgresPreparedStatement {
    typealias Row = Answer

    /// The statement's answer.
    struct Answer: Sendable {
        var failedStep: RollbackSignal.Step?
        var previousCounter: Int64?

        /// The answer of a statement that PostgreSQL rolled back with ``refusedCounterState``.
        static let refusedCounter = Answer(failedStep: .counter, previousCounter: nil)
    }

    /// The SQLSTATE of `attestguard_refuse_assertion_counter()`.
    static let refusedCounterState = "AGC01"

    static let name = "attestguard_commit_assertion_v2"

    static let sql = "WITH \(commonTableExpressions)\nSELECT \(answerColumns)"

    /// `consumed` and `advanced`, without the leading `WITH`; parameters `$1`-`$9`.
    static let commonTableExpressions = """
        consumed AS (
            UPDATE challenges
            SET consumed_at = $6, consumed_key_id = $5, consumed_counter = $8, consumed_request = $9::jsonb
            WHERE id = $1 AND app_id = $2 AND purpose = $3 AND consumed_at IS NULL AND expires_at > $7
              AND (user_id IS NULL OR user_id = $4) AND (key_id IS NULL OR key_id = $5)
            RETURNING 1
        ), advanced AS (
            UPDATE app_keys AS a SET counter = $8, last_assertion_at = $6
            FROM (
                SELECT counter FROM app_keys WHERE app_id = $2 AND key_id = $5 AND EXISTS (SELECT FROM consumed) FOR UPDATE
            ) AS locked
            WHERE a.app_id = $2 AND a.key_id = $5 AND a.status = 'active' AND a.counter < $8
            RETURNING locked.counter AS previous_counter
        )
        """

    /// `failed_step` and `previous_counter`.
    static let answerColumns = """
        CASE WHEN NOT EXISTS (SELECT FROM consumed) THEN 'challenge'
                    WHEN NOT EXISTS (SELECT FROM advanced) THEN attestguard_refuse_assertion_counter() END AS failed_step,
               (SELECT previous_counter FROM advanced) AS previous_counter
        """

    static let bindingDataTypes: [PostgresDataType] = [.bytea, .text, .text, .text, .bytea, .timestamptz, .timestamptz, .int8, .text]

    var commit: AssertionCommit

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 9)
        try appendBindings(to: &bindings)
        return bindings
    }

    /// Appends the 9 parameters, in order, to `bindings`.
    func appendBindings(to bindings: inout PostgresBindings) throws {
        let claim = commit.claim
        try bindings.append(claim.challengeId)
        bindings.append(claim.appId)
        bindings.append(claim.purpose.rawValue)
        bindings.append(claim.userId)
        try bindings.append(claim.keyId)
        bindings.append(claim.at)
        bindings.append(claim.expiryThreshold)
        bindings.append(commit.counter)
        bindings.append(commit.requestContext)
    }

    func decodeRow(_ row: PostgresRow) throws -> Answer {
        try Self.answer(row)
    }

    /// The statement's answer in `row` (columns `failed_step`, `previous_counter`).
    static func answer(_ row: PostgresRow) throws -> Answer {
        let read = PostgresRowReader(row, table: "assertion commit")
        let step: RollbackSignal.Step? = switch try read("failed_step", as: String?.self) {
        case nil: nil
        case "challenge": .challenge
        case "counter": .counter
        case let other?: throw StoreError(.corruptRow, "the assertion commit answered the unknown step \(other)")
        }
        return Answer(failedStep: step, previousCounter: try read("previous_counter", as: Int64?.self))
    }
}
