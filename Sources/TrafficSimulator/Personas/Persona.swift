public import AttestCore

/// The kinds of client the traffic simulator plays, each with the outcome the shipped rules must give it
/// (``PersonaExpectations``). Their raw values are what `--personas` takes.
public enum Persona: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    case honest
    case farm
    case promoAbuser = "promo-abuser"
    case replayer
    case tamperer
    case unattestedOutsideRollout = "unattested-outside-rollout"
    case unattestedInsideRollout = "unattested-inside-rollout"
    case burst
    case resignedBuild = "resigned-build"
    case blockedRange = "blocked-range"

    public var description: String { rawValue }

    /// What the persona does, in a few words, for the final table.
    public var story: String {
        switch self {
        case .honest: "attest once, then browse and buy at a human pace"
        case .farm: "\(DeviceFarm.devices) devices on one IP, Apple's risk metric \(DeviceFarm.riskMetric)"
        case .promoAbuser: "claims a promo, reinstalls, claims again"
        case .replayer: "re-sends an accepted assertion"
        case .tamperer: "changes the body after the app signed it"
        case .unattestedOutsideRollout: "no App Attest, outside the rollout"
        case .unattestedInsideRollout: "no App Attest, inside the rollout"
        case .burst: "\(AssertionBurst.assertions) assertions from one key in a minute"
        case .resignedBuild: "a re-signed development build claims the promo"
        case .blockedRange: "an analyst blocks its address range mid-run"
        }
    }

    /// The bundle version every persona's app runs.
    public static let bundleVersion = "4.2"

    /// The build the persona's app runs, as iOS 27's App Attest names it in its attestation and every assertion: an
    /// App Store build, except the re-signed one (signed with a development certificate).
    public var build: AppleAuthenticatorExtensions {
        switch self {
        case .resignedBuild: AppleAuthenticatorExtensions(validationCategory: .development, bundleVersion: Self.bundleVersion)
        default: AppleAuthenticatorExtensions(validationCategory: .appStore, bundleVersion: Self.bundleVersion)
        }
    }
}
