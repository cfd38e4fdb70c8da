import AttestGuardWire
import AttestVocabulary
import DeviceSimulator
import Foundation

/// One client request sent through a gateway byte for byte (no HTTP client would send `//`, `%6F` or `/./` as they
/// are): the request-target as written, the app's App Attest headers, basic auth, and a body sent with
/// `Content-Length` or chunked.
struct GatewayRequest {
    var method = "POST"
    var target = "/api/promos/claim"
    var host = "shop.example"
    var body = Array(#"{"item":"sku-1"}"#.utf8)
    var chunked = false
    /// The basic-auth user the gateway authenticates (password `password`); `nil` sends no credentials.
    var user: String? = "alice"
    var assertion: AssertionRequestBody?
    /// Headers the client adds (forgeries of the gateway's own, say).
    var extraHeaders: [(String, String)] = []

    /// The request's bytes, closing the connection after the answer.
    var bytes: [UInt8] {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n"
        if let user { head += "Authorization: Basic \(Data("\(user):password".utf8).base64EncodedString())\r\n" }
        for (name, value) in assertion?.appAttestHeaders ?? [] { head += "\(name.rawValue): \(value)\r\n" }
        for (name, value) in extraHeaders { head += "\(name): \(value)\r\n" }
        guard method != "GET" || !body.isEmpty else { return Array((head + "\r\n").utf8) }
        if chunked {
            head += "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
            var bytes = Array(head.utf8)
            // Chunks of 1,000 bytes and a short last one, so that the gateway reassembles several.
            var rest = body[...]
            while !rest.isEmpty {
                let chunk = rest.prefix(1_000)
                bytes += Array("\(String(chunk.count, radix: 16))\r\n".utf8) + chunk + Array("\r\n".utf8)
                rest = rest.dropFirst(chunk.count)
            }
            return bytes + Array("0\r\n\r\n".utf8)
        }
        head += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n"
        return Array(head.utf8) + body
    }

    /// Sends it to the gateway on `port` and reads the whole answer (at most 30 s).
    func send(to port: Int) async throws -> GatewayAnswer {
        let bytes = self.bytes
        let received: [UInt8] = try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                do {
                    let connection = try RawConnection(port: port)
                    guard connection.send(bytes) else { throw RawConnection.Failure(description: "the gateway closed the connection") }
                    continuation.resume(returning: connection.receive(timeout: .seconds(30)))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
        guard let response = RawResponse(received) else {
            throw RawConnection.Failure(description: "no HTTP answer: \(String(decoding: received.prefix(200), as: UTF8.self))")
        }
        return GatewayAnswer(response)
    }
}

/// A gateway's answer, its chunked body decoded.
struct GatewayAnswer {
    let status: Int
    let body: [UInt8]
    private let response: RawResponse

    init(_ response: RawResponse) {
        self.response = response
        status = response.status
        body = response.header("transfer-encoding")?.lowercased() == "chunked" ? Self.dechunk(response.body) : response.body
    }

    func header(_ name: String) -> String? { response.header(name) }

    /// The `error.code` of a JSON error body.
    var errorCode: String? {
        let json = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
        return (json?["error"] as? [String: Any])?["code"] as? String
    }

    var text: String { String(decoding: body, as: UTF8.self) }

    private static func dechunk(_ bytes: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        var rest = bytes[...]
        while let lineEnd = rest.firstIndex(of: 13), let size = Int(String(decoding: rest[..<lineEnd], as: UTF8.self).split(separator: ";").first ?? "", radix: 16), size > 0 {
            let start = lineEnd + 2
            guard rest.endIndex >= start + size + 2 else { break }
            output += rest[start..<(start + size)]
            rest = rest[(start + size + 2)...]
        }
        return output
    }
}
