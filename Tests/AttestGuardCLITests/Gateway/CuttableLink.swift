import AttestTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A TCP link on a loopback port to another port (AttestGuard's way to PostgreSQL) that a test can cut: every
/// connection through it is reset and new ones are refused, as when the database host goes away.
final class CuttableLink: Sendable {
    let port: Int
    private let listener: Int32
    private let open = Mutex<Set<Int32>>([])
    private let cut = Atomic<Bool>(false)

    init(to targetPort: Int) throws {
        (listener, port) = try LoopbackListener.open()
        Thread.detachNewThread { [self] in acceptLoop(targetPort: targetPort) }
    }

    /// Resets every connection and refuses new ones from now on.
    func cutNow() {
        cut.store(true, ordering: .sequentiallyConsistent)
        _ = shutdown(listener, Int32(SHUT_RDWR))
        for descriptor in open.withLock({ $0 }) { _ = shutdown(descriptor, Int32(SHUT_RDWR)) }
    }

    /// Cuts the link and closes its sockets (the threads pumping and accepting end with them).
    func close() {
        cutNow()
        _ = Glibc.close(listener)
        for descriptor in open.withLock({ $0 }) { _ = Glibc.close(descriptor) }
    }

    private func acceptLoop(targetPort: Int) {
        while !cut.load(ordering: .sequentiallyConsistent) {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = LoopbackPort.address(targetPort)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
            guard connected, !cut.load(ordering: .sequentiallyConsistent) else {
                _ = Glibc.close(client)
                _ = Glibc.close(server)
                continue
            }
            open.withLock { $0.formUnion([client, server]) }
            Thread.detachNewThread { [self] in pump(from: client, to: server) }
            Thread.detachNewThread { [self] in pump(from: server, to: client) }
        }
    }

    /// Copies bytes one way until either side ends, then ends both.
    private func pump(from source: Int32, to destination: Int32) {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(source, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            var sent = 0
            while sent < count {
                let written = buffer.withUnsafeBytes { send(destination, $0.baseAddress! + sent, count - sent, Int32(MSG_NOSIGNAL)) }
                guard written > 0 else { break }
                sent += written
            }
            guard sent == count else { break }
        }
        _ = shutdown(source, Int32(SHUT_RDWR))
        _ = shutdown(destination, Int32(SHUT_RDWR))
    }
}
