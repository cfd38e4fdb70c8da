import AttestTestSupport
import Foundation
@testable import AttestGuardStore
import Testing

@Suite("Forward-auth answers counted in the store")
struct GatewayCheckStoreTests {
    static let appId = "ABCDE12345.com.example.app"

    static func count(_ route: String, _ outcome: String, passed: Bool, bucket: Int64, _ count: Int64, app: String = appId) -> GatewayCheckCount {
        GatewayCheckCount(appId: app, route: route, outcome: outcome, passed: passed, bucketStart: bucket, count: count)
    }

    @Test("batches add to their buckets atomically, duplicates in a batch merge; reads sum a range of one app", arguments: StoreBackend.available)
    func counts(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            // Twenty writers at once, each batch naming its rows in another order and one row twice.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<20 {
                    group.addTask {
                        var batch = [
                            Self.count("/api/promos/**", "verified", passed: true, bucket: 600, 2),
                            Self.count("/api/promos/**", "missing", passed: false, bucket: 600, 1),
                            Self.count("/api/promos/**", "missing", passed: false, bucket: 600, 1),
                            Self.count("default", "unattested", passed: true, bucket: 900, 1),
                        ]
                        if index.isMultiple(of: 2) { batch.reverse() }
                        try await store.addGatewayChecks(batch)
                    }
                }
                try await group.waitForAll()
            }
            try await store.addGatewayChecks([
                Self.count("/api/promos/**", "verified", passed: true, bucket: 1_200, 5),
                Self.count("/api/promos/**", "verified", passed: true, bucket: 600, 7, app: "ABCDE12345.com.example.other"),
            ])
            let all = try await store.gatewayChecks(appId: Self.appId, from: 0, to: 1_500, limit: 100)
            #expect(all == [
                Self.count("/api/promos/**", "missing", passed: false, bucket: 0, 40),
                Self.count("/api/promos/**", "verified", passed: true, bucket: 0, 45),
                Self.count("default", "unattested", passed: true, bucket: 0, 20),
            ])
            // The range is half-open on bucket starts.
            let middle = try await store.gatewayChecks(appId: Self.appId, from: 900, to: 1_200, limit: 100)
            #expect(middle == [Self.count("default", "unattested", passed: true, bucket: 900, 20)])
            #expect(try await store.gatewayChecks(appId: Self.appId, from: 0, to: 1_500, limit: 2).count == 2)
            #expect(try await store.gatewayChecks(appId: "ABCDE12345.com.example.none", from: 0, to: 1_500, limit: 100).isEmpty)

            #expect(try await store.purgeGatewayChecks(before: 900) == 3, "the app's two bucket-600 rows and the other app's")
            let kept = try await store.gatewayChecks(appId: Self.appId, from: 0, to: 1_500, limit: 100)
            #expect(kept.map(\.count) == [5, 20])
        }
    }

    @Test("a bucket starts at a multiple of five minutes, before 1970 too")
    func buckets() {
        #expect(GatewayCheckCount.bucketStart(of: Date(timeIntervalSince1970: 1_799.9)) == 1_500)
        #expect(GatewayCheckCount.bucketStart(of: Date(timeIntervalSince1970: 1_800)) == 1_800)
        #expect(GatewayCheckCount.bucketStart(of: Date(timeIntervalSince1970: -1)) == -300)
    }
}
