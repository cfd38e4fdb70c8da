/// How long the HTTP server waits for its clients, and how many it holds at once (`server.*`): the bounds that keep
/// idle, slow or half-finished connections from taking every file descriptor or holding up a shutdown.
public struct ConnectionSettings: Sendable, Hashable {
    /// A connection with no request in progress is closed after this long. Longer than the upstream keep-alive of
    /// common gateways (nginx and most load balancers use 60 s), so that the gateway, not the server, closes idle
    /// connections and never sends a request on one the server is closing.
    public var idleTimeout: Duration = .seconds(75)
    /// A request's head (request line and headers) must arrive whole within this long of its first byte.
    public var headerReadTimeout: Duration = .seconds(10)
    /// A request's body must arrive whole within this long of its head.
    public var bodyReadTimeout: Duration = .seconds(10)
    /// The most connections held at once; past it, new connections wait in the listen backlog until one closes. The
    /// server lowers it at start when the descriptor limit does not allow it (``DescriptorBudget``).
    public var maxConnections = 1_024
    /// After SIGTERM, connections still open this long are closed, finished or not.
    public var shutdownTimeout: Duration = .seconds(10)
    /// Then the write-behind queues (velocity, decision log) get this long for their last flush; what is not
    /// written by then is counted as dropped.
    public var shutdownFlushTimeout: Duration = .seconds(5)

    public init() {}
}
