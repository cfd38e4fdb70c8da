import AttestGuardWire
import Crypto
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Signs one request: an assertion challenge for the user's key, clientData v1 over the request's method,
/// request-target (what URLSession puts on the request line) and body hash, the assertion, and the three headers.
/// A device that cannot attest sends `X-AppAttest-Status` instead, after this session's DeviceCheck validation. A user
/// without a registered key attests one only when the rollout advises it (``AttestationAdvice``) or a route asked for
/// an assertion (``Attesting/now``); until then requests go as they are.
struct RequestSigner: Sendable {
    let settings: ClientSettings
    let keys: KeyLifecycle
    let deviceCheck: SessionDeviceCheck
    let advice: AttestationAdvice

    /// When a user without a registered key attests one.
    enum Attesting: Sendable {
        /// When the rollout advises it.
        case ifAdvised
        /// Now: a route answered `assertion_missing`.
        case now
    }

    /// A request as signed, and the key that signed it (nil when it goes unattested), or the session token it carries
    /// instead of an assertion.
    struct Signed: Sendable {
        var request: URLRequest
        var keyId: String?
        var sessionToken: String?
    }

    func sign(_ request: URLRequest, attesting: Attesting = .ifAdvised) async throws -> Signed {
        guard let url = request.url, let target = RequestTarget.of(url) else {
            throw AttestGuardClientError(.requestWithoutURL, "the request has no URL the client can read")
        }
        guard request.httpBodyStream == nil else {
            throw AttestGuardClientError(.bodyStreamUnsupported, "a streamed body (httpBodyStream) cannot be hashed before it is sent: set httpBody")
        }
        let method = request.httpMethod ?? "GET"
        let bodySha256 = Base64Text.urlEncoded(SHA256.hash(data: request.httpBody ?? Data()))
        if attesting == .ifAdvised, try await !keys.hasRegisteredKey(), await !advice.attestNow() {
            // Not this user's turn in the rollout: the request goes as it is, for the gateway's route policy.
            var plain = request
            for header in AppAttestHeader.allCases { plain.setValue(nil, forHTTPHeaderField: header.rawValue) }
            return Signed(request: plain, keyId: nil)
        }
        var replacedLostKey = false
        while true {
            let keyId: String
            let state: KeyLifecycle.State
            do {
                state = try await keys.readyKey()
            } catch is AttestGuardClientError {
                // Attestation failed (`prepare` throws why; `onEvent` saw it): the request goes unattested, for the
                // gateway's route policy to decide.
                state = .unavailable(.failed)
            }
            switch state {
            case .ready(let ready):
                keyId = ready
            case .unavailable(let status):
                if status == .unsupported { await deviceCheck.validateOnce() }
                var unattested = request
                unattested.setValue(status.rawValue, forHTTPHeaderField: AppAttestHeader.status.rawValue)
                unattested.setValue(nil, forHTTPHeaderField: AppAttestHeader.sessionToken.rawValue)
                return Signed(request: unattested, keyId: nil)
            }
            do {
                let (clientData, assertion) = try await assert(keyId: keyId, method: method, target: target, bodySha256: bodySha256)
                var signed = request
                signed.setValue(keyId, forHTTPHeaderField: AppAttestHeader.keyId.rawValue)
                signed.setValue(Base64Text.encode(assertion), forHTTPHeaderField: AppAttestHeader.assertion.rawValue)
                signed.setValue(Base64Text.urlEncoded(clientData), forHTTPHeaderField: AppAttestHeader.clientData.rawValue)
                signed.setValue(nil, forHTTPHeaderField: AppAttestHeader.status.rawValue)
                signed.setValue(nil, forHTTPHeaderField: AppAttestHeader.sessionToken.rawValue)
                return Signed(request: signed, keyId: keyId)
            } catch let failure as AppAttestFailure where failure.code == .invalidKey {
                // The key is gone from the device (a reinstall kept its Keychain entry): one new key, attested now.
                guard !replacedLostKey else {
                    throw AttestGuardClientError(.assertionFailed, "App Attest lost the key it had just attested: \(failure)", underlying: failure)
                }
                replacedLostKey = true
                try await keys.discard(keyId, reason: failure.code.description)
            } catch let failure as AppAttestFailure where failure.code == .invalidInput {
                // Once, a plain failure; the same key refused again: a dead key, replaced by one new key, once a session.
                guard await keys.refusedInput(of: keyId), !replacedLostKey else {
                    throw AttestGuardClientError(.assertionFailed, "App Attest could not sign the request: \(failure)", underlying: failure)
                }
                replacedLostKey = true
                try await keys.discard(keyId, reason: failure.code.description)
            } catch let error as AttestGuardClientError where error.answer?.code == .keyNotFound || error.answer?.code == .keySuperseded {
                guard !replacedLostKey, let code = error.answer?.code else { throw error }
                replacedLostKey = true
                try await keys.discard(keyId, reason: code.rawValue)
            } catch let error as AttestGuardClientError where error.answer?.code == .keyRevoked {
                throw AttestGuardClientError(.keyRevoked, "AttestGuard revoked this device's key", answer: error.answer)
            }
        }
    }

    /// clientData v1 and its assertion, retrying `serverUnavailable` with the same key and challenge while the
    /// challenge is valid (a new one after it expired). `invalidKey` and `invalidInput` are thrown as they are, for the
    /// caller to replace the key.
    private func assert(keyId: String, method: String, target: String, bodySha256: String) async throws -> (clientData: [UInt8], assertion: Data) {
        do {
            let (signed, _) = try await settings.retryingServerUnavailable(purpose: .assertion, keyId: keyId) { challenge in
                let clientData = ClientDataV1(challenge: challenge.text, method: method, path: target, bodySha256: bodySha256).bytes
                let assertion = try await settings.provider.generateAssertion(keyId, clientDataHash: Data(SHA256.hash(data: clientData)))
                return (clientData, assertion)
            }
            return signed
        } catch let failure as AppAttestFailure where failure.code != .invalidKey && failure.code != .invalidInput {
            throw AttestGuardClientError(.assertionFailed, "App Attest could not sign the request: \(failure)", underlying: failure)
        }
    }
}
