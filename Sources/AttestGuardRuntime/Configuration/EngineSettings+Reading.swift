import AttestGuardStore
import AttestGuardEngine
import Foundation

extension EngineSettings {
    /// Reads the engine's settings from the root: `challenges.*`, `clockSkewSeconds`, `velocity.ipv6PrefixLength`,
    /// `decisionLog.retentionDays` and `factsCache.*`.
    /// - Parameters:
    ///   - trust: The roots in force (Apple's, or the simulator's for its seed).
    ///   - receiptRefresh: `receipts.refresh.*`, read earlier (``ReceiptRefreshSettings/init(reading:)``).
    ///   - hashKey: The key of the keyed hashes velocity counts subjects under (`privacy.hashKey*`).
    init(reading values: ConfigValues, trust: TrustMode, receiptRefresh: ReceiptRefreshSettings, hashKey: String) throws {
        let challenges = values.scoped("challenges")
        self.init(
            challengeTTL: .seconds(try challenges.int("ttlSeconds", default: 300, range: 10...86_400)),
            challengeQuota: ChallengeQuota(
                maximumPerUser: try challenges.int("maxPerUser", default: 30, range: 1...1_000_000),
                window: .seconds(try challenges.int("quotaWindowSeconds", default: 300, range: 1...86_400)),
                maximumUnboundPerClient: try challenges.int("maxUnboundPerClient", default: 60, range: 1...1_000_000),
                maximumUnboundPerApp: try challenges.int("maxUnboundPerApp", default: 10_000, range: 1...10_000_000)
            ),
            challengesPerMinutePerAPIKey: try challenges.int("perApiKeyPerMinute", default: 0, range: 0...10_000_000),
            clockSkew: .seconds(try values.int("clockSkewSeconds", default: 120, range: 0...3_600)),
            trust: trust,
            receiptRefresh: receiptRefresh,
            velocityKeying: VelocityKeying(
                secret: Data(hashKey.utf8),
                ipv6PrefixLength: try values.scoped("velocity").int("ipv6PrefixLength", default: 64, range: 32...128)
            ),
            decisionLogRetentionDays: try values.scoped("decisionLog").int("retentionDays", default: 30, range: 1...3_650),
            factsCache: ScoringFactsCache.Limits(
                maxAge: .seconds(try values.scoped("factsCache").int("maxAgeSeconds", default: 60, range: 0...3_600)),
                maxEntries: try values.scoped("factsCache").int("maxEntries", default: 100_000, range: 0...1_000_000)
            )
        )
    }
}
