import PolicyFiles
/// Bounds, in UTF-8 bytes, on what a rule may hold: a rule set is written by people but read by a server that echoes
/// ids in verdicts and in its logs. The bounds on paths and on problem reports are ``PolicyFileLimits``.
package enum RuleSetLimits {
    /// A rule id, a list name or an attribute name.
    static let nameBytes = 64
    /// An expression (`when`), a reason or a description: also a bound on parse depth and work.
    static let textBytes = 4_096
}
