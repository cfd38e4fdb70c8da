public import Foundation

/// An app's policy as changed at run time (`PATCH /v1/admin/apps/{appId}/policy`): each value set here overrides
/// the configuration file's until it is cleared; a nil value keeps the file's. Values are stored as the words the
/// contract uses (`monitor`, `require-for-rollout`); the engine and the gateway check them when they apply them.
public struct AppPolicyOverride: Sendable, Hashable {
    public var appId: String
    /// `enforce` or `monitor`.
    public var mode: String?
    /// 0-100.
    public var attestationRequiredPercent: Int?
    /// The protection of the app's gateway paths no route matches.
    public var defaultProtection: String?
    /// A gateway route's path pattern, as its policy file writes it, to the protection it now has.
    public var routeProtections: [String: String]
    /// The build policy's validation categories by environment (`production` to `["app_store"]`), replacing the
    /// file's whole map; an environment without a list allows any category.
    public var allowedCategories: [String: [String]]?
    /// The build policy's minimum bundle version (`4.2`).
    public var minimumBundleVersion: String?
    /// The build policy's strict mode.
    public var requiresAuthenticatorExtensions: Bool?
    /// How many times the row was written; a change lands only on the revision it read.
    public var revision: Int64
    public var updatedAt: Date
    /// The name of the API key that made the last change.
    public var updatedBy: String

    public init(
        appId: String, mode: String? = nil, attestationRequiredPercent: Int? = nil, defaultProtection: String? = nil,
        routeProtections: [String: String] = [:], allowedCategories: [String: [String]]? = nil, minimumBundleVersion: String? = nil,
        requiresAuthenticatorExtensions: Bool? = nil, revision: Int64 = 0, updatedAt: Date, updatedBy: String
    ) {
        self.appId = appId
        self.mode = mode
        self.attestationRequiredPercent = attestationRequiredPercent
        self.defaultProtection = defaultProtection
        self.routeProtections = routeProtections
        self.allowedCategories = allowedCategories
        self.minimumBundleVersion = minimumBundleVersion
        self.requiresAuthenticatorExtensions = requiresAuthenticatorExtensions
        self.revision = revision
        self.updatedAt = updatedAt
        self.updatedBy = updatedBy
    }

    /// Whether the override holds no value: storing it clears the app's values, and the row stays with its revision
    /// (a tombstone), so that a revision never names two states.
    public var isEmpty: Bool {
        mode == nil && attestationRequiredPercent == nil && defaultProtection == nil && routeProtections.isEmpty
            && allowedCategories == nil && minimumBundleVersion == nil && requiresAuthenticatorExtensions == nil
    }

    /// The route protections as the stored JSON object (keys sorted, so equal maps store equal text).
    package var routeProtectionsJSON: String {
        let data = (try? JSONSerialization.data(withJSONObject: routeProtections, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// The stored JSON object read back; text that is not an object of strings reads as no route protections.
    package static func routeProtections(json: String) -> [String: String] {
        (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: String] ?? [:]
    }

    /// The allowed categories as the stored JSON object (keys and names sorted, so equal maps store equal text);
    /// `nil` when the override keeps the file's.
    package var allowedCategoriesJSON: String? {
        guard let allowedCategories else { return nil }
        let sorted = allowedCategories.mapValues { Array(Set($0)).sorted() }
        let data = (try? JSONSerialization.data(withJSONObject: sorted, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// The stored allowed categories read back; text that is not an object of string lists reads as the file's.
    package static func allowedCategories(json: String?) -> [String: [String]]? {
        json.flatMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: [String]] }
    }
}
