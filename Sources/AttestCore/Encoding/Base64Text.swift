public import AttestGuardWire

/// Base64 as the wire carries it, for AttestCore's users: the one implementation lives in ``AttestGuardWire``,
/// which an app's client links without the server.
public typealias Base64Text = AttestGuardWire.Base64Text
