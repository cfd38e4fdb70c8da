import FakeApple
import Testing

struct FakeAppleScenarioTests {
    @Test func testOverridesWinAndFarmFractionIsStable() {
        let scenario = FakeAppleScenario(defaultRiskMetric: 2, riskMetricOverrides: ["pinned": 9], farmFraction: 0.2, farmRiskMetric: 55)
        #expect(scenario.riskMetric(forToken: "pinned") == 9)
        let tokens = (0..<1000).map { "token-\($0)" }
        let farmed = tokens.filter { scenario.isFarmed(token: $0) }
        #expect((150...250).contains(farmed.count))
        for token in tokens {
            #expect(scenario.riskMetric(forToken: token) == (farmed.contains(token) ? 55 : 2))
        }
        #expect(FakeAppleScenario(defaultRiskMetric: 2, farmFraction: 0.2).isFarmed(token: farmed[0]))
        #expect(!FakeAppleScenario(seed: "other", farmFraction: 0).isFarmed(token: farmed[0]))
    }

    @Test func testFaultsAreDeterministicPerKeyAndAttempt() {
        let faults = FakeAppleFaults(throttleRate: 0.25, serverErrorRate: 0.25)
        let first = (0..<40).map { faults.fault(forKey: "k", attempt: $0) }
        let again = (0..<40).map { faults.fault(forKey: "k", attempt: $0) }
        #expect(first == again)
        #expect(first.contains(.throttled))
        #expect(first.contains(.serverError))
        #expect(first.contains(nil))
        #expect(FakeAppleFaults.none.fault(forKey: "k", attempt: 0) == nil)
        #expect(FakeAppleFaults(dropRate: 1).fault(forKey: "k", attempt: 3) == .dropped)
    }
}
