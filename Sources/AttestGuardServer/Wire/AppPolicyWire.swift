import AttestGuardEngine
import Foundation
import GatewayPolicy
import AttestGuardRuntime
import AttestVocabulary

/// `PUT /v1/admin/apps/{appId}/policy` request body: the values stored for the app, each overriding the
/// configuration file's until a later `PUT` leaves it out or `DELETE` clears them all. A name the contract does not
/// list is refused, so that a misspelt setting is never stored as nothing.
struct AppPolicyOverrideBody: Decodable {
    static let fields = [
        "mode", "attestationRequiredPercent", "defaultProtection", "routes", "allowedCategories", "minimumBundleVersion",
        "requireAuthenticatorExtensions",
    ]
    /// The most validation categories one environment's list may name.
    static let maximumCategoriesPerEnvironment = 32

    var mode: AppPolicy.Mode?
    var attestationRequiredPercent: Int?
    var defaultProtection: RouteProtection?
    /// A gateway route's path pattern, as its policy file writes it, to its protection.
    var routes: [String: RouteProtection]
    /// The build policy's categories by environment (replacing the file's whole map).
    var allowedCategories: [AppAttestEnvironment: Set<ValidationCategory>]?
    var minimumBundleVersion: DottedVersion?
    var requireAuthenticatorExtensions: Bool?

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
        allowedCategories = try Self.categories(container)
        if let text = try container.decodeIfPresent(String.self, forKey: Key(stringValue: "minimumBundleVersion")) {
            guard let version = DottedVersion(text) else {
                throw APIError.badRequest(.invalidField, "minimumBundleVersion is dot-separated whole numbers (4, 4.2, 4.2.1; 0 lifts the file's minimum)")
            }
            minimumBundleVersion = version
        }
        requireAuthenticatorExtensions = try container.decodeIfPresent(Bool.self, forKey: Key(stringValue: "requireAuthenticatorExtensions"))
    }

    /// `allowedCategories`: an object from `production` or `development` to a non-empty list of category names.
    private static func categories(_ container: KeyedDecodingContainer<Key>) throws -> [AppAttestEnvironment: Set<ValidationCategory>]? {
        guard let words = try container.decodeIfPresent([String: [String]].self, forKey: Key(stringValue: "allowedCategories")) else { return nil }
        var categories: [AppAttestEnvironment: Set<ValidationCategory>] = [:]
        for (name, list) in words.sorted(by: { $0.key < $1.key }) {
            guard let environment = AppAttestEnvironment(rawValue: name) else {
                throw APIError.badRequest(.invalidField, "allowedCategories names development or production, not \(name.prefix(64))")
            }
            guard (1...maximumCategoriesPerEnvironment).contains(list.count) else {
                throw APIError.badRequest(
                    .invalidField, "allowedCategories.\(name) lists 1 to \(maximumCategoriesPerEnvironment) categories; leave the environment out to allow any"
                )
            }
            categories[environment] = Set(try list.map { word in
                guard let category = ValidationCategory(name: word) else {
                    let known = ValidationCategory.known.map(\.name).joined(separator: ", ")
                    throw APIError.badRequest(.invalidField, "allowedCategories.\(name): \(word.prefix(64)) is not a category (\(known), or unknown(N))")
                }
                return category
            })
        }
        return categories
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

    /// Mode, percentage, gateway protections and the build policy.
    struct Settings: Encodable {
        var mode: String
        var attestationRequiredPercent: Int
        /// The protection of unmatched gateway paths, per policy file (absent without gateway policies).
        var defaultProtection: String?
        var routes: [Route]
        /// The validation categories allowed per environment (an environment left out allows any).
        var allowedCategories: [String: [String]]
        /// Absent: any bundle version.
        var minimumBundleVersion: String?
        var requireAuthenticatorExtensions: Bool
    }

    struct Stored: Encodable {
        var mode: String?
        var attestationRequiredPercent: Int?
        var defaultProtection: String?
        var routes: [String: String]
        var allowedCategories: [String: [String]]?
        var minimumBundleVersion: String?
        var requireAuthenticatorExtensions: Bool?
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
        let minimum = app.build.minimumInForce?.description
        return Settings(
            mode: app.mode.rawValue, attestationRequiredPercent: app.attestationRequiredPercent, defaultProtection: defaultProtection, routes: routes,
            allowedCategories: AppCatalog.words(of: app.build.allowedCategories), minimumBundleVersion: minimum,
            requireAuthenticatorExtensions: app.build.requiresExtensions
        )
    }
}
