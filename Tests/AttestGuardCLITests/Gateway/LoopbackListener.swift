import AttestTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A listening TCP socket on a free loopback port: the shared start of the test's own servers (a link to cut, an
/// AttestGuard that never answers) and of picking a free port for a gateway.
enum LoopbackListener {
    /// A socket listening on `127.0.0.1` at a port the kernel picks, and that port.
    static func open() throws -> (descriptor: Int32, port: Int) {
        do {
            return try LoopbackPort.listening()
        } catch {
            throw GatewayProcess.StartFailure(description: "\(error)")
        }
    }

    /// A socket bound to a free loopback port but not listening, and that port: while it is held, no other process
    /// can take the port, and a connection to it is refused (an AttestGuard that is stopped).
    static func reserve() throws -> (descriptor: Int32, port: Int) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = LoopbackPort.address(0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
        }
        guard descriptor >= 0, bound else {
            if descriptor >= 0 { _ = Glibc.close(descriptor) }
            throw GatewayProcess.StartFailure(description: "no loopback port to reserve")
        }
        return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
    }
}
