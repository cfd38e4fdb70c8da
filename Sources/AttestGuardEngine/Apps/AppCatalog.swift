/// The configured apps, by app id.
public struct AppCatalog: Sendable {
    private let apps: [String: AppPolicy]

    public init(_ apps: [AppPolicy]) {
        self.apps = Dictionary(apps.map { ($0.appId, $0) }, uniquingKeysWith: { first, _ in first })
    }

    public var all: [AppPolicy] { apps.values.sorted { $0.appId < $1.appId } }

    /// The app, or `app_not_found`.
    public func policy(for appId: String) throws(EngineError) -> AppPolicy {
        guard let app = apps[appId] else {
            throw EngineError(.notFound, code: .appNotFound, "no app \(appId) is configured")
        }
        return app
    }
}
