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

    public var description: String { rawValue }

    /// What the persona does, in a few words, for the final table.
    public var story: String {
        switch self {
        case .honest: "honest users attest once, then buy and browse at a human pace"
        case .farm: "a device farm: Apple's risk metric 35, new keys from one IP"
        case .promoAbuser: "claims a promotion, reinstalls, claims it again (DeviceCheck bit 0 set)"
        case .replayer: "re-sends an assertion the server already accepted"
        case .tamperer: "changes the request body after the app signed it"
        case .unattestedOutsideRollout: "no App Attest (unsupported), outside the attestation-required rollout"
        case .unattestedInsideRollout: "no App Attest (unsupported), inside the attestation-required rollout"
        case .burst: "one key sends 22 assertions within a minute"
        }
    }
}
