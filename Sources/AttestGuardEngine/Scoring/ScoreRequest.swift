import Foundation
public import AttestVocabulary

/// What a verdict is asked for: the app and whatever the caller knows of the request (key, user, device, IP,
/// action, the client's own App Attest status, custom attributes). Everything but the app is optional; what is
/// absent reads as missing in the rules.
public struct ScoreRequest: Sendable {
    public var appId: String
    /// What asked for the verdict (`request.endpoint`).
    public var endpoint: Endpoint
    public var keyId: KeyId?
    /// The id of the debug token that stood for a key (`key.kind` = `debug`, `key.debug_token`); `nil` with a key.
    public var debugTokenId: String?
    public var userId: Identifier?
    public var deviceId: Identifier?
    public var ip: ClientIP?
    public var action: String?
    /// `supported`, `unsupported`, `throttled`, `failed`, ... as the gateway reports the client's status.
    public var attestStatus: String?
    /// Custom attributes as JSON carries them; converted to the types the rule set declares.
    public var attributes: [String: AssertedRequest.Attribute]
    /// How an assertion bound the request (set by the assertion flow); absent reads as `none`.
    public var binding: RequestBindingSignal?
    /// For an assertion: its counter minus the key's previous counter.
    public var counterJump: Int64?
    /// The HTTP request's id (`X-Request-Id`), logged with the verdict so that a label can name the decision.
    public var requestId: String?
    /// For an attestation or assertion from iOS 27 or later: how the signing app was distributed
    /// (`request.validation_category`).
    public var validationCategory: ValidationCategory?
    /// For an attestation or assertion from iOS 27 or later: the signing app's bundle version (`request.bundle_version`).
    public var bundleVersion: String?

    public init(
        appId: String,
        endpoint: Endpoint = .score,
        keyId: KeyId? = nil,
        userId: Identifier? = nil,
        deviceId: Identifier? = nil,
        ip: ClientIP? = nil,
        action: String? = nil,
        attestStatus: String? = nil,
        attributes: [String: AssertedRequest.Attribute] = [:],
        binding: RequestBindingSignal? = nil,
        counterJump: Int64? = nil
    ) {
        self.appId = appId
        self.endpoint = endpoint
        self.keyId = keyId
        self.userId = userId
        self.deviceId = deviceId
        self.ip = ip
        self.action = action
        self.attestStatus = attestStatus
        self.attributes = attributes
        self.binding = binding
        self.counterJump = counterJump
    }

    /// The DeviceCheck subjects a verdict reads bits under, in its order of preference: the key, the device, the user.
    var deviceCheckSubjects: [DeviceCheckSubject] {
        [
            keyId.map { DeviceCheckSubject(kind: .key, value: $0.base64) },
            deviceId.map { DeviceCheckSubject(kind: .device, value: $0.value) },
            userId.map { DeviceCheckSubject(kind: .user, value: $0.value) },
        ].compactMap { $0 }
    }

    /// The subjects velocity counts this request under.
    var velocitySubjects: VelocitySubjects {
        VelocitySubjects(key: keyId?.bytes, user: userId?.value, device: deviceId?.value, ip: ip)
    }
}
