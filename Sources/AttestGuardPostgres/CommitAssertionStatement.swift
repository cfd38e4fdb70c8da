import Foundation
import PostgresNIO
import AttestGuardStore

/// `commitAssertion` as one named prepared statement (parsed and planned once per connection): a call of
/// `attestguard_commit_assertion` (schema 15), which consumes the challenge and advances the counter, both or
/// neither, in one round trip. It answers the step that failed, or the key's previous counter.
struct CommitAssertionStatement: PostgresPreparedStatement {
    typealias Row = Answer

    /// The function's answer.
    struct Answer: Sendable {
        var failedStep: RollbackSignal.Step?
        var previousCounter: Int64?
    }

    static let name = "attestguard_commit_assertion_v1"

    static let sql = "SELECT failed_step, previous_counter FROM attestguard_commit_assertion($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb)"

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

    /// The function's answer in `row` (columns `failed_step`, `previous_counter`).
    static func answer(_ row: PostgresRow) throws -> Answer {
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
