/// Every signal the rule language knows, in one place: the fixed signals, the velocity family
/// `velocity.<event>.<per>.<window>` and the custom attributes a rule set declares (`attributes.<name>`).
/// The README's signal table and `attestguard rules signals` are printed from here.
public enum SignalSchema {
    /// Events counted for velocity.
    public static let velocityEvents: [(name: String, summary: String)] = [
        ("attestations", "attestations submitted (verified or not)"),
        ("assertions", "assertions verified"),
        ("failed_verifications", "attestations and assertions that failed a check"),
        ("score_requests", "score requests"),
        ("new_keys", "keys registered"),
    ]

    /// What velocity counts are kept per.
    public static let velocityDimensions: [(name: String, summary: String)] = [
        ("key", "the App Attest key"),
        ("user", "the user id (a keyed hash)"),
        ("device", "the device id the caller passes"),
        ("ip", "the client IP (a keyed hash)"),
    ]

    /// The shortest and longest velocity windows, in seconds; windows are whole minutes.
    public static let velocityWindowRange: ClosedRange<Double> = 60...(30 * 86_400)

    /// The signals that do not depend on the rule set.
    public static let fixed: [SignalDefinition] = [
        SignalDefinition("key.status", .string, .key, "`active`, `superseded`, `revoked`, or `unknown` when the key id is not registered to this app; missing without a key id"),
        SignalDefinition("key.environment", .string, .key, "`production` or `development`"),
        SignalDefinition("key.attested_at", .timestamp, .key, "when the key was attested"),
        SignalDefinition("key.age", .duration, .key, "time since attestation"),
        SignalDefinition("key.counter", .number, .key, "the last accepted assertion counter (0 before any assertion)"),
        SignalDefinition("key.last_assertion_at", .timestamp, .key, "when the key's last assertion was accepted; missing before the first"),
        SignalDefinition("key.last_assertion_age", .duration, .key, "time since the last accepted assertion; missing before the first"),
        SignalDefinition("key.counter_jump", .number, .key, "for an assertion, its counter minus the key's previous counter (1 when every assertion reached the server); missing otherwise"),
        SignalDefinition("key.superseded_keys", .number, .key, "earlier keys of this user on this device that this one superseded"),
        SignalDefinition("receipt.risk_metric", .number, .receipt, "Apple's risk metric: keys attested on this device in 30 days; missing until the first redemption"),
        SignalDefinition("receipt.risk_metric_change_7d", .number, .receipt, "the risk metric now minus the metric observed 7 or more days ago; missing without such history"),
        SignalDefinition("receipt.refreshed_at", .timestamp, .receipt, "when the receipt was last redeemed; missing before the first redemption"),
        SignalDefinition("receipt.refresh_age", .duration, .receipt, "time since the last redemption; missing before the first"),
        SignalDefinition("receipt.stale", .bool, .receipt, "Apple had no data for the receipt at the last attempt (404), so the metric is old"),
        SignalDefinition("receipt.type", .string, .receipt, "`ATTEST` (never redeemed) or `RECEIPT`"),
        SignalDefinition("devicecheck.bit0", .bool, .devicecheck, "DeviceCheck bit 0 stored for this key, user or device; missing if never queried or set"),
        SignalDefinition("devicecheck.bit1", .bool, .devicecheck, "DeviceCheck bit 1, as bit0"),
        SignalDefinition("devicecheck.updated_at", .timestamp, .devicecheck, "Apple's last_update_time of the bits (month precision); missing if Apple has none"),
        SignalDefinition("devicecheck.age", .duration, .devicecheck, "time since devicecheck.updated_at"),
        SignalDefinition("request.app_id", .string, .request, "the app id"),
        SignalDefinition("request.endpoint", .string, .request, "`score`, `assertion` or `attestation`: what asked for the verdict"),
        SignalDefinition("request.action", .string, .request, "what the gateway says the request does (`claim_promo`, `purchase`, ...); missing if not given"),
        SignalDefinition("request.user_id", .string, .request, "the user id; missing if not given"),
        SignalDefinition("request.ip", .string, .request, "the client IP; missing if not given"),
        SignalDefinition("request.device_id", .string, .request, "the device id the caller passes; missing if not given"),
        SignalDefinition("request.binding", .string, .request, "how the assertion is bound to the request: `v1`, `legacy`, or `none` (no assertion)"),
        SignalDefinition("request.attest_status", .string, .request, "the client's own App Attest status as the gateway reports it (`supported`, `unsupported`, `throttled`, `failed`, ...); missing if not given"),
        SignalDefinition("rollout.bucket", .number, .rollout, "0-99, a stable hash of app and user id; missing without a user id"),
        SignalDefinition("rollout.attestation_required", .bool, .rollout, "the user falls inside the app's attestation-required percentage; missing without a user id"),
    ]

    private static let fixedByName: [String: SignalDefinition] = Dictionary(uniqueKeysWithValues: fixed.map { ($0.name, $0) })

    /// Looks a name up: a fixed signal, a velocity signal with a valid event, dimension and window, or a declared
    /// attribute. The error's hint suggests the nearest known name.
    static func definition(of name: String, attributes: [String: SignalType]) -> Result<SignalDefinition, SignalLookupFailure> {
        if let fixed = fixedByName[name] { return .success(fixed) }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        switch parts.first {
        case "velocity": return velocity(parts, name: name)
        case "attributes":
            guard parts.count == 2, let type = attributes[parts[1]] else {
                let declared = attributes.keys.sorted().map { "attributes.\($0)" }
                return .failure(SignalLookupFailure(
                    message: "attribute `\(name)` is not declared",
                    hint: nearest(name, in: declared).map { "did you mean `\($0)`?" }
                        ?? "declare it under `attributes:` with its type (number, duration, timestamp, string, bool)"
                ))
            }
            return .success(SignalDefinition(name, type, .attributes, "a custom attribute from the gateway; missing if not sent"))
        default:
            let suggestion = nearest(name, in: fixed.map(\.name))
            return .failure(SignalLookupFailure(
                message: "unknown signal `\(name)`",
                hint: suggestion.map { "did you mean `\($0)`?" } ?? "`attestguard rules signals` lists every signal"
            ))
        }
    }

    private static func velocity(_ parts: [String], name: String) -> Result<SignalDefinition, SignalLookupFailure> {
        let shape = "velocity.<event>.<per>.<window>, e.g. velocity.assertions.key.1h"
        guard parts.count == 4 else {
            return .failure(SignalLookupFailure(message: "`\(name)` is not a velocity signal", hint: shape))
        }
        let events = velocityEvents.map(\.name)
        let dimensions = velocityDimensions.map(\.name)
        guard events.contains(parts[1]) else {
            return .failure(SignalLookupFailure(
                message: "unknown velocity event `\(parts[1])`",
                hint: nearest(parts[1], in: events).map { "did you mean `\($0)`?" } ?? "events: \(events.joined(separator: ", "))"
            ))
        }
        guard dimensions.contains(parts[2]) else {
            return .failure(SignalLookupFailure(
                message: "velocity is not counted per `\(parts[2])`",
                hint: "counted per \(dimensions.joined(separator: ", "))"
            ))
        }
        guard let window = velocityWindow(parts[3]) else {
            return .failure(SignalLookupFailure(
                message: "`\(parts[3])` is not a velocity window",
                hint: "a whole number of minutes from 1m to 30d, written like 1m, 15m, 1h, 24h, 7d"
            ))
        }
        let summary = "\(velocityEvents.first { $0.name == parts[1] }!.summary) for this \(parts[2]) in the last \(RuleValueFormat.duration(window))"
        return .success(SignalDefinition(name, .number, .velocity, summary))
    }

    /// The window of a velocity segment (`15m`, `24h`, `7d`, `2w`) in seconds, if it is a whole number of minutes
    /// inside ``velocityWindowRange``.
    public static func velocityWindow(_ segment: String) -> Double? {
        guard let unitCharacter = segment.last, let amount = Int(segment.dropLast()), amount > 0 else { return nil }
        let unit: Double
        switch unitCharacter {
        case "m": unit = 60
        case "h": unit = 3_600
        case "d": unit = 86_400
        case "w": unit = 604_800
        default: return nil
        }
        let seconds = Double(amount) * unit
        return velocityWindowRange.contains(seconds) ? seconds : nil
    }

    /// The candidate closest to `name` by edit distance, if it is close enough to be a typo.
    static func nearest(_ name: String, in candidates: [String]) -> String? {
        let scored = candidates.map { ($0, EditDistance.between(name, $0)) }.min { $0.1 < $1.1 }
        guard let (candidate, distance) = scored, distance <= max(2, name.count / 4) else { return nil }
        return candidate
    }
}

/// Why a signal name is not known, and a suggestion.
struct SignalLookupFailure: Error, Sendable {
    var message: String
    var hint: String?
}
