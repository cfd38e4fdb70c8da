import AttestCore
import AttestGuardEngine
import Foundation
import AttestVocabulary

/// Whom DeviceCheck bits are filed under on the wire: `{"kind": "key" | "user" | "device", "id": "..."}`.
struct DeviceCheckSubjectBody: Codable {
    var kind: DeviceCheckSubject.Kind
    var id: String

    init(_ subject: DeviceCheckSubject) {
        kind = subject.kind
        id = subject.value
    }

    var subject: DeviceCheckSubject { DeviceCheckSubject(kind: kind, value: id) }
}

/// `POST /v1/devicecheck/query` request body.
struct DeviceCheckQueryRequestBody: Decodable {
    var appId: String
    var deviceToken: String
    var subject: DeviceCheckSubjectBody
    var environment: String?
}

/// `POST /v1/devicecheck/update` request body: at least one bit.
struct DeviceCheckUpdateRequestBody: Decodable {
    var appId: String
    var deviceToken: String
    var subject: DeviceCheckSubjectBody
    var bit0: Bool?
    var bit1: Bool?
    var environment: String?
}

/// `POST /v1/devicecheck/validate` request body.
struct DeviceCheckValidateRequestBody: Decodable {
    var appId: String
    var deviceToken: String
    var environment: String?
}

/// The stored bits of a subject, answered by query and update. Never carries the device token.
struct DeviceCheckBitsResponseBody: Encodable {
    var appId: String
    var environment: String
    var subject: DeviceCheckSubjectBody
    var found: Bool
    var bit0: Bool?
    var bit1: Bool?
    var lastUpdateTime: String?
    var observedAt: Date

    init(appId: String, bits: DeviceCheckBits) {
        self.appId = appId
        environment = bits.environment.rawValue
        subject = DeviceCheckSubjectBody(bits.subject)
        found = bits.found
        bit0 = bits.bit0
        bit1 = bits.bit1
        lastUpdateTime = bits.lastUpdateTime
        observedAt = bits.observedAt
    }
}

/// `POST /v1/devicecheck/validate` response body.
struct DeviceCheckValidateResponseBody: Encodable {
    var appId: String
    var environment: String
    var valid: Bool
}

extension WireFields {
    /// An optional `environment` field: `development` or `production`.
    static func environment(_ text: String?) throws -> AppAttestEnvironment? {
        guard let text else { return nil }
        guard let environment = AppAttestEnvironment(rawValue: text) else {
            throw APIError.badRequest(.invalidField, "environment must be development or production")
        }
        return environment
    }
}
