/// What an app says of its own App Attest in `X-AppAttest-Status`: a scoring signal (`request.attest_status`),
/// never a replacement for an assertion.
public enum AppAttestStatus: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The device attests and signs.
    case supported
    /// The device cannot attest (`DCAppAttestService.isSupported` is false); it uses DeviceCheck instead.
    case unsupported
    /// Apple throttles the app's attestations (`serverUnavailable` on every retry).
    case throttled
    /// Attestation failed on the device for another reason.
    case failed

    public var description: String { rawValue }
}
