import AttestGuardEngine
import AttestGuardRuntime
import AttestVocabulary
import GatewayPolicy

extension GatewayPolicyReloader {
    /// The route decision for a request the gateway describes, for a gateway key that may use the app: 400
    /// `request_target_refused` for a target no route may be chosen for, 404 `route_not_covered` when no policy owns
    /// it or its app is not one the key may use.
    func route(host: String, method: String, requestTarget: String, apiKey: APIKey?) throws(APIError) -> RouteDecision {
        do {
            return try decideRoute(host: host, method: method, requestTarget: requestTarget, apiKey: apiKey)
        } catch {
            switch error {
            case .targetRefused(let message): throw APIError(.badRequest, code: .requestTargetRefused, message)
            case .notCovered(let message): throw APIError(.notFound, code: .routeNotCovered, message)
            }
        }
    }
}
