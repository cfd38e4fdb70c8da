/// The API operation that asked for a verdict: the rules read it as `request.endpoint`, and the decision log keeps
/// it with every verdict.
public enum Endpoint: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `POST /v1/score`.
    case score
    /// `POST /v1/assertions`.
    case assertion
    /// `POST /v1/attestations`.
    case attestation

    public var description: String { rawValue }
}
