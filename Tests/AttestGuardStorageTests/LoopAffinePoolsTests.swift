import EventLoopConcurrency
import AttestTestSupport
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
@testable import AttestGuardStore
@testable import AttestGuardPostgres
import Testing

@Suite("PostgreSQL: one pool per event loop")
struct LoopAffinePoolsTests {
    static func configuration(maximum: Int, minimum: Int) throws -> PostgresClient.Configuration {
        try PostgresStoreConfiguration(url: "postgres://u@127.0.0.1:1/db", maximumConnections: maximum, minimumConnections: minimum).client
    }

    @Test("a size is split into parts that differ by at most one and add up to it")
    func split() {
        #expect(LoopAffinePostgresPools.split(16, among: 2) == [8, 8])
        #expect(LoopAffinePostgresPools.split(17, among: 2) == [9, 8])
        #expect(LoopAffinePostgresPools.split(16, among: 3) == [6, 5, 5])
        #expect(LoopAffinePostgresPools.split(0, among: 2) == [0, 0])
        #expect(LoopAffinePostgresPools.split(-1, among: 2) == [0, 0])
        for total in 0..<40 {
            for count in 1..<9 {
                let parts = LoopAffinePostgresPools.split(total, among: count)
                #expect(parts.count == count && parts.reduce(0, +) == total && parts.max()! - parts.min()! <= 1)
            }
        }
    }

    @Test("the pools' sizes add up to the configured ones; below 4 a loop, one pool for all loops")
    func sizes() throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        defer { try? group.syncShutdownGracefully() }
        let split = LoopAffinePostgresPools(configuration: try Self.configuration(maximum: 9, minimum: 3), group: group, logger: TestStore.logger)
        #expect(split.all.count == 2)
        for loop in group.makeIterator() { #expect(split.pool(for: loop) != nil) }
        let small = LoopAffinePostgresPools(configuration: try Self.configuration(maximum: 7, minimum: 7), group: group, logger: TestStore.logger)
        #expect(small.all.count == 1)
        for loop in group.makeIterator() { #expect(small.pool(for: loop) === small.all[0]) }
    }

    @Test("on a loop, the loop's own pool; off the loops, the pools in turn")
    func choice() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let pools = LoopAffinePostgresPools(configuration: try Self.configuration(maximum: 8, minimum: 0), group: group, logger: TestStore.logger)
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
        let loops = Array(MultiThreadedEventLoopGroup.singleton.makeIterator())
        let size = LoopAffinePostgresPools.minimumConnectionsPerLoop * loops.count
        let store = PostgresRiskStore(configuration: try PostgresStoreConfiguration(url: url, maximumConnections: size, operationTimeout: TestPostgres.operationTimeout), logger: TestStore.logger)
        let runner = Task { try await store.run() }
        defer { runner.cancel() }
        #expect(try await store.servingPools().all.count == loops.count)
        for loop in loops {
            let (connectionLoop, resumedOnLoop) = try await withPreferredTaskExecutor(EventLoopTaskExecutor(loop)) {
                let client = try await store.client()
                let connectionLoop = try await client.withConnection { connection in
                    _ = try await connection.query("SELECT 1", logger: TestStore.logger).collect()
                    return connection.eventLoop
                }
                return (connectionLoop, loop.inEventLoop)
            }
            #expect(connectionLoop === loop)
            #expect(resumedOnLoop)
        }
    }
}
