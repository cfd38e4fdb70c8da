import AttestVocabulary
import Foundation
import RiskRules
import Synchronization

/// What assembling one rule set's signals takes, worked out once per rule-set version rather than per request:
/// which store facts the rules read, and which velocity sums and distinct counts (parsed from their signal names).
struct AssemblyPlan: Sendable {
    /// A `velocity.<event>.<per>.<window>` signal the rules read.
    struct VelocityRead: Sendable {
        var name: String
        /// The signal's slot in the values of the layout the plan was made from.
        var slot: SignalLayout.Slot
        var event: VelocityEvent
        var dimension: VelocityDimension
        var window: TimeInterval
    }

    /// A `distinct.<counted>.<per>.<window>` signal the rules read.
    struct DistinctRead: Sendable {
        var name: String
        /// The signal's slot in the values of the layout the plan was made from.
        var slot: SignalLayout.Slot
        var count: DistinctCount
        var window: TimeInterval
    }

    var key = false
    var receipt = false
    var history = false
    /// Stored DeviceCheck bits (`devicecheck.bit0`, ...).
    var deviceCheck = false
    /// The user's latest DeviceCheck validation (`devicecheck.validated_at`, `devicecheck.validated_age`).
    var deviceCheckValidation = false
    var superseded = false
    /// The fraud team's labels of the request's key, user and device (`label.*`).
    var labels = false
    var velocity: [VelocityRead] = []
    var distinct: [DistinctRead] = []
    /// The JSON keys of the layout's signals, for writing a verdict's signals.
    let signalKeys: SignalKeys

    init(_ layout: SignalLayout) {
        signalKeys = SignalKeys(names: layout.names)
        for name in layout.names {
            if name.hasPrefix("key."), !SignalSchema.keySignalsFromRequest.contains(name) { key = true }
            if name.hasPrefix("receipt.") { key = true; receipt = true }
            if name == FixedSignal.receiptRiskMetricChange7d.rawValue { history = true }
            if Self.validationSignals.contains(name) {
                deviceCheckValidation = true
            } else if name.hasPrefix("devicecheck.") {
                deviceCheck = true
            }
            if name == FixedSignal.keySupersededKeys.rawValue { superseded = true }
            if name.hasPrefix("label.") { labels = true }
            if name.hasPrefix("velocity.") {
                let parts = name.split(separator: ".").map(String.init)
                guard parts.count == 4, let event = VelocityEvent(rawValue: parts[1]),
                    let dimension = VelocityDimension(rawValue: parts[2]), let window = SignalSchema.velocityWindow(parts[3]),
                    let slot = layout.slots[name]
                else { continue }
                velocity.append(VelocityRead(name: name, slot: slot, event: event, dimension: dimension, window: window))
            }
            if let read = SignalSchema.distinctCount(named: name), let slot = layout.slots[name] {
                distinct.append(DistinctRead(name: name, slot: slot, count: read.count, window: read.window))
            }
        }
    }

    /// The `devicecheck.` signals read from the user's validation rather than from stored bits.
    static let validationSignals: Set<String> = [FixedSignal.devicecheckValidatedAt.rawValue, FixedSignal.devicecheckValidatedAge.rawValue]
}

/// The plans of the rule sets in use (the live set, a shadow set, the previous set for a moment after a reload),
/// by their layouts' identity: a plan holds slots of one layout.
final class AssemblyPlanCache: Sendable {
    private let plans = Mutex<[Int: AssemblyPlan]>([:])

    func plan(for ruleSet: RuleSet) -> AssemblyPlan {
        let layout = ruleSet.layout.identity
        if let plan = plans.withLock({ $0[layout] }) { return plan }
        let plan = AssemblyPlan(ruleSet.layout)
        plans.withLock { plans in
            if plans.count >= 8 { plans.removeAll() }
            plans[layout] = plan
        }
        return plan
    }
}
