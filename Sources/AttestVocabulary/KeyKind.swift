/// What stood for an App Attest key in a request, as the signal `key.kind` names it: a key the device attested, or a
/// debug token an admin made for a device that cannot attest (the iOS Simulator, a CI runner).
public enum KeyKind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// An App Attest key: an assertion signed by it, or a session token issued for it.
    case attested
    /// A debug token (`attestguard debug-tokens create`): no device was attested.
    case debug

    public var description: String { rawValue }
}
