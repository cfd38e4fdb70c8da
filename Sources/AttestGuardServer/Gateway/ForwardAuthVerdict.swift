import AttestGuardEngine
import AttestVocabulary
import Foundation
import GatewayPolicy
import HTTPTypes

/// A verdict as forward-auth reports it to the gateway: the verdict headers the gateway copies to the upstream (and
/// deletes from the client's request first), and whether the route lets it through.
struct ForwardAuthVerdict: Sendable {
    var verdict: RiskVerdict
    /// The assertion's key, when one came with the request.
    var keyId: KeyId?
    var binding: RequestBindingSignal
    /// The body hash the app signed, when the assertion was clientData v1.
    var signedBodySha256: String?
    var route: RouteDecision
    /// In monitor mode, the error code enforcement would have refused the request with (`signature_invalid`,
    /// `assertion_missing`, ...) when it passes anyway.
    var wouldRefuse: ErrorCode?
    /// How long a gateway may reuse this answer for the same token, user, host, method and path, in whole seconds:
    /// set only for a session token admitted on a route that does not score tokens.
    var reusableSeconds: Int?

    /// What enforcement would have refused the request for, in monitor mode: a failed or missing assertion, or a
    /// verdict the rules decided and the route refuses. Sent as `X-AttestGuard-Monitor`.
    var monitorMark: ErrorCode? {
        if let wouldRefuse { return wouldRefuse }
        guard !verdict.enforced, let ruleDecision = verdict.ruleDecision else { return nil }
        let refuses = ruleDecision == .deny || (ruleDecision == .review && route.review == .refuse)
        return refuses ? .requestDenied : nil
    }

    /// `allow` passes; `review` passes where the route's review handling says so; `deny` never does.
    var passes: Bool {
        switch verdict.decision {
        case .allow: true
        case .review: route.review == .pass
        case .deny: false
        }
    }

    var headers: HTTPFields {
        var headers = HTTPFields()
        headers[ForwardAuthHeaders.decision] = verdict.decision.rawValue
        headers[ForwardAuthHeaders.score] = Self.format(verdict.score)
        headers[ForwardAuthHeaders.reasons] = Self.reasons(verdict.reasons.map(\.ruleId))
        if let keyId { headers[ForwardAuthHeaders.keyId] = keyId.bytes.base64EncodedString() }
        headers[ForwardAuthHeaders.ruleSet] = verdict.ruleSetVersion
        if let signedBodySha256 { headers[ForwardAuthHeaders.bodySha256] = signedBodySha256 }
        headers[ForwardAuthHeaders.binding] = binding.rawValue
        headers[ForwardAuthHeaders.protection] = route.protection.rawValue
        if let monitorMark { headers[ForwardAuthHeaders.monitor] = monitorMark.rawValue }
        return headers
    }

    /// Rule ids, comma-separated: printable ASCII ids only (a header carries nothing else safely), cut at an id so
    /// that the value stays within ``ForwardAuthHeaders/reasonsLimit`` bytes.
    static func reasons(_ ruleIds: [String]) -> String {
        var value = ""
        for id in ruleIds where !id.isEmpty && id.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ",") }) {
            let added = value.isEmpty ? id.utf8.count : id.utf8.count + 1
            guard value.utf8.count + added <= ForwardAuthHeaders.reasonsLimit else { break }
            value += value.isEmpty ? id : "," + id
        }
        return value
    }

    /// A score as a header shows it: whole numbers without a fraction.
    static func format(_ score: Double) -> String {
        score.rounded() == score && abs(score) < 1e15 ? String(Int64(score)) : String(score)
    }
}
