import PostgresNIO
import AttestGuardStore

/// How the store reads a failure of PostgreSQL or its driver: the error its caller gets, and whether the failure is
/// one a lost, restarting or read-only server gives (the serving host is then asked again, ``PostgresHostPools``).
enum PostgresFailure {
    /// SQLSTATEs of a server that is going away, starting, or no longer takes writes: the operation did not happen
    /// and may succeed on another host, so they are `store_unavailable`, never a 500.
    private static let hostStates: Set<String> = [
        "25006",  // read_only_sql_transaction: the host is a standby now
        "57P01",  // admin_shutdown
        "57P02",  // crash_shutdown
        "57P03",  // cannot_connect_now: starting, or in recovery
    ]
    /// SQLSTATEs of a host that is up but cannot take this operation now.
    private static let busyStates: Set<String> = [
        "53300",  // too_many_connections
        "53400",  // configuration_limit_exceeded
    ]

    /// The error to throw for `error`, and whether it casts doubt on the serving host.
    static func classify(_ error: any Error) -> (error: any Error, suspectsHost: Bool) {
        switch error {
        case let error as StoreError:
            // The operation's deadline passed: a host that hangs looks like this.
            return (error, error.code == .unavailable)
        case let signal as RollbackSignal:
            return (signal, false)
        case is CancellationError:
            return (StoreError(.unavailable, "the store operation was cancelled"), false)
        case let error as PSQLError where error.code == .server:
            let state = error.serverInfo?[.sqlState] ?? "?"
            if hostStates.contains(state) || state.hasPrefix("08") {
                return (StoreError(.unavailable, describe(error)), true)
            }
            if busyStates.contains(state) { return (StoreError(.unavailable, describe(error)), false) }
            return (StoreError(.queryFailed, describe(error)), false)
        default:
            return (StoreError(.unavailable, "PostgreSQL is unreachable: \(describe(error))"), true)
        }
    }

    /// Whether `error` is a server that is up but turns connections away for now (too many clients, starting
    /// up): it may serve in a moment, so it is neither lost nor refused.
    /// A connection that timed out counts too: an overloaded host (or a pooler waiting for a server connection)
    /// answers late, and only a host that refuses or resets a connection is known to be gone.
    static func isBusy(_ error: any Error) -> Bool {
        guard let error = error as? PSQLError else { return false }
        if error.code == .connectionError {
            return error.underlying.map { String(describing: $0).lowercased().contains("timeout") } ?? false
        }
        guard error.code == .server, let state = error.serverInfo?[.sqlState] else { return false }
        return busyStates.contains(state) || state == "57P03"
    }

    /// A short description that names the failure without the statement or its values (a `PSQLError`'s own
    /// description says nothing; its reflection carries the query).
    static func describe(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return String(describing: error) }
        if error.code == .server {
            return "PostgreSQL \(error.serverInfo?[.sqlState] ?? "?"): \(error.serverInfo?[.message] ?? "no message")"
        }
        guard let underlying = error.underlying else { return "\(error.code)" }
        return "\(error.code) (\(underlying))"
    }
}
