public import AttestGuardWire
public import AttestVocabulary

// The wire module's bodies are Foundation-only, for the app and the simulators; these read them as the engine's
// typed values, and write the engine's values back.

extension ChallengePurpose {
    /// The purpose a body names (the two share their words).
    public init(_ wire: WireChallengePurpose) {
        switch wire {
        case .attestation: self = .attestation
        case .assertion: self = .assertion
        }
    }

    /// The purpose as a body writes it.
    public var wire: WireChallengePurpose {
        switch self {
        case .attestation: .attestation
        case .assertion: .assertion
        }
    }
}

extension DeviceCheckSubject {
    /// The subject a body names.
    public init(_ body: DeviceCheckSubjectBody) {
        let kind: Kind = switch body.kind {
        case .key: .key
        case .user: .user
        case .device: .device
        }
        self.init(kind: kind, value: body.id)
    }

    /// The subject as a body writes it.
    public var body: DeviceCheckSubjectBody {
        let kind: DeviceCheckSubjectBody.Kind = switch self.kind {
        case .key: .key
        case .user: .user
        case .device: .device
        }
        return DeviceCheckSubjectBody(kind: kind, id: value)
    }
}

extension ClientIP {
    /// An optional `ip` field of a body, checked; `field` names it in the error.
    public static func field(_ text: String?, named field: String) throws(EngineError) -> ClientIP? {
        guard let text else { return nil }
        return try ClientIP(text, field: field)
    }
}

extension AssertedRequest {
    /// The protected request a body describes, its address checked (`request.ip`).
    public init(_ body: AssertedRequestBody) throws(EngineError) {
        self.init(
            method: body.method, path: body.path, bodySha256: body.bodySha256, ip: try ClientIP.field(body.ip, named: "request.ip"),
            action: body.action, attributes: body.attributes
        )
    }
}
