import AttestGuardEngine
import Foundation
import AttestVocabulary

/// `POST /v1/challenges` request body.
struct ChallengeRequestBody: Decodable {
    var appId: String
    var purpose: ChallengePurpose
    var userId: String?
    var keyId: String?
    /// The client's address as the gateway saw it.
    var ip: ClientIP?
}

/// `POST /v1/challenges` response body.
struct ChallengeResponseBody: Encodable {
    var challenge: String
    var purpose: ChallengePurpose
    var appId: String
    var expiresAt: Date
    var userId: String?
    var keyId: String?

    init(_ issued: IssuedChallenge) {
        challenge = issued.challenge
        purpose = issued.purpose
        appId = issued.appId
        expiresAt = issued.expiresAt
        userId = issued.userId
        keyId = issued.keyId?.base64EncodedString()
    }
}
