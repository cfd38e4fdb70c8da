@testable import AttestGuardRuntime
@testable import AttestGuardServer
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTesting
import NIOCore
import NIOPosix
import Testing

@Suite("HTTP: connections handled on their event loop")
struct EventLoopPinningTests {
    /// A context that keeps the loop of the request's connection.
    struct LoopContext: RequestContext {
        var coreContext: CoreRequestContextStorage
        let connectionLoop: any EventLoop

        init(source: ApplicationRequestContextSource) {
            coreContext = .init(source: source)
            connectionLoop = source.channel.eventLoop
        }
    }

    /// A live server whose one route says where its handler ran: on its connection's loop, another loop, or the pool.
    static func loopReport(server: HTTPServerBuilder, group: any EventLoopGroup) -> some ApplicationProtocol {
        let router = Router(context: LoopContext.self)
        router.get("loop") { _, context in
            if context.connectionLoop.inEventLoop { return "own loop" }
            return MultiThreadedEventLoopGroup.currentEventLoop == nil ? "pool" : "other loop"
        }
        return Application(
            router: router, server: server, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            eventLoopGroupProvider: .shared(group)
        )
    }

    @Test("over a real socket, the handler runs on its connection's own loop (Hummingbird's own HTTP/1.1 runs it on the pool)")
    func handlersRunOnTheLoop() async throws {
        let group = MultiThreadedEventLoopGroup.singleton
        try await Self.loopReport(server: .http1OnConnectionLoops(group: group, connections: ConnectionSettings()), group: group).test(.live) { client in
            for _ in 0..<4 {
                try await client.execute(uri: "/loop", method: .get) { response in
                    #expect(String(buffer: response.body) == "own loop")
                }
            }
        }
        // The control: the same route behind the plain builder runs off the loops, so the check above can fail.
        try await Self.loopReport(server: .http1(), group: group).test(.live) { client in
            try await client.execute(uri: "/loop", method: .get) { response in
                #expect(String(buffer: response.body) == "pool")
            }
        }
    }
}
