public import Foundation

/// What a nightly sweep (``KeySweep``) found: per app, the active keys it scored, those the sweep rule set flagged
/// (an action, or a decision other than `allow`), how often each rule fired, and the actions it queued (or, in a dry
/// run, would have).
public struct KeySweepReport: Sendable, Hashable, Codable {
    /// One app's part of the sweep.
    public struct App: Sendable, Hashable, Codable {
        public var appId: String
        /// Active keys scored.
        public var keys: Int
        /// Keys a rule with an action fired on, or whose decision was not `allow`.
        public var flagged: Int
        /// Keys whose signals could not be read (the store did not answer for them); they are swept the next time.
        public var failed: Int
        /// Rule id to the keys it fired on, flagged or not.
        public var rules: [String: Int]
        /// Action name to the keys it was asked for (queued, or counted as monitored for an app in monitor mode).
        public var actions: [String: Int]
        /// The first ``KeySweep/flaggedListed`` flagged keys, in key id order.
        public var flaggedKeys: [FlaggedKey]
        /// Why the app's sweep stopped before its last key (its keys could not be listed, its actions not claimed);
        /// `nil` when it finished.
        public var error: String?

        public init(appId: String) {
            self.appId = appId
            keys = 0
            flagged = 0
            failed = 0
            rules = [:]
            actions = [:]
            flaggedKeys = []
        }
    }

    /// Whether every key of every app was scored.
    public var complete: Bool { apps.allSatisfy { $0.error == nil && $0.failed == 0 } }

    /// One flagged key: what the sweep rule set decided about it (the rules' own decision, whatever the app's mode)
    /// and why.
    public struct FlaggedKey: Sendable, Hashable, Codable {
        /// The key id, standard base64.
        public var keyId: String
        public var decision: String
        public var score: Double
        /// The fired rules' ids.
        public var rules: [String]
        /// The actions the fired rules ask for, as written (`revoke_key`, `label(fraud, "sweep", key)`).
        public var actions: [String]

        public init(keyId: String, decision: String, score: Double, rules: [String], actions: [String]) {
            self.keyId = keyId
            self.decision = decision
            self.score = score
            self.rules = rules
            self.actions = actions
        }
    }

    public var ruleSetVersion: String
    /// Whether actions were only counted, not queued.
    public var dryRun: Bool
    public var startedAt: Date
    public var finishedAt: Date
    public var apps: [App]

    public init(ruleSetVersion: String, dryRun: Bool, startedAt: Date, finishedAt: Date, apps: [App]) {
        self.ruleSetVersion = ruleSetVersion
        self.dryRun = dryRun
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.apps = apps
    }
}
