import AttestGuardWire
import Foundation

/// The JSON bodies of the app-facing routes as the client sends and reads them (contract, "App-facing routes").
enum AppFacingBodies {
    /// What a challenge is for.
    enum Purpose: String, Encodable {
        case attestation
        case assertion
    }

    /// `POST challenges`.
    struct ChallengeRequest: Encodable {
        var purpose: Purpose
        var keyId: String?
    }

    /// `POST challenges` answer.
    struct ChallengeResponse: Decodable {
        var challenge: String
        var expiresAt: Date
    }

    /// `POST attestations`.
    struct AttestationRequest: Encodable {
        var keyId: String
        var attestation: String
        var challenge: String
        var deviceId: String?
    }

    /// `GET attestation-required` answer.
    struct AttestationRequired: Decodable {
        var attest: Bool
    }

    /// `POST devicecheck`.
    struct DeviceCheckRequest: Encodable {
        var deviceToken: String
    }

    /// The server's dates are RFC 3339, with or without fractional seconds.
    static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            if let date = RFC3339.parse(text) { return date }
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not an RFC 3339 date: \(text)"))
        }
        return decoder
    }
}
