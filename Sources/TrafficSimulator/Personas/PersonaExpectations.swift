public import AttestVocabulary

/// What every persona's checked requests must get from the shipped rule set (`Rules/default.yaml`). Reviewed by
/// hand: it is written from the rules' intent, never derived from a run, so a run that disagrees (an edited rule
/// set, a regression) fails the demo.
///
/// Scores follow the default thresholds (review 50, deny 80): an unattested client outside the rollout gets
/// `no-attested-key` (+20) and `attestation-unavailable-on-client` (+10), and, its device never having passed
/// DeviceCheck, `unsupported-without-devicecheck` reviews it; inside the rollout `attestation-required-but-missing`
/// (+40) lifts it to review too; a farm key gets `key-farm` (+60) and `new-keys-burst` (+30).
public enum PersonaExpectations {
    /// What every checked request of `persona` must get.
    public static func expected(for persona: Persona) -> ExpectedOutcome {
        switch persona {
        case .honest: .verdict(.allow)
        case .farm: .verdict(.deny, firing: ["key-farm", "new-keys-burst"])
        case .promoAbuser: .verdict(.deny, firing: ["promo-already-claimed"])
        case .replayer: .error(status: 409, code: .assertionAlreadyAccepted)
        case .tamperer: .error(status: 422, code: .requestBindingMismatch)
        case .unattestedOutsideRollout: .verdict(.review, firing: ["unsupported-without-devicecheck"])
        case .unattestedInsideRollout: .verdict(.review, firing: ["attestation-required-but-missing"])
        case .burst: .verdict(.review, firing: ["assertion-burst"])
        case .resignedBuild: .verdict(.deny, firing: ["non-store-build-claims-promo"])
        case .blockedRange: .verdict(.deny, firing: ["blocked-ip"])
        }
    }

    /// How the fraud team labels a persona's checked requests in the demo's labelled history: the farm, the promotion
    /// abuser, the re-signed build, the burst and the blocked range are fraud; honest users and clients without App Attest are legitimate. The replayer's and
    /// the tamperer's checked requests were refused before any verdict: there is nothing to label.
    public static func label(for persona: Persona) -> FraudLabel? {
        switch persona {
        case .farm, .promoAbuser, .burst, .resignedBuild, .blockedRange: .fraud
        case .honest, .unattestedOutsideRollout, .unattestedInsideRollout: .legitimate
        case .replayer, .tamperer: nil
        }
    }

    /// The request actions whose `review` verdicts open items in the demo app's review queue
    /// (`apps.<app>.reviewQueue.actions`): the purchases of the clients without App Attest.
    public static let reviewQueueActions = ["purchase"]

    /// The personas whose checked request opens a review item in the demo (a `review` verdict on a purchase), and whom
    /// the demo's analyst labels by deciding that item in the console rather than through `/v1/labels`: the decision
    /// labels the item's subject, the user, whose one verdict is the checked one, so the labelled history is the same
    /// either way. The burst's review verdicts (on `view_orders`) open none: its key's other verdicts are not checked.
    public static let decidedInReviewQueue: Set<Persona> = [.unattestedOutsideRollout, .unattestedInsideRollout]

    /// The shipped rules over those labels. Fraud: the farm's 22 checked verdicts (deny, `key-farm` and
    /// `new-keys-burst`), the promotion abuser's 1 (deny, `promo-already-claimed`), the re-signed build's 1 (deny,
    /// `non-store-build-claims-promo`), the blocked range's 1 (deny, `blocked-ip`) and the burst's 1 (review,
    /// `assertion-burst`), 26 in all. Legitimate: every honest verdict (allow, no rule) and the two unattested clients
    /// (both `no-attested-key`, `attestation-unavailable-on-client` and `unsupported-without-devicecheck`, a review;
    /// inside the rollout also `attestation-required-but-missing`). So each fraud rule's precision is 1 and its recall
    /// its share of the 26; the rules for clients without App Attest catch no fraud; 25 denies are all fraud, and of the
    /// 28 denies and reviews 26 are.
    public static let labelledHistory = LabelledHistoryExpectation(
        fraud: DeviceFarm.devices + 4,
        rules: [
            "key-farm": .init(precision: 1, recall: 22.0 / 26),
            "new-keys-burst": .init(precision: 1, recall: 22.0 / 26),
            "promo-already-claimed": .init(precision: 1, recall: 1.0 / 26),
            "non-store-build-claims-promo": .init(precision: 1, recall: 1.0 / 26),
            "blocked-ip": .init(precision: 1, recall: 1.0 / 26),
            "assertion-burst": .init(precision: 1, recall: 1.0 / 26),
            "no-attested-key": .init(precision: 0, recall: 0),
            "attestation-unavailable-on-client": .init(precision: 0, recall: 0),
            "attestation-required-but-missing": .init(precision: 0, recall: 0),
            "unsupported-without-devicecheck": .init(precision: 0, recall: 0),
        ],
        deny: .init(precision: 1, recall: 25.0 / 26),
        denyOrReview: .init(precision: 26.0 / 28, recall: 1)
    )
}
