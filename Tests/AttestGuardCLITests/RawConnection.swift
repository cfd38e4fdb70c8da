import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A plain TCP connection to a server on loopback, for bytes no HTTP client would send: blocking POSIX calls with a
/// receive timeout, so a test never waits longer than it says. Sendable so that a blocking read can run on a thread
/// of its own; one thread uses it at a time.
final class RawConnection: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private(set) var descriptor: Int32

    /// Connects to `127.0.0.1:port`.
    init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            let code = errno
            close()
            throw Failure(description: "connect: errno \(code)")
        }
    }

    deinit { close() }

    func close() {
        if descriptor >= 0 { _ = Glibc.close(descriptor) }
        descriptor = -1
    }

    /// Sends every byte; false when the server has closed the connection (EPIPE, ECONNRESET).
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return false }
            offset += sent
        }
        return true
    }

    @discardableResult
    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Closes the sending half: the server reads end-of-file after what was sent, and may still answer.
    func finishSending() { _ = shutdown(descriptor, Int32(SHUT_WR)) }

    /// Reads until the server closes the connection, `timeout` passes, or `until` says the bytes so far are enough.
    func receive(timeout: Duration, until complete: ([UInt8]) -> Bool = { _ in false }) -> [UInt8] {
        let deadline = ContinuousClock.now + timeout
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while ContinuousClock.now < deadline {
            let left = deadline - ContinuousClock.now
            let milliseconds = Int32(max(1, left.components.seconds * 1_000 + left.components.attoseconds / 1_000_000_000_000_000))
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, milliseconds)
            if ready <= 0 { continue }
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            received += buffer[0..<count]
            if complete(received) { break }
        }
        return received
    }
}

/// One HTTP/1.1 response as read off a raw connection.
struct RawResponse {
    let status: Int
    let headers: [(String, String)]
    let body: [UInt8]

    /// Parses the first response in `bytes` (Content-Length framing, or the rest of the bytes); `nil` if there is none.
    init?(_ bytes: [UInt8]) {
        guard let end = RawResponse.headEnd(bytes) else { return nil }
        let head = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        guard let statusLine = head.first?.split(separator: " "), statusLine.count >= 2, let status = Int(statusLine[1]) else { return nil }
        self.status = status
        headers = head.dropFirst().compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let rest = bytes[(end + 4)...]
        if let length = headers.first(where: { $0.0 == "content-length" }).flatMap({ Int($0.1) }) {
            body = Array(rest.prefix(length))
        } else {
            body = Array(rest)
        }
    }

    func header(_ name: String) -> String? { headers.first { $0.0 == name.lowercased() }?.1 }

    /// Every response in `bytes`, in order (interim 1xx responses included, with no body); stops at the first
    /// incomplete one.
    static func all(in bytes: [UInt8]) -> [RawResponse] {
        var responses: [RawResponse] = []
        var rest = bytes[...]
        while let end = headEnd(Array(rest)), let response = RawResponse(Array(rest)) {
            let interim = (100..<200).contains(response.status)
            let length = interim ? 0 : (response.header("content-length").flatMap(Int.init) ?? (rest.count - end - 4))
            guard rest.count >= end + 4 + length else { break }
            responses.append(interim ? RawResponse(status: response.status, headers: response.headers, body: []) : response)
            rest = rest.dropFirst(end + 4 + length)
        }
        return responses
    }

    private init(status: Int, headers: [(String, String)], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// Whether `bytes` hold a whole response (a head, and the body its Content-Length announces).
    static func isComplete(_ bytes: [UInt8]) -> Bool {
        guard let end = headEnd(bytes), let response = RawResponse(bytes) else { return false }
        guard let length = response.header("content-length").flatMap(Int.init) else { return false }
        return bytes.count >= end + 4 + length
    }

    private static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4) where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }
}
