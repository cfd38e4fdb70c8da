/// What became of one action a fired rule asked for (`then:` in the rules): the `outcome` label of
/// `attestguard_rule_actions_total` and, for an action that ran, what the store keeps of its last run.
public enum RuleActionOutcome: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// Claimed and running (only ever in the store, while the action runs).
    case running
    /// It ran and changed something: the key is revoked, the entry added, the label stored.
    case done
    /// It ran and there was nothing to change: the key was already revoked, the label already given.
    case unchanged
    /// It ran and failed (the store did not answer, the list is full or gone); it is not tried again before its
    /// period ends.
    case failed
    /// The request names nothing to act on: no key to revoke, no user or device to label.
    case noTarget = "no_target"
    /// The same action on the same target already ran within its period (in this process or another).
    case alreadyRun = "already_run"
    /// The app is in monitor mode: recorded, not run.
    case monitored
    /// The shadow rule set asked for it: recorded, never run.
    case shadow
    /// The queue was full: neither run nor recorded beyond this count.
    case dropped

    public var description: String { rawValue }
}
