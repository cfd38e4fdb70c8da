public import Hummingbird
public import AttestGuardRuntime
import NIOCore

/// The per-request context: Hummingbird's core storage, the request id, and the API key that authenticated.
public struct AttestGuardRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Set by ``ObservabilityMiddleware`` (``RequestId``); echoed in `X-Request-Id` and every log line.
    public var requestId: String = ""
    /// Set by ``APIKeyMiddleware``.
    public var apiKey: APIKey?
    /// Read by ``ObservabilityMiddleware`` for the access log line after the inner middleware ran.
    public let accessLog = AccessLogFacts()

    /// The connection, for ``peerAddress``.
    private let channel: any Channel

    /// The peer's IP address (the client's, or its proxy's), for per-address limits; `nil` when the channel has none.
    /// Formatted when asked: few routes need it.
    public var peerAddress: String? { channel.remoteAddress?.ipAddress }

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.channel = source.channel
    }

    /// Bodies are read by ``JSONBody`` with the configured limit; this is Hummingbird's own ceiling.
    public var maxUploadSize: Int { 16 * 1024 * 1024 }
}
