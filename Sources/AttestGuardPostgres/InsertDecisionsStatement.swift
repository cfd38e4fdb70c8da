import AttestGuardStore
import PostgresNIO

/// `appendDecisions` as a named prepared statement: every process writes the decision log several times a second,
/// a chunk of entries each time, into the day's partition. Sent as text it was parsed and planned at every call
/// (partition routing included). Absent optional text travels as `''` in its array, which is never a value of those
/// columns, and is stored as NULL; a shadow rule set's version and rules are stored only with its decision.
struct InsertDecisionsStatement: PostgresPreparedStatement {
    typealias Row = Int

    static let name = "attestguard_insert_decisions_v1"

    static let sql = """
        INSERT INTO decision_log (app_id, decided_at, endpoint, key_id, user_hash, ip_hash, device_hash, decision, rule_decision, score,
                                  rule_set_version, fired, signals, shadow_decision, shadow_rule_set_version, shadow_fired, request_id)
        SELECT a, t, e, NULLIF(k, ''), NULLIF(u, ''), NULLIF(i, ''), NULLIF(h, ''), d, r, s, v, f, g, NULLIF(sd, ''),
               CASE WHEN sd = '' THEN NULL ELSE sv END, CASE WHEN sd = '' THEN NULL ELSE sf END, NULLIF(q, '')
        FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
                    $9::text[], $10::float8[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[], $16::text[],
                    $17::text[])
             AS x(a, t, e, k, u, i, h, d, r, s, v, f, g, sd, sv, sf, q)
        """

    static let bindingDataTypes: [PostgresDataType] = [
        .textArray, .timestamptzArray, .textArray, .textArray, .textArray, .textArray, .textArray, .textArray,
        .textArray, .float8Array, .textArray, .textArray, .textArray, .textArray, .textArray, .textArray, .textArray,
    ]

    var entries: [DecisionLogEntry]

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 17)
        bindings.append(ArrayParameter(entries) { $0.pointee.appId })
        bindings.append(ArrayParameter(entries) { $0.pointee.decidedAt })
        bindings.append(ArrayParameter(entries) { $0.pointee.endpoint.rawValue })
        bindings.append(ArrayParameter(entries) { $0.pointee.keyId ?? "" })
        bindings.append(ArrayParameter(entries) { $0.pointee.userHash ?? "" })
        bindings.append(ArrayParameter(entries) { $0.pointee.ipHash ?? "" })
        bindings.append(ArrayParameter(entries) { $0.pointee.deviceHash ?? "" })
        bindings.append(ArrayParameter(entries) { $0.pointee.decision.rawValue })
        bindings.append(ArrayParameter(entries) { $0.pointee.ruleDecision.rawValue })
        bindings.append(ArrayParameter(entries) { $0.pointee.score })
        bindings.append(ArrayParameter(entries) { $0.pointee.ruleSetVersion })
        bindings.append(ArrayParameter(entries) { $0.pointee.fired })
        bindings.append(ArrayParameter(entries) { $0.pointee.signals })
        bindings.append(ArrayParameter(entries) { $0.pointee.shadow?.decision.rawValue ?? "" })
        bindings.append(ArrayParameter(entries) { $0.pointee.shadow?.ruleSetVersion ?? "" })
        bindings.append(ArrayParameter(entries) { $0.pointee.shadow?.fired ?? "" })
        bindings.append(ArrayParameter(entries) { $0.pointee.requestId ?? "" })
        return bindings
    }

    /// An `INSERT` returns no rows.
    func decodeRow(_ row: PostgresRow) throws -> Row { 0 }
}
