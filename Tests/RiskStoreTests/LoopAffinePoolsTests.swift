import AsyncDeadline
import AttestTestSupport
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import RiskStore
import Testing

@Suite("PostgreSQL: one pool per event loop")
struct LoopAffinePoolsTests {
    static func configuration(maximum: Int, minimum: Int) throws -> PostgresClient.Configuration {
        try PostgresStoreConfiguration(url: "postgres://u@127.0.0.1:1/db", maximumConnections: maximum, minimumConnections: minimum).client
    }

    @Test("the pool size is split between the loops, rounded up; below one per loop there is a single pool")
    func sizes() throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        defer { try? group.syncShutdownGracefully() }
        let split = LoopAffinePostgresPools(configuration: try Self.configuration(maximum: 5, minimum: 3), group: group, logger: TestStore.logger)
        #expect(split.all.count == 2)
        let single = LoopAffinePostgresPools(configuration: try Self.configuration(maximum: 1, minimum: 1), group: group, logger: TestStore.logger)
        #expect(single.all.count == 1)
        for loop in group.makeIterator() { #expect(single.pool(for: loop) === single.all[0]) }
    }

    @Test("on a loop, the loop's own pool; off the loops, the pools in turn")
    func choice() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let pools = LoopAffinePostgresPools(configuration: try Self.configuration(maximum: 4, minimum: 0), group: group, logger: TestStore.logger)
        for loop in group.makeIterator() {
            let own = try #require(pools.pool(for: loop))
            let chosen = try await loop.submit { pools.current }.get()
            #expect(chosen === own)
        }
        let offLoop = (0..<4).map { _ in ObjectIdentifier(pools.current) }
        #expect(Set(offLoop).count == 2)
        try await group.shutdownGracefully()
    }

    @Test("an operation run on a loop queries over a connection of that loop", .enabled(if: TestPostgres.isEnabled))
    func connectionsStayOnTheirLoop() async throws {
        let url = try await TestPostgres.freshSchemaURL()
        let store = PostgresRiskStore(configuration: try PostgresStoreConfiguration(url: url, maximumConnections: 4), logger: TestStore.logger)
        let runner = Task { try await store.run() }
        defer { runner.cancel() }
        for loop in MultiThreadedEventLoopGroup.singleton.makeIterator() {
            let (connectionLoop, resumedOnLoop) = try await withPreferredTaskExecutor(EventLoopTaskExecutor(loop)) {
                let client = store.client
                let connectionLoop = try await client.withConnection { connection in
                    _ = try await connection.query("SELECT 1")
                    return connection.eventLoop
                }
                return (connectionLoop, loop.inEventLoop)
            }
            #expect(connectionLoop === loop)
            #expect(resumedOnLoop)
        }
    }
}
