public import Foundation
import PostgresNIO
public import AttestGuardStore

extension PostgresRiskStore {
    public func claimKeySweepDay(_ day: String, owner: String, at now: Date, staleBefore: Date) async throws -> Bool {
        var binds = PostgresBindings()
        binds.append(day)
        binds.append(owner)
        binds.append(now)
        binds.append(staleBefore)
        let sql = KeySweepDaySQL.claim(day: "$1", owner: "$2", now: "$3::timestamptz", staleBefore: "$4::timestamptz")
        return try await !rows(PostgresQuery(unsafeSQL: sql, binds: binds)).isEmpty
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
