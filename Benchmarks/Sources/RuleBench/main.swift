import Foundation
import RiskRules

// RuleBench: single-core throughput of the rule evaluator on a rule set (default: the shipped Rules/).
// A pool of request signal sets (honest devices, farms, promo claims, bursts, clients without App Attest, and
// requests with most signals missing) is filled once; the timed loop evaluates them round-robin with
// RuleSet.evaluate (every rule, score, decision, rendered reasons of the fired rules) and checks each decision
// against the one computed before timing, so a wrong fast path cannot be measured.
//
// Usage: RuleBench [--rules DIR] [--seconds S] [--runs N]

let arguments = CommandLine.arguments
func option(_ name: String, _ fallback: String) -> String {
    guard let index = arguments.firstIndex(of: "--\(name)"), index + 1 < arguments.count else { return fallback }
    return arguments[index + 1]
}
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
let rulesDirectory = option("rules", packageRoot.appendingPathComponent("Rules").path)
let seconds = Double(option("seconds", "3")) ?? 3
let runs = Int(option("runs", "3")) ?? 3

let ruleSet: RuleSet
do {
    ruleSet = try RuleSetLoader.load(directory: rulesDirectory)
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
}

let now = 1_767_225_600.0
/// Request shapes, each a list of signal values; anything not listed is missing.
let shapes: [[String: SignalValue]] = [
    ["key.status": .string("active"), "key.age": .duration(20 * 86_400), "receipt.risk_metric": .number(1),
     "receipt.refresh_age": .duration(3_600), "receipt.stale": .bool(false), "velocity.assertions.key.1m": .number(1),
     "velocity.assertions.key.1h": .number(5), "request.action": .string("purchase"), "request.user_id": .string("u1")],
    ["key.status": .string("active"), "receipt.risk_metric": .number(17), "receipt.risk_metric_change_7d": .number(9),
     "request.user_id": .string("u2"), "velocity.new_keys.user.24h": .number(4)],
    ["key.status": .string("active"), "receipt.risk_metric": .number(1), "request.action": .string("claim_promo"),
     "devicecheck.bit0": .bool(true), "devicecheck.bit1": .bool(false), "devicecheck.age": .duration(40 * 86_400)],
    ["key.status": .string("active"), "velocity.assertions.key.1m": .number(50), "velocity.assertions.key.1h": .number(400),
     "velocity.failed_verifications.key.1h": .number(7), "key.counter_jump": .number(250)],
    ["request.attest_status": .string("unsupported"), "rollout.attestation_required": .bool(true), "rollout.bucket": .number(12),
     "request.user_id": .string("u3")],
    [:],
]
let pool: [SignalValues] = (0..<64).map { index in
    let values = ruleSet.values(now: now)
    for (name, value) in shapes[index % shapes.count] { values.set(name, value) }
    return values
}
let expected = pool.map { ruleSet.evaluate($0).decision }

print("RuleBench: \(rulesDirectory): \(ruleSet.rules.count) rules reading \(ruleSet.layout.names.count) signals, version \(ruleSet.version)")
print("pool of \(pool.count) requests (\(shapes.count) shapes, decisions \(Dictionary(grouping: expected, by: \.rawValue).mapValues(\.count).sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")))")
print("")
print("| run | requests evaluated/s | rule evaluations/s | ns per request |")
print("|----:|---------------------:|-------------------:|---------------:|")
var best = 0.0
for run in 1...runs {
    var count = 0
    var mismatches = 0
    let clock = ContinuousClock()
    let start = clock.now
    let deadline = start + .milliseconds(Int64(seconds * 1000))
    while clock.now < deadline {
        for index in 0..<pool.count where ruleSet.evaluate(pool[index]).decision != expected[index] {
            mismatches += 1
        }
        count += pool.count
    }
    let elapsed = (clock.now - start)
    let secondsTaken = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    guard mismatches == 0 else {
        FileHandle.standardError.write(Data("\(mismatches) evaluations gave another decision than before timing\n".utf8))
        exit(1)
    }
    let rate = Double(count) / secondsTaken
    best = max(best, rate)
    print(String(format: "| %3d | %20.0f | %18.0f | %14.0f |", run, rate, rate * Double(ruleSet.rules.count), 1e9 / rate))
}
print("")
print(String(format: "best: %.0f requests/s x %d rules = %.0f rule evaluations/s on one core (goal >= 1,000,000: %@)",
             best, ruleSet.rules.count, best * Double(ruleSet.rules.count), best * Double(ruleSet.rules.count) >= 1_000_000 ? "MET" : "NOT MET"))
