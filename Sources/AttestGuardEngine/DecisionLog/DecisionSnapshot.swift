import AttestVocabulary
import AttestCore
import Foundation
import RiskRules

/// The signal snapshot a decision is logged with: every signal the rule set read, as JSON (numbers, durations in
/// seconds and timestamps in seconds since 1970 as numbers; strings; booleans; `null` when missing), except the
/// raw identifiers the contract keeps out of the log (`request.user_id`, `request.ip`, `request.device_id`),
/// which a backtest therefore sees as missing.
///
/// Written by hand (``JSONText``), keys sorted by their UTF-8 bytes: it runs on every verdict, and
/// `JSONSerialization`'s sorted keys compare through a locale-aware collator, which would make this the costliest
/// step of a score request.
enum DecisionSnapshot {
    /// Raw identifiers the log never keeps (the contract keeps only keyed hashes of them).
    static let excluded = [FixedSignal.requestUserId, .requestIp, .requestDeviceId].map(\.rawValue)

    /// `signals` sorted by name, as ``RiskScorer/Outcome/signalList`` has them, with their ``SignalKeys`` when known.
    static func json(_ signals: [SignalEntry], keys: SignalKeys? = nil) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(32 * signals.count + 2)
        JSONText.appendSignals(signals, keys: keys, excluding: excluded, timestamps: .secondsSince1970, to: &output)
        return String(decoding: output, as: UTF8.self)
    }
}
