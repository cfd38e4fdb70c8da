/// What every persona's checked requests must get from the shipped rule set (`Rules/default.yaml`). Reviewed by
/// hand: it is written from the rules' intent, never derived from a run, so a run that disagrees (an edited rule
/// set, a regression) fails the demo.
///
/// Scores follow the default thresholds (review 50, deny 80): an unattested client outside the rollout gets
/// `no-attested-key` (+20) and `attestation-unavailable-on-client` (+10); inside the rollout
/// `attestation-required-but-missing` (+40) lifts it to review; a farm key gets `key-farm` (+60) and
/// `new-keys-burst` (+30).
public enum PersonaExpectations {
    /// What every checked request of `persona` must get.
    public static func expected(for persona: Persona) -> ExpectedOutcome {
        switch persona {
        case .honest: .verdict(.allow)
        case .farm: .verdict(.deny, firing: ["key-farm", "new-keys-burst"])
        case .promoAbuser: .verdict(.deny, firing: ["promo-already-claimed"])
        case .replayer: .error(status: 409, code: .assertionAlreadyAccepted)
        case .tamperer: .error(status: 422, code: .requestBindingMismatch)
        case .unattestedOutsideRollout: .verdict(.allow, score: 30)
        case .unattestedInsideRollout: .verdict(.review, firing: ["attestation-required-but-missing"])
        case .burst: .verdict(.review, firing: ["assertion-burst"])
        }
    }
}
