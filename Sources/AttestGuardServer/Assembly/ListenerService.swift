import Foundation
import NIOCore
public import ServiceLifecycle

/// A listener's service (an HTTP application), run so that a failure to bind says which listener failed, on which
/// address and port, and which setting chose them: `cannot listen on 127.0.0.1:8080 (server.port): ...`. SwiftNIO's
/// own error names only the system call.
public struct ListenerService: Service {
    let base: any Service
    let setting: String
    let host: String
    let port: Int

    /// - Parameters:
    ///   - setting: The configuration key of the port (`server.port`, `operator.port`).
    public init(_ base: any Service, setting: String, host: String, port: Int) {
        self.base = base
        self.setting = setting
        self.host = host
        self.port = port
    }

    public func run() async throws {
        do {
            try await base.run()
        } catch let error as IOError where ListenerBindError.isBindFailure(error) {
            throw ListenerBindError(setting: setting, host: host, port: port, errno: error.errnoCode)
        }
    }
}

/// A listener that could not bind its address, with what an operator does about it.
public struct ListenerBindError: Error, CustomStringConvertible, Sendable {
    public let setting: String
    public let host: String
    public let port: Int
    public let errno: Int32

    /// SwiftNIO reports a failed `bind(2)` as an `IOError` whose description starts with the call's name.
    static func isBindFailure(_ error: IOError) -> Bool {
        String(describing: error).hasPrefix("bind(")
    }

    public var description: String {
        "cannot listen on \(host):\(port) (\(setting)): \(reason)"
    }

    var reason: String {
        switch errno {
        case EADDRINUSE: "the port is in use by another process (choose another port, or stop that process)"
        case EACCES: "permission denied (ports below 1024 need privileges: use a higher port or a proxy in front)"
        case EADDRNOTAVAIL: "the address is not one of this host's (check server.host / operator.host)"
        default: String(cString: strerror(errno))
        }
    }
}
