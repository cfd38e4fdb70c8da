/// What velocity counts (the `<event>` of `velocity.<event>.<per>.<window>`).
public enum VelocityEvent: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Attestations submitted, verified or not.
    case attestations
    /// Assertions verified.
    case assertions
    /// Attestations and assertions that failed a check.
    case failedVerifications = "failed_verifications"
    /// Score requests.
    case scoreRequests = "score_requests"
    /// Keys registered.
    case newKeys = "new_keys"

    public var description: String { rawValue }
}

/// What velocity is counted per (the `<per>` of `velocity.<event>.<per>.<window>`).
public enum VelocityDimension: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The App Attest key.
    case key
    /// The user id (counted under a keyed hash).
    case user
    /// The device id the caller passes.
    case device
    /// The client IP (counted under a keyed hash).
    case ip

    public var description: String { rawValue }
}
