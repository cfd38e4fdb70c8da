public import Foundation
import PostgresNIO
public import AttestGuardStore

extension PostgresRiskStore {
    public func claimKeySweepDay(_ day: String, owner: String, at now: Date, staleBefore: Date) async throws -> KeySweepClaim {
        var binds = PostgresBindings()
        binds.append(day)
        binds.append(owner)
        binds.append(now)
        binds.append(staleBefore)
        let sql = KeySweepDaySQL.claim(day: "$1", owner: "$2", now: "$3::timestamptz", staleBefore: "$4::timestamptz")
        if try await !rows(PostgresQuery(unsafeSQL: sql, binds: binds)).isEmpty { return .claimed }
        var dayBind = PostgresBindings()
        dayBind.append(day)
        let finished = try await rows(PostgresQuery(unsafeSQL: KeySweepDaySQL.finished(day: "$1"), binds: dayBind))
            .first.map { try PostgresRowReader($0, table: "key_sweep_days")("finished", as: Int64.self) } ?? 0
        return finished > 0 ? .finished : .heldElsewhere
    }

    public func releaseKeySweepDay(_ day: String, owner: String) async throws {
        var binds = PostgresBindings()
        binds.append(day)
        binds.append(owner)
        binds.append(KeySweepDaySQL.released)
        _ = try await rows(PostgresQuery(unsafeSQL: KeySweepDaySQL.release(day: "$1", owner: "$2", before: "$3::timestamptz"), binds: binds))
    }

    public func renewKeySweepDay(_ day: String, owner: String, at now: Date) async throws -> Bool {
        var binds = PostgresBindings()
        binds.append(day)
        binds.append(owner)
        binds.append(now)
        return try await !rows(PostgresQuery(unsafeSQL: KeySweepDaySQL.renew(day: "$1", owner: "$2", now: "$3::timestamptz"), binds: binds)).isEmpty
    }

    public func finishKeySweepDay(_ day: String, owner: String, at now: Date) async throws {
        var binds = PostgresBindings()
        binds.append(day)
        binds.append(owner)
        binds.append(now)
        _ = try await rows(PostgresQuery(unsafeSQL: KeySweepDaySQL.finish(day: "$1", owner: "$2", now: "$3::timestamptz"), binds: binds))
    }
}
