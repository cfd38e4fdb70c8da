import AttestGuardEngine
import Foundation

/// `POST /v1/assertions` request body.
struct AssertionRequestBody: Decodable {
    var appId: String
    var keyId: String
    var assertion: String
    var clientData: String
    var userId: String
    var request: AssertedRequest
}

/// `POST /v1/assertions` response body.
struct AssertionResponseBody: Encodable {
    var keyId: String
    var counter: Int64
    var clientDataFormat: String
    var requestBinding: String
    var verdict: RiskVerdict

    init(_ result: AssertionResult) {
        keyId = result.keyId.base64EncodedString()
        counter = result.counter
        clientDataFormat = result.clientDataFormat
        requestBinding = result.requestBinding.rawValue
        verdict = result.verdict
    }
}
