import Foundation
import NIOCore
import PostgresNIO
import AttestGuardStore

/// A batch of accepted assertions and their verdicts' facts in one statement: for each entry, in order, a call of
/// `attestguard_commit_assertion` (schema 15) and the scoring-facts query (``ScoringFactsSQL``) over the entry's
/// inputs. One prepared statement serves any batch size: the entries come as parallel arrays, their facts' inputs as
/// ``BatchedFactsParameters``.
///
/// Every entry keeps its own outcome: a refusal is the function's answer (`failed_step`), not an error, so it never
/// takes the others down. The entries run in the order given, each call seeing the commits of the calls before it
/// (the function is volatile); the facts are read from the statement's snapshot, taken before any call ran, and the
/// caller advances them by what its own commit changed (``ScoringFacts/committing(_:)``). The caller orders the
/// entries so that batches lock keys in one order (``PostgresRiskStore``).
struct CommitAssertionsStatement: PostgresPreparedStatement, UnnamedStatementText {
    /// One assertion to commit and the facts its verdict reads.
    struct Entry: Sendable {
        var commit: AssertionCommit
        var query: ScoringFactsQuery
    }

    /// The function's answer for one entry: the step that failed, or the key's previous counter.
    struct Answer: Sendable {
        var failedStep: RollbackSignal.Step?
        var previousCounter: Int64?
    }

    /// One entry's answer: its position in ``entries`` (from 0), the function's answer and the facts.
    typealias Row = (index: Int, answer: Answer, facts: ScoringFacts)

    static let name = "attestguard_commit_assertions_v3"

    static let sql = text(keepingPlan: true)
    static let unnamedSQL = text(keepingPlan: false)

    private static func text(keepingPlan: Bool) -> String {
        """
        SELECT e.i AS batch_index, c.failed_step, c.previous_counter, f.*
        FROM (
            SELECT $1::bytea[] AS p1, $2::text[] AS p2, $3::text[] AS p3, $4::text[] AS p4, $5::bytea[] AS p5, $6::timestamptz[] AS p6,
                   $7::timestamptz[] AS p7, $8::int8[] AS p8, $9::bool[] AS p9, $10::text[] AS p10, \(facts.parameterColumns)
            \(BatchedFactsParameters.planBarrier(keepingPlan: keepingPlan))
        ) AS p
        CROSS JOIN LATERAL unnest(p.p1, p.p2, p.p3, p.p4, p.p5, p.p6, p.p7, p.p8, p.p9, p.p10, \(facts.scalarArrays)) WITH ORDINALITY AS e(
            challenge, app_id, purpose, user_id, key_id, at, expiry_threshold, counter, has_request, request,
            \(BatchedFactsParameters.scalarColumns), i
        )
        CROSS JOIN LATERAL attestguard_commit_assertion(
            e.challenge, e.app_id, e.purpose, e.user_id, e.key_id, e.at, e.expiry_threshold, e.counter,
            CASE WHEN e.has_request THEN e.request::jsonb END
        ) AS c
        CROSS JOIN LATERAL (\(facts.facts)) AS f
        """
    }

    /// The facts' parameters, after the commit's 10. All are read through the parameter row `p`
    /// (``BatchedFactsParameters/parameterColumns`` says why).
    private static let facts = BatchedFactsParameters(first: 11)

    static let bindingDataTypes: [PostgresDataType] = [
        .byteaArray, .textArray, .textArray, .textArray, .byteaArray, .timestamptzArray, .timestamptzArray, .int8Array,
        .boolArray, .textArray,
    ] + BatchedFactsParameters.dataTypes

    /// The batch, in the order the statement runs it.
    var entries: [Entry]

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: Self.bindingDataTypes.count)
        let commits = entries.map(\.commit)
        let claims = commits.map(\.claim)
        bindings.append(claims.map { ByteBuffer(bytes: $0.challengeId) })
        bindings.append(claims.map(\.appId))
        bindings.append(claims.map(\.purpose.rawValue))
        bindings.append(claims.map(\.userId))
        bindings.append(claims.map { ByteBuffer(bytes: $0.keyId) })
        bindings.append(claims.map(\.at))
        bindings.append(claims.map(\.expiryThreshold))
        bindings.append(commits.map(\.counter))
        // Arrays cannot carry NULL elements here: a presence flag and a placeholder.
        bindings.append(commits.map { $0.requestContext != nil })
        bindings.append(commits.map { $0.requestContext ?? "" })
        BatchedFactsParameters.append(entries.map(\.query), to: &bindings)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        let index = try BatchedFactsParameters.entryIndex(of: row, in: entries.count)
        return (index, try Self.answer(row), try ScoringFactsRow.facts(in: row, asked: entries[index].query))
    }

    /// The function's answer in `row` (columns `failed_step`, `previous_counter`).
    private static func answer(_ row: PostgresRow) throws -> Answer {
        let read = PostgresRowReader(row, table: "attestguard_commit_assertion")
        let step: RollbackSignal.Step? = switch try read("failed_step", as: String?.self) {
        case nil: nil
        case "challenge": .challenge
        case "counter": .counter
        case let other?: throw StoreError(.corruptRow, "attestguard_commit_assertion answered the unknown step \(other)")
        }
        return Answer(failedStep: step, previousCounter: try read("previous_counter", as: Int64?.self))
    }
}
