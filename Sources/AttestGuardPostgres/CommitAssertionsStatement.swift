import Foundation
import PostgresNIO
import AttestGuardStore

/// A batch of accepted assertions and their verdicts' facts in one statement: the batch's commits side by side, and
/// the scoring-facts query (``ScoringFactsSQL``) over each entry's inputs. One prepared statement serves any batch
/// size: the entries come as parallel arrays, their facts' inputs as ``BatchedFactsParameters``.
///
/// Each entry commits as `attestguard_commit_assertion` (schema 15) would, with set-wide statements instead of four
/// statements per entry: the statement locks the challenges that may be consumed (unused, unexpired, this app and
/// purpose, this user and key where bound), then, for those, the keys that are active with a lower counter, both in
/// the entries' order; it advances those keys' counters and consumes their challenges, and answers each entry with
/// the step that failed (`challenge`, `counter`) or the key's previous counter. A refusal is an answer, not an
/// error, so it never takes the others down. A row another transaction changed is locked in its committed version and
/// its condition checked again there (READ COMMITTED), so 64 racers still have one winner.
///
/// The entries must name distinct keys and distinct challenges (the caller splits a batch that repeats one,
/// ``PostgresRiskStore``): two entries of one key would both be checked against the stored counter. The facts are
/// read from the statement's snapshot, taken before any commit, and the caller advances them by what its own commit
/// changed (``ScoringFacts/committing(_:)``). The caller orders the entries so that batches lock keys in one order.
/// One prepared statement of each ``ScoringFactsShape`` serves any batch size.
struct CommitAssertionsStatement<Shape: ScoringFactsShape>: PostgresPreparedStatement, UnnamedStatementText {
    typealias Entry = AssertionBatchEntry
    typealias Answer = AssertionBatchAnswer

    /// One entry's answer: its position in ``entries`` (from 0), the commit's answer and the facts.
    typealias Row = (index: Int, answer: Answer, facts: ScoringFacts)

    static var name: String { CommitAssertionsTexts.shaped.of(Shape.self).name }
    static var sql: String { CommitAssertionsTexts.shaped.of(Shape.self).sql }
    static var unnamedSQL: String { CommitAssertionsTexts.shaped.of(Shape.self).unnamedSQL }

    static var bindingDataTypes: [PostgresDataType] { CommitAssertionsTexts.bindingDataTypes }

    /// The batch, in the order the statement runs it.
    var entries: [Entry]

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: Self.bindingDataTypes.count)
        bindings.append(ByteaArrayParameter(entries) { $0.pointee.commit.claim.challengeId })
        bindings.append(ArrayParameter(entries) { $0.pointee.commit.claim.appId })
        bindings.append(ArrayParameter(entries) { $0.pointee.commit.claim.purpose.rawValue })
        bindings.append(ArrayParameter(entries) { $0.pointee.commit.claim.userId })
        bindings.append(ByteaArrayParameter(entries) { $0.pointee.commit.claim.keyId })
        bindings.append(ArrayParameter(entries) { $0.pointee.commit.claim.at })
        bindings.append(ArrayParameter(entries) { $0.pointee.commit.claim.expiryThreshold })
        bindings.append(ArrayParameter(entries) { $0.pointee.commit.counter })
        // Arrays cannot carry NULL elements here: a presence flag and a placeholder.
        bindings.append(ArrayParameter(entries) { $0.pointee.commit.requestContext != nil })
        bindings.append(ArrayParameter(entries) { $0.pointee.commit.requestContext ?? "" })
        BatchedFactsParameters.append(entries.map(\.query), to: &bindings)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        let read = PostgresRowReader(row.makeRandomAccess(), table: "committed assertions", layoutOf: Self.self)
        let index = try BatchedFactsParameters.entryIndex(of: read, in: entries.count)
        return (index, try Self.answer(read), try ScoringFactsRow.facts(in: read, asked: entries[index].query))
    }

    /// The commit's answer in `read`'s row (columns `failed_step`, `previous_counter`).
    private static func answer(_ read: PostgresRowReader) throws -> Answer {
        let step: RollbackSignal.Step? = switch try read("failed_step", as: String?.self) {
        case nil: nil
        case "challenge": .challenge
        case "counter": .counter
        case let other?: throw StoreError(.corruptRow, "the assertions' commit answered the unknown step \(other)")
        }
        return Answer(failedStep: step, previousCounter: try read("previous_counter", as: Int64?.self))
    }
}

/// One assertion of a batch to commit (``CommitAssertionsStatement``) and the facts its verdict reads.
struct AssertionBatchEntry: Sendable {
    var commit: AssertionCommit
    var query: ScoringFactsQuery
}

/// The commit's answer for one entry of a batch (``CommitAssertionsStatement``): the step that failed, or the key's
/// previous counter.
struct AssertionBatchAnswer: Sendable {
    var failedStep: RollbackSignal.Step?
    var previousCounter: Int64?
}

/// The texts of ``CommitAssertionsStatement`` for each shape, and its parameters' types.
private enum CommitAssertionsTexts {
    static let shaped = ShapedStatementTexts(
        name: "attestguard_commit_assertions_v8", exactName: "attestguard_commit_assertions_exact_v5", text: text(_:keepingPlan:)
    )

    static let bindingDataTypes: [PostgresDataType] = [
        .byteaArray, .textArray, .textArray, .textArray, .byteaArray, .timestamptzArray, .timestamptzArray, .int8Array,
        .boolArray, .textArray,
    ] + BatchedFactsParameters.dataTypes

    /// The statement's text. The commit's entries and the facts' entry rows are each unnested from a parameter row
    /// `p` of their own arrays; prepared once (`keepingPlan`) each row is an optimisation barrier, as
    /// ``BatchedFactsParameters/parameterColumns`` explains; planned at every call, it is folded in. The two rows
    /// hold only the arrays unnested from them (10 and 12): each plan node that carries such a row builds a
    /// descriptor of each of its columns at every execution.
    ///
    /// Prepared once, the entries are materialized too. A row locked `FOR UPDATE` carries a copy of the row of every
    /// other relation its query reads that is not a table (a CTE, a subquery, a function), for PostgreSQL to check the
    /// row again if another transaction changed it; with `entry` folded into `open_challenge`, one of those is `p`,
    /// every array of the commit, copied once per locked challenge. Materialized, the copy is the entry's own row.
    private static func text(_ shape: any ScoringFactsShape.Type, keepingPlan: Bool) -> String {
        """
        WITH entry AS \(keepingPlan ? "MATERIALIZED " : "")(
            SELECT x.* FROM (
                SELECT $1::bytea[] AS p1, $2::text[] AS p2, $3::text[] AS p3, $4::text[] AS p4, $5::bytea[] AS p5, $6::timestamptz[] AS p6,
                       $7::timestamptz[] AS p7, $8::int8[] AS p8, $9::bool[] AS p9, $10::text[] AS p10 \(BatchedFactsParameters.planBarrier(keepingPlan: keepingPlan))
            ) AS p
            CROSS JOIN LATERAL (\(entryRows)) AS x
        ), open_challenge AS (
            SELECT entry.i, entry.challenge, entry.app_id, entry.key_id, entry.at, entry.counter, entry.has_request, entry.request
            FROM entry JOIN challenges c ON c.id = entry.challenge
            WHERE c.app_id = entry.app_id AND c.purpose = entry.purpose AND c.consumed_at IS NULL
              AND c.expires_at > entry.expiry_threshold
              AND (c.user_id IS NULL OR c.user_id = entry.user_id) AND (c.key_id IS NULL OR c.key_id = entry.key_id)
            ORDER BY entry.i
            FOR UPDATE OF c
        ), advancing_key AS (
            SELECT o.*, a.counter AS previous_counter
            FROM open_challenge o JOIN app_keys a ON a.app_id = o.app_id AND a.key_id = o.key_id
            WHERE a.status = 'active' AND a.counter < o.counter
            ORDER BY o.i
            FOR UPDATE OF a
        ), advanced AS (
            UPDATE app_keys a SET counter = k.counter, last_assertion_at = k.at
            FROM advancing_key k
            WHERE a.app_id = k.app_id AND a.key_id = k.key_id
        ), consumed AS (
            UPDATE challenges c
            SET consumed_at = k.at, consumed_key_id = k.key_id, consumed_counter = k.counter,
                consumed_request = CASE WHEN k.has_request THEN k.request::jsonb END
            FROM advancing_key k
            WHERE c.id = k.challenge
        )
        SELECT e.i AS batch_index,
               CASE WHEN open_challenge.i IS NULL THEN 'challenge' WHEN advancing_key.i IS NULL THEN 'counter' END AS failed_step,
               advancing_key.previous_counter, f.*
        FROM (SELECT \(facts.parameterColumns) \(BatchedFactsParameters.planBarrier(keepingPlan: keepingPlan))) AS p
        CROSS JOIN LATERAL (\(facts.entryRows)) AS e
        LEFT JOIN open_challenge ON open_challenge.i = e.i
        LEFT JOIN advancing_key ON advancing_key.i = e.i
        CROSS JOIN LATERAL (\(facts.facts(shape))) AS f
        """
    }

    /// The facts' parameters, after the commit's 10.
    private static let facts = BatchedFactsParameters(first: 11)

    /// The commit's entry rows, from its 10 arrays in the parameter row `p`.
    private static let entryRows = ParallelArrayRows(
        first: ("p.p1", "challenge"),
        others: [
            ("p.p2", "app_id"), ("p.p3", "purpose"), ("p.p4", "user_id"), ("p.p5", "key_id"), ("p.p6", "at"), ("p.p7", "expiry_threshold"),
            ("p.p8", "counter"), ("p.p9", "has_request"), ("p.p10", "request"),
        ]
    ).query(unnestedAs: "entry_arrays")
}
