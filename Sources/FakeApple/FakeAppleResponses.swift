import Hummingbird
import NIOCore

/// The fake Apple's answers: plain text or JSON bodies, with the headers Apple sends.
enum FakeAppleResponses {
    static func text(_ status: Int, _ text: String, headers: HTTPFields = [:]) -> Response {
        var fields = headers
        fields[.contentType] = "text/plain; charset=utf-8"
        return Response(
            status: HTTPResponse.Status(code: status),
            headers: fields,
            body: ResponseBody(byteBuffer: ByteBuffer(string: text))
        )
    }

    static func json(_ status: Int, _ bytes: [UInt8]) -> Response {
        Response(
            status: HTTPResponse.Status(code: status),
            headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes))
        )
    }

    static func empty(_ status: Int) -> Response {
        Response(status: HTTPResponse.Status(code: status))
    }
}
