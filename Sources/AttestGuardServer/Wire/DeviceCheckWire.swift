import AttestCore
import AttestGuardEngine
import Foundation
import AttestVocabulary
import AttestGuardWire

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
        subject = bits.subject.body
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
