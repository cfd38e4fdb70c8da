import AttestVocabulary

/// The configured apps, by app id.
public struct AppCatalog: Sendable {
    private let apps: [String: AppPolicy]

    public init(_ apps: [AppPolicy]) {
        self.apps = Dictionary(apps.map { ($0.appId, $0) }, uniquingKeysWith: { first, _ in first })
    }

    public var all: [AppPolicy] { apps.values.sorted { $0.appId < $1.appId } }

    /// The longest app id, in bytes (``AppIdGrammar/maximumLength``).
    public static let maximumAppIdLength = AppIdGrammar.maximumLength

    /// Whether `appId` has the grammar of `TEAMID.bundle.id` (``AppIdGrammar``). Checked before any lookup, so that
    /// only ASCII reaches a comparison (where canonical equivalence and bytes agree).
    public static func isWellFormed(appId: String) -> Bool {
        AppIdGrammar.isWellFormed(appId)
    }

    /// The app; `invalid_field` when `appId` is not well formed, `app_not_found` when no such app is configured.
    public func policy(for appId: String) throws(EngineError) -> AppPolicy {
        guard Self.isWellFormed(appId: appId) else {
            throw EngineError.invalid(.invalidField, "appId must be TEAMID.bundle.id in ASCII, at most \(Self.maximumAppIdLength) bytes")
        }
        guard let app = apps[appId] else {
            throw EngineError(.notFound, code: .appNotFound, "no app \(appId) is configured")
        }
        return app
    }
}
