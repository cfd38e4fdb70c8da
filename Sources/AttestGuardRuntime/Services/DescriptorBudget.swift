#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How many client connections the server may hold so that the process never runs out of file descriptors.
///
/// A process whose descriptors are all taken does not just refuse connections: the runtime under it opens
/// descriptors lazily and some of it cannot fail. On Linux, libdispatch (which runs Swift concurrency's timers and
/// thread pool) reads `/proc/<tid>/stat` every second while work is queued and traps (SIGILL) when that `open` fails.
/// So the server keeps a reserve for everything that is not a client connection: the database pools, the event
/// loops, files it reads, outbound HTTPS to Apple, the operator listener and the runtime itself. Client connections
/// get the rest, and the connection cap is lowered to fit when `server.maxConnections` does not.
public struct DescriptorBudget: Sendable, Equatable {
    /// Descriptors kept for the runtime, files, outbound connections and the operator listener, beyond the pools.
    public static let baseReserve = 64

    /// The soft limit on open descriptors (`RLIMIT_NOFILE`) in force.
    public let descriptorLimit: Int
    /// Descriptors kept for everything that is not a client connection.
    public let reserved: Int
    /// The configured connection cap (`server.maxConnections`).
    public let configuredConnections: Int

    /// The budget for `configuredConnections` client connections under `descriptorLimit`, with `databaseConnections`
    /// held by the store's pools.
    public init(descriptorLimit: Int, configuredConnections: Int, databaseConnections: Int) {
        self.descriptorLimit = descriptorLimit
        self.configuredConnections = configuredConnections
        // A limit too small for the whole reserve still leaves half of it to clients: the server serves a few
        // connections rather than none, and says so at start.
        reserved = min(Self.reserve(databaseConnections: databaseConnections), descriptorLimit / 2)
    }

    /// The most client connections held at once: the configured cap, or less when the descriptors do not allow it.
    public var connectionCap: Int { max(1, min(configuredConnections, descriptorLimit - reserved)) }

    /// Whether the descriptor limit, not `server.maxConnections`, sets the cap.
    public var isLimitedByDescriptors: Bool { connectionCap < configuredConnections }

    /// Descriptors kept for everything but client connections when the store's pools hold `databaseConnections`.
    public static func reserve(databaseConnections: Int) -> Int { baseReserve + databaseConnections }
}

extension DescriptorBudget {
    /// The budget for this server's configuration, after raising the process's soft descriptor limit towards its hard
    /// limit as far as the configured cap and reserve need (as Go's runtime and nginx's `worker_rlimit_nofile` do:
    /// distributions start services with a soft limit of 1024 and a far higher hard one).
    public static func forServer(_ configuration: ServerConfiguration) -> DescriptorBudget {
        let pools: Int
        switch configuration.database {
        case .postgres(let postgres): pools = postgres.poolSize + (postgres.readURL == nil ? 0 : postgres.readPoolSize)
        case .sqlite: pools = 4
        }
        let limit = raiseSoftDescriptorLimit(toAtLeast: configuration.connections.maxConnections + reserve(databaseConnections: pools))
        return DescriptorBudget(
            descriptorLimit: limit, configuredConnections: configuration.connections.maxConnections, databaseConnections: pools
        )
    }

    /// Raises the soft `RLIMIT_NOFILE` to `wanted`, or to the hard limit if that is lower; never lowers it.
    /// Returns the soft limit in force afterwards (`Int.max / 2` when the limit cannot be read).
    static func raiseSoftDescriptorLimit(toAtLeast wanted: Int) -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return Int.max / 2 }
        let current = Int(clamping: limit.rlim_cur)
        let hard = Int(clamping: min(limit.rlim_max, rlim_t(Int.max / 2)))
        let target = min(wanted, hard)
        guard target > current else { return current }
        limit.rlim_cur = rlim_t(target)
        return setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 ? target : current
    }
}
