import AttestGuardEngine
import Foundation
import GatewayPolicy
import AttestGuardRuntime

/// `PUT /v1/admin/apps/{appId}/policy` request body: the values stored for the app, each overriding the
/// configuration file's until a later `PUT` leaves it out or `DELETE` clears them all. A name the contract does not
/// list is refused, so that a misspelt setting is never stored as nothing.
struct AppPolicyOverrideBody: Decodable {
    static let fields = ["mode", "attestationRequiredPercent", "defaultProtection", "routes"]

    var mode: AppPolicy.Mode?
    var attestationRequiredPercent: Int?
    var defaultProtection: RouteProtection?
    /// A gateway route's path pattern, as its policy file writes it, to its protection.
    var routes: [String: RouteProtection]

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        // By name: a decoder lists an object's members in no fixed order, and one body must always get one answer.
        if let unknown = container.allKeys.map(\.stringValue).sorted().first(where: { !Self.fields.contains($0) }) {
            throw APIError.badRequest(.invalidField, "unknown field \(unknown.prefix(64)); the fields are \(Self.fields.joined(separator: ", "))")
        }
        mode = try Self.choice(container, "mode")
        attestationRequiredPercent = try container.decodeIfPresent(Int.self, forKey: Key(stringValue: "attestationRequiredPercent"))
        if let percent = attestationRequiredPercent, !(0...100).contains(percent) {
            throw APIError.badRequest(.invalidField, "attestationRequiredPercent is 0-100")
        }
        defaultProtection = try Self.choice(container, "defaultProtection")
        let routes = try container.decodeIfPresent([String: String].self, forKey: Key(stringValue: "routes")) ?? [:]
        guard routes.count <= 256 else { throw APIError.badRequest(.invalidField, "routes names at most 256 paths") }
        self.routes = try routes.mapValues { word in
            guard let protection = RouteProtection(rawValue: word) else {
                throw APIError.badRequest(.invalidField, "a route's protection is one of \(RouteProtection.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return protection
        }
    }

    private static func choice<Value: RawRepresentable & CaseIterable>(
        _ container: KeyedDecodingContainer<Key>, _ field: String
    ) throws -> Value? where Value.RawValue == String {
        guard let word = try container.decodeIfPresent(String.self, forKey: Key(stringValue: field)) else { return nil }
        guard let value = Value(rawValue: word) else {
            throw APIError.badRequest(.invalidField, "\(field) is one of \(Value.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return value
    }

}

/// `GET`, `PUT` and `DELETE /v1/admin/apps/{appId}/policy` response body: the app's policy as its configuration
/// file sets it, the values stored at run time (none: `stored` is absent), and what this process has in force.
struct AppPolicyBody: Encodable {
    /// One gateway route of the app's policy files.
    struct Route: Encodable {
        var path: String
        var methods: [String]
        var protection: String
        /// `file:line` of the route.
        var location: String
    }

    /// Mode, percentage and gateway protections.
    struct Settings: Encodable {
        var mode: String
        var attestationRequiredPercent: Int
        /// The protection of unmatched gateway paths, per policy file (absent without gateway policies).
        var defaultProtection: String?
        var routes: [Route]
    }

    struct Stored: Encodable {
        var mode: String?
        var attestationRequiredPercent: Int?
        var defaultProtection: String?
        var routes: [String: String]
        var revision: Int64
        var updatedAt: Date
        var updatedBy: String
    }

    /// The app's automatic attestation rollout (absent: the app has no ramp).
    struct Ramp: Encodable {
        /// The ramp as configured (`apps.<app>.ramp`).
        struct Settings: Encodable {
            var startPercent: Int
            var factor: Double
            var periodSeconds: Int64
            var minimumSuccessRate: Double
            var maximumRateLimitedShare: Double
            var minimumAttempts: Int64
        }

        /// `ramping`, `holding`, `paused` or `complete`.
        var state: String
        /// The percentage the ramp has reached (in force unless `pinned`).
        var percent: Int
        /// Whether a stored `attestationRequiredPercent` pins the percentage and stops the ramp until cleared.
        var pinned: Bool
        var lastStepAt: Date?
        /// The last period the controller evaluated, and what it counted there.
        var periodStart: Date?
        var periodAttempts: Int64
        var periodSuccessRate: Double
        var periodRateLimitedShare: Double
        /// When the controller next evaluates (the end of the current period).
        var nextEvaluationAt: Date
        var settings: Settings
    }

    var appId: String
    var file: Settings
    var stored: Stored?
    var effective: Settings
    var ramp: Ramp?
    /// How often every process reads the stored values again (`apps.policyReloadSeconds`).
    var reloadSeconds: Int

    /// - Parameters:
    ///   - changes: The stored route protections, as the gateway applies them.
    init(configured: AppPolicy, effective: AppPolicy, stored: Stored?, changes: RouteProtectionOverrides?, gateway: [AppRoutePolicy], reloadSeconds: Int) {
        appId = configured.appId
        file = Self.settings(configured, gateway: gateway, overrides: nil)
        self.effective = Self.settings(effective, gateway: gateway, overrides: changes)
        self.stored = stored
        self.reloadSeconds = reloadSeconds
    }

    private static func settings(_ app: AppPolicy, gateway: [AppRoutePolicy], overrides: RouteProtectionOverrides?) -> Settings {
        let routes = gateway.flatMap { file in
            file.routes.map { route in
                Route(
                    path: route.path.text, methods: route.methods.sorted(),
                    protection: (overrides?.routes[route.path.text] ?? route.protection).rawValue, location: route.location
                )
            }
        }
        let defaultProtection = gateway.first.map { (overrides?.defaultProtection ?? $0.defaultProtection).rawValue }
        return Settings(
            mode: app.mode.rawValue, attestationRequiredPercent: app.attestationRequiredPercent, defaultProtection: defaultProtection, routes: routes
        )
    }
}
