import Foundation
import Synchronization
#if canImport(Glibc)
public import Glibc
#endif

/// Loopback ports for the servers a test names a port to (nginx, Caddy, Prometheus, PgBouncer), which bind it only
/// once they have started.
///
/// The kernel's pick for a socket bound to port 0 lies in its ephemeral range, where outgoing connections take their
/// local ports from too: between the probe closing and the server binding, one of the suite's hundreds of connections
/// can take the port, and the server fails with "address already in use". Ports here come from below that range
/// instead, handed out in turn within each process, and only one that binds right now. `scripts/postgres-cluster.sh`
/// picks its clusters' ports from the slice just above this one, so that the two never pick alike.
public enum LoopbackPort {
    /// The next candidate, advanced on every pick; starts at a place of its own for each process.
    private static let cursor = Mutex<Int>(Int(getpid()))

    /// A loopback port that no socket holds now, outside the ephemeral range where the kernel allows it.
    public static func free() throws -> Int {
        let range = candidates()
        for _ in 0..<range.count {
            let port = cursor.withLock { next -> Int in
                next += 1
                return range.lowerBound + next % range.count
            }
            if bindable(port) { return port }
        }
        throw Failure(description: "no free loopback port in \(range)")
    }

    /// 6,000 ports ending 6,000 below the ephemeral range's start (`net.ipv4.ip_local_port_range`, 32768 by default).
    static func candidates() -> Range<Int> {
        let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
        let start = text.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } ?? 32_768
        let upper = max(start - 6_000, 7_024)
        return (upper - 6_000)..<upper
    }

    /// A socket listening on `127.0.0.1` at a port the kernel picks (backlog `backlog`), and that port: the start of
    /// the tests' own servers.
    public static func listening(backlog: Int32 = 64) throws -> (descriptor: Int32, port: Int) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = Self.address(0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && listen(descriptor, backlog) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard descriptor >= 0, listening else {
            let code = errno
            if descriptor >= 0 { _ = close(descriptor) }
            throw Failure(description: "no loopback listener: errno \(code)")
        }
        return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// Whether a socket binds `127.0.0.1:port` now (without `SO_REUSEADDR`, so a port in TIME_WAIT is passed over).
    static func bindable(_ port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = Self.address(port)
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    /// The IPv4 socket address of `127.0.0.1:port` (port 0: the kernel picks one when it is bound).
    public static func address(_ port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }
}
