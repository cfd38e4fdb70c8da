import AttestGuardWire
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// JSON responses with RFC 3339 dates (milliseconds) and stable key order.
enum JSONResponse {
    static let encoder = WireJSON.encoder()

    static func make(_ value: some Encodable, status: HTTPResponse.Status) throws -> Response {
        make(json: try encoder.encode(value), status: status)
    }

    /// A response of JSON text already written (by hand, for the hottest routes).
    static func make(json: some Sequence<UInt8>, status: HTTPResponse.Status) -> Response {
        Response(
            status: status,
            headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: json))
        )
    }
}
