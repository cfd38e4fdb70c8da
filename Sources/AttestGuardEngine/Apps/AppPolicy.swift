public import Foundation
public import AttestCore
public import AttestVocabulary
public import AttestGuardStore
/// How one app is verified: its identity, the environments and builds it accepts, how its client turns challenges into
/// the attestation's clientDataHash, and the format of the clientData it signs in assertions.
public struct AppPolicy: Sendable, Hashable {
    /// What the app signs in assertions.
    public enum ClientDataFormat: Sendable, Hashable {
        /// AttestGuard's v1 JSON, bound to the request (method, path, body hash).
        case v1
        /// The app's own JSON shape: the challenge sits at a JSON pointer; no request binding.
        case legacy(challengePointer: String)

        public var name: String {
            switch self {
            case .v1: "v1"
            case .legacy: "legacy"
            }
        }
    }

    /// Whether decisions are enforced or only logged (the rule engine reads this).
    public enum Mode: String, Sendable, Hashable, CaseIterable {
        case enforce
        case monitor
    }

    public var identity: AppIdentity
    public var environments: Set<AppAttestEnvironment>
    public var attestationHashing: ChallengeHashing
    public var clientDataFormat: ClientDataFormat
    public var mode: Mode
    /// The percentage of users (0-100, by a stable hash of app and user id) who must attest; the rules read it as
    /// `rollout.attestation_required`.
    public var attestationRequiredPercent: Int
    /// The verdict when scoring cannot read the store (contract: `onStoreError`).
    public var onStoreError: Decision
    /// Whether the app files and reads DeviceCheck bits together with the other sharing apps of its team; by default
    /// each app's bits are its own, so that a key limited to one app cannot change another's verdicts.
    public var sharesDeviceCheckBits: Bool
    /// The automatic rollout of `attestationRequiredPercent` (nil: the percentage is only what is configured or
    /// stored).
    public var attestationRamp: AttestationRamp?
    /// Which builds may attest and assert (iOS 27's validation category and bundle version); the default allows all.
    public var build: AppBuildPolicy
    /// How long a session token of the app lives, in seconds; `nil`: the app issues none.
    public var sessionTokenLifetime: TimeInterval?
    /// Whether and how the app accepts debug tokens; `nil`: it accepts none.
    public var debugTokens: DebugTokenPolicy?
    /// Which `review` verdicts open items in the app's review queue; `nil`: none do.
    public var review: ReviewPolicy?
    /// The actions whose `deny` and `review` verdicts go to the webhooks that take `verdict.*` events; `nil`: none.
    public var verdictWebhooks: RequestActions?

    public var appId: String { identity.appId }

    /// Where the app files the DeviceCheck bits it learns.
    public var deviceCheckScope: DeviceCheckScope {
        sharesDeviceCheckBits ? .shared(teamId: String(identity.teamId)) : .app(appId)
    }

    /// Where scoring looks for the app's DeviceCheck bits, in order: a sharing app also reads the team rows stored
    /// before bits were per app.
    public var deviceCheckReadScopes: [DeviceCheckScope] {
        sharesDeviceCheckBits ? [deviceCheckScope, .legacyTeam(teamId: String(identity.teamId))] : [deviceCheckScope]
    }

    public init(
        appId: String,
        environments: Set<AppAttestEnvironment> = [.production],
        attestationHashing: ChallengeHashing = .sha256,
        clientDataFormat: ClientDataFormat = .v1,
        mode: Mode = .enforce,
        attestationRequiredPercent: Int = 0,
        onStoreError: Decision = .review,
        sharesDeviceCheckBits: Bool = false,
        attestationRamp: AttestationRamp? = nil,
        build: AppBuildPolicy = AppBuildPolicy(),
        sessionTokenLifetime: TimeInterval? = nil,
        debugTokens: DebugTokenPolicy? = nil,
        review: ReviewPolicy? = nil,
        verdictWebhooks: RequestActions? = nil
    ) {
        self.identity = AppIdentity(appId: appId)
        self.environments = environments
        self.attestationHashing = attestationHashing
        self.clientDataFormat = clientDataFormat
        self.mode = mode
        self.attestationRequiredPercent = min(max(attestationRequiredPercent, 0), 100)
        self.onStoreError = onStoreError
        self.sharesDeviceCheckBits = sharesDeviceCheckBits
        self.attestationRamp = attestationRamp
        self.build = build
        self.sessionTokenLifetime = sessionTokenLifetime
        self.debugTokens = debugTokens
        self.review = review
        self.verdictWebhooks = verdictWebhooks
    }
}
