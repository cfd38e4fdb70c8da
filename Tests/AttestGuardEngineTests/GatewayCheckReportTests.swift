@testable import AttestGuardEngine
import AttestGuardStore
import AttestVocabulary
import Foundation
import Testing

/// The console's rollout counts: what `require` would refuse on a route is every answer but those that showed what
/// it asks for (a verified assertion, or a debug token of an app that accepts them) and passed the verdict.
@Suite("Gateway check report")
struct GatewayCheckReportTests {
    @Test("verified assertions and debug tokens that passed satisfy require; everything else would be refused")
    func refusedUnderRequire() {
        func count(_ outcome: GatewayCheckOutcome, passed: Bool, _ count: Int64) -> GatewayCheckCount {
            GatewayCheckCount(appId: "A", route: "/api/promos/claim", outcome: outcome.rawValue, passed: passed, bucketStart: 0, count: count)
        }
        let report = GatewayCheckReport(
            appId: "A", from: Date(timeIntervalSince1970: 0), to: Date(timeIntervalSince1970: 300),
            counts: [
                count(.verified, passed: true, 5), count(.debug, passed: true, 3), count(.denied, passed: false, 1), count(.token, passed: true, 2),
                count(.unattested, passed: true, 4), count(.debug, passed: false, 1),
            ],
            truncated: false
        )
        let route = report.routes.first
        #expect(route?.total == 16)
        #expect(route?.refusedUnderRequire == 8)
        #expect(route?.outcomes[GatewayCheckOutcome.debug.rawValue] == 4)
    }
}
