public import Foundation
public import AttestVocabulary
import Crypto

/// The conditions under which a verified object may consume a challenge: the challenge must exist, be unused,
/// be unexpired at `at` (allowing `clockSkew`), and match the app, the purpose and, where the challenge is bound
/// to them, the user and the key.
public struct ChallengeClaim: Sendable, Equatable {
    public var challengeId: Data
    public var appId: String
    public var purpose: ChallengePurpose
    public var userId: String
    public var keyId: Data
    public var at: Date
    public var clockSkew: Duration

    public init(
        challengeId: Data,
        appId: String,
        purpose: ChallengePurpose,
        userId: String,
        keyId: Data,
        at: Date,
        clockSkew: Duration
    ) {
        self.challengeId = challengeId
        self.appId = appId
        self.purpose = purpose
        self.userId = userId
        self.keyId = keyId
        self.at = at
        self.clockSkew = clockSkew
    }

    /// What a key keeps of the challenge that registered it: SHA-256 of its bytes.
    public static func digest(of challengeId: Data) -> Data {
        Data(SHA256.hash(data: challengeId))
    }

    /// The earliest expiry a challenge may have and still be accepted at `at`.
    public var expiryThreshold: Date {
        at.addingTimeInterval(-clockSkew.timeInterval)
    }
}

extension Duration {
    /// The duration in seconds as a `TimeInterval`.
    public var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
