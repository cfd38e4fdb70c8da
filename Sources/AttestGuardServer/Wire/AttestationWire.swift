import AttestGuardWire
import AttestGuardEngine
import Foundation

/// `POST /v1/attestations` response body.
struct AttestationResponseBody: Encodable {
    var key: KeyBody
    var idempotent: Bool
    var supersededKeyIds: [String]
    var verdict: RiskVerdict

    init(_ result: AttestationResult) {
        key = KeyBody(result.key, receipt: result.receipt)
        idempotent = result.idempotent
        supersededKeyIds = result.supersededKeyIds.map { $0.base64EncodedString() }
        verdict = result.verdict
    }
}
