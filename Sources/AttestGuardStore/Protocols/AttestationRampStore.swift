/// Where the attestation rollout counts outcomes and keeps each app's ramp, shared by every server process.
public protocol AttestationRampStore: Sendable {
    /// Adds `count` to the app's counter of `outcome` in the period starting at `periodStart` (one atomic upsert).
    func countAttestationOutcome(appId: String, periodStart: Int64, outcome: AttestationOutcomeKind, count: Int64) async throws

    /// Adds one to the app's counter of `outcome` in the period starting at `periodStart` if `reporter` (the keyed
    /// hash of a user) has not reported that outcome in the period yet; returns whether it counted. The record of the
    /// reporter and the increment are one atomic write.
    func countAttestationOutcome(appId: String, periodStart: Int64, outcome: AttestationOutcomeKind, reporter: String) async throws -> Bool

    /// Deletes the reporters of the app's periods that start before `periodStart` (the ramp has evaluated them).
    func purgeAttestationOutcomeReporters(appId: String, before periodStart: Int64) async throws

    /// The app's counters of the period starting at `periodStart` (absent counters are 0).
    func attestationOutcomeCounts(appId: String, periodStart: Int64) async throws -> AttestationOutcomeCounts

    /// Every stored ramp.
    func attestationRamps() async throws -> [AttestationRampRecord]

    /// Writes `ramp` (its revision is `expectedRevision + 1`) if the app's row is still at `expectedRevision` (0: no
    /// row). Returns false, changing nothing, when another write came first.
    func replaceAttestationRamp(_ ramp: AttestationRampRecord, expectedRevision: Int64) async throws -> Bool
}
