@testable import AttestGuardEngine
import Foundation
import Testing
@testable import TrafficSimulator

/// The simulator places its unattested users inside or outside the rollout with its own copy of the server's
/// bucket formula (it is a client of the wire, not of the engine): the two agree for every user.
struct RolloutPlacementTests {
    @Test("the simulator's rollout bucket equals the engine's for 2,000 users of two apps")
    func bucketsAgree() {
        for appId in ["ABCDE12345.com.example.attestguard", "TEAM123456.org.example.shop"] {
            for index in 0..<1_000 {
                let userId = index % 3 == 0 ? "user-\(index)" : "demo-\(index)-ü-\(index * 7)"
                #expect(UnattestedClients.bucket(appId: appId, userId: userId) == RolloutBucket.of(appId: appId, userId: userId))
            }
        }
    }
}
