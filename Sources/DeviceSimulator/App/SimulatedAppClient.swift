public import AttestGuardWire
public import AttestCore
public import Crypto
public import Foundation

/// What an iOS app using App Attest sends to its backend, built on a ``SimulatedDevice``: the attestation
/// request body for a challenge, then assertion request bodies in clientData format v1 (bound to the protected
/// request's method, path and body), as the wire module's bodies, ready to encode as JSON.
public struct SimulatedAppClient: Sendable {
    /// The device; its ``SimulatedDevice/osVersion`` is what the next attestation's credential certificate says.
    public var device: SimulatedDevice
    public let app: AppIdentity
    public private(set) var key: SimulatedKey
    public var userId: String
    public var deviceId: String?
    /// The extension map its assertions carry after the counter, as iOS 27 devices write it; `nil` (the default):
    /// none, as before iOS 27.
    public var assertionExtensions: AppleAuthenticatorExtensions?
    /// The extension map its attestations carry after the COSE key; by default an App Store build, bundle version 1
    /// (``AttestationOptions/appStoreBuild``); `nil`: none, as before iOS 27.
    public var attestationExtensions: AppleAuthenticatorExtensions? = AttestationOptions.appStoreBuild
    /// The flags byte of its assertions' authenticator data: AT (0x40) as real devices write it; iOS 27 devices that
    /// append the map usually keep ED (0x80) clear.
    public var assertionFlags: UInt8 = 0x40

    public init(device: SimulatedDevice, app: AppIdentity, keyIndex: Int = 0, userId: String, deviceId: String? = nil) {
        self.device = device
        self.app = app
        self.key = device.generateKey(keyIndex)
        self.userId = userId
        self.deviceId = deviceId
    }

    /// Attests the key for a challenge (base64url, as the server issued it), passing SHA-256 of the decoded
    /// challenge bytes as clientDataHash (`raw: true`: the bytes themselves, as Apple's sample does).
    public func attestation(challenge: String, at now: Date, raw: Bool = false) throws -> AttestationRequestBody {
        let bytes = Array(Base64Text.decodeURL(challenge) ?? Data(challenge.utf8))
        let clientDataHash = raw ? bytes : Array(SHA256.hash(data: bytes))
        var options = AttestationOptions()
        options.appleExtensions = attestationExtensions
        let attestation = try device.attest(key, app: app, clientDataHash: clientDataHash, at: now, options: options)
        return AttestationRequestBody(
            appId: app.appId,
            keyId: Data(key.keyId).base64EncodedString(),
            attestation: Data(attestation.object).base64EncodedString(),
            challenge: challenge,
            userId: userId,
            deviceId: deviceId
        )
    }

    /// The clientData v1 bytes for a protected request (``ClientDataV1``, as an app's client builds them).
    public static func clientData(challenge: String, method: String, path: String, body: Data) -> Data {
        Data(ClientDataV1(challenge: challenge, method: method, path: path, bodySha256: Base64Text.urlEncoded(SHA256.hash(data: body))).bytes)
    }

    /// Signs the next assertion (the key's counter advances) for a protected request.
    public mutating func assertion(
        challenge: String,
        method: String = "POST",
        path: String = "/api/orders",
        body: Data = Data(#"{"item":"sku-1"}"#.utf8),
        ip: String? = nil,
        action: String? = nil
    ) -> AssertionRequestBody {
        let clientData = Self.clientData(challenge: challenge, method: method, path: path, body: body)
        let assertion = key.assertion(app: app, clientData: Array(clientData), flags: assertionFlags, extensions: assertionExtensions)
        return Self.payload(
            app: app, keyId: key.keyId, userId: userId, assertion: assertion, clientData: clientData,
            request: .init(method: method, path: path, bodySha256: Base64Text.urlEncoded(SHA256.hash(data: body)), ip: ip, action: action)
        )
    }

    /// An assertion body for a key kept outside a device (`attestguard simulate device` keeps it in a state file),
    /// signed with `privateKey` at `counter`.
    public static func assertion(
        privateKey: P256.Signing.PrivateKey,
        counter: UInt32,
        app: AppIdentity,
        userId: String,
        challenge: String,
        method: String,
        path: String,
        body: Data,
        ip: String? = nil,
        action: String? = nil
    ) -> AssertionRequestBody {
        let clientData = clientData(challenge: challenge, method: method, path: path, body: body)
        let assertion = SimulatedKey.assertion(privateKey: privateKey, app: app, clientData: Array(clientData), counter: counter)
        return payload(
            app: app, keyId: Array(SHA256.hash(data: privateKey.publicKey.x963Representation)), userId: userId, assertion: assertion,
            clientData: clientData,
            request: .init(method: method, path: path, bodySha256: Base64Text.urlEncoded(SHA256.hash(data: body)), ip: ip, action: action)
        )
    }

    private static func payload(
        app: AppIdentity, keyId: [UInt8], userId: String, assertion: [UInt8], clientData: Data, request: AssertedRequestBody
    ) -> AssertionRequestBody {
        AssertionRequestBody(
            appId: app.appId,
            keyId: Data(keyId).base64EncodedString(),
            assertion: Data(assertion).base64EncodedString(),
            clientData: Base64Text.urlEncoded(clientData),
            userId: userId,
            request: request
        )
    }
}
