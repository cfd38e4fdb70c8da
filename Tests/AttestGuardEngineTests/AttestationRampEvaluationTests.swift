import AttestGuardEngine
import AttestGuardStore
import Foundation
import Testing

/// The ramp's arithmetic: one period's outcomes to the next percentage and state.
struct AttestationRampEvaluationTests {
    static let ramp = AttestationRamp(startPercent: 1, factor: 2, period: 86_400, minimumSuccessRate: 0.95, maximumRateLimitedShare: 0.05, minimumAttempts: 100)

    static func outcome(attested: Int64, failed: Int64 = 0, rateLimited: Int64 = 0, unsupported: Int64 = 0, accepted: Int64) -> AttestationPeriodOutcome {
        AttestationPeriodOutcome(AttestationOutcomeCounts([
            .attested: attested, .failed: failed, .rateLimited: rateLimited, .unsupported: unsupported, .accepted: accepted,
        ]))
    }

    @Test func successesAreAcceptedKeysAtMostTheReportsAndUnsupportedIsLeftOut() {
        let period = Self.outcome(attested: 95, failed: 3, rateLimited: 2, unsupported: 40, accepted: 97)
        #expect(period.attempts == 100 && period.successes == 95 && period.rateLimited == 2)
        #expect(period.successRate == 0.95 && period.rateLimitedShare == 0.02)
        #expect(Self.outcome(attested: 95, accepted: 90).successes == 90)
        #expect(Self.outcome(attested: 0, accepted: 0).successRate == 0)
    }

    @Test func doublesHoldsPausesAndStopsAt100() {
        let good = Self.outcome(attested: 100, accepted: 100)
        var percent = 1
        var state = AttestationRampState.ramping
        var seen: [Int] = []
        for _ in 0..<10 {
            guard let next = Self.ramp.evaluate(percent: percent, state: state, outcome: good) else { break }
            (percent, state) = (next.percent, next.state)
            seen.append(percent)
        }
        #expect(seen == [2, 4, 8, 16, 32, 64, 100])
        #expect(Self.ramp.evaluate(percent: 64, state: .ramping, outcome: good)! == (100, .complete, .complete))
        #expect(Self.ramp.evaluate(percent: 100, state: .complete, outcome: good) == nil)
        // 94 % success: hold; 99 attempts: hold however good; 6 % rate limited: pause, before success is weighed.
        #expect(Self.ramp.evaluate(percent: 8, state: .ramping, outcome: Self.outcome(attested: 100, failed: 6, accepted: 100))! == (8, .holding, .hold))
        #expect(Self.ramp.evaluate(percent: 8, state: .ramping, outcome: Self.outcome(attested: 99, accepted: 99))! == (8, .holding, .hold))
        #expect(Self.ramp.evaluate(percent: 8, state: .holding, outcome: Self.outcome(attested: 94, rateLimited: 6, accepted: 94))! == (8, .paused, .pause))
        #expect(Self.ramp.evaluate(percent: 8, state: .paused, outcome: good) == nil)
        // A holding ramp steps again on a good period; a factor that rounds still moves by one at least.
        #expect(Self.ramp.evaluate(percent: 8, state: .holding, outcome: good)! == (16, .ramping, .step))
        #expect(AttestationRamp(factor: 1.1).stepped(from: 3) == 4)
    }

    @Test func periodsAlignToMultiplesOfThePeriod() {
        let ramp = AttestationRamp(period: 86_400)
        #expect(ramp.periodStart(of: Date(timeIntervalSince1970: 1_795_435_200)) == 1_795_392_000)
        #expect(ramp.periodStart(of: Date(timeIntervalSince1970: 1_795_392_000)) == 1_795_392_000)
    }
}
