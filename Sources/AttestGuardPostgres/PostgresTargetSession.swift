import AttestGuardStore
/// Which of a URL's hosts a new connection may use, as libpq's `target_session_attrs` says: the hosts are tried in
/// the URL's order and the first that qualifies serves.
public enum PostgresTargetSession: String, Sendable, CaseIterable {
    /// A server that takes writes: not in recovery, and `transaction_read_only` off (the primary).
    case readWrite = "read-write"
    /// Any server that answers.
    case any
    /// A server in recovery (a standby) only.
    case standby
    /// A standby when one answers, else any server that answers.
    case preferStandby = "prefer-standby"

    /// The URL parameter that names it.
    public static let parameter = "target_session_attrs"

    /// Whether a server that answered with `inRecovery` and `readOnly` qualifies on the first pass over the hosts.
    func accepts(inRecovery: Bool, readOnly: Bool) -> Bool {
        switch self {
        case .readWrite: !inRecovery && !readOnly
        case .any: true
        case .standby, .preferStandby: inRecovery
        }
    }

    /// Whether a server that answers but failed ``accepts(inRecovery:readOnly:)`` may serve when no host passed it.
    var fallsBackToAnyHost: Bool { self == .preferStandby }
}
