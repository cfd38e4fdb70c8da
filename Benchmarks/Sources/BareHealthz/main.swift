import Foundation
import Hummingbird
import NIOCore

/// The reference for the HTTP stack in `Benchmarks/http.sh`: a plain Hummingbird 2 application with one route,
/// `GET /healthz`, answering the same JSON body as `attestguard serve`'s, on Hummingbird's default HTTP/1 server and
/// event loops, with no middleware. Its CPU per request, measured beside the server's in the same run, is the floor
/// AttestGuard's own request path (access log, metrics, request id, deadlines, error shape) adds to.
///
///     BareHealthz [--host 127.0.0.1] [--port 0]
///
/// Prints `bare hummingbird listening on http://HOST:PORT` once bound, and runs until SIGTERM or SIGINT.
@main
struct BareHealthz {
    static func main() async throws {
        var host = "127.0.0.1"
        var port = 0
        var arguments = CommandLine.arguments.dropFirst().makeIterator()
        while let argument = arguments.next() {
            switch argument {
            case "--host": host = arguments.next() ?? host
            case "--port": port = arguments.next().flatMap(Int.init) ?? port
            default:
                FileHandle.standardError.write(Data("usage: BareHealthz [--host HOST] [--port PORT]\n".utf8))
                exit(2)
            }
        }
        let (listenHost, listenPort) = (host, port)
        let router = Router()
        // The server's /healthz body, byte for byte: {"status":"ok"}.
        let body = ByteBuffer(string: #"{"status":"ok"}"#)
        router.get("healthz") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: body))
        }
        let application = Application(
            router: router,
            configuration: .init(address: .hostname(listenHost, port: listenPort), serverName: "BareHealthz"),
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? listenPort
                FileHandle.standardOutput.write(Data("bare hummingbird listening on http://\(listenHost):\(bound)\n".utf8))
            }
        )
        try await application.runService()
    }
}
