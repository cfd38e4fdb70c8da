import Synchronization

/// What inner middleware learns about a request that its access log line reports: the name of the API key that
/// authenticated it. The request context is a value handed inwards, so the outer ``ObservabilityMiddleware`` reads
/// it through this shared box.
public final class AccessLogFacts: Sendable {
    private let keyName = Mutex<String?>(nil)

    public init() {}

    /// The authenticating API key's name (never the key itself).
    public var apiKeyName: String? {
        get { keyName.withLock { $0 } }
        set { keyName.withLock { $0 = newValue } }
    }
}
