public import AttestVocabulary

/// Every signal the rule language knows, in one place: the fixed signals, the velocity family
/// `velocity.<event>.<per>.<window>`, the distinct counts `distinct.<counted>.<per>.<window>` and the custom attributes a rule set declares (`attributes.<name>`).
/// The signal table of `docs/reference/signals.md` and `attestguard rules signals` are printed from here.
public enum SignalSchema {
    /// Events counted for velocity.
    public static let velocityEvents: [(name: String, summary: String)] = VelocityEvent.allCases.map { event in
        switch event {
        case .attestations: (event.rawValue, "attestations submitted (verified or not)")
        case .assertions: (event.rawValue, "assertions verified")
        case .failedVerifications: (event.rawValue, "attestations and assertions that failed a check; per key only those the key signed")
        case .scoreRequests: (event.rawValue, "score requests")
        case .newKeys: (event.rawValue, "keys registered")
        }
    }

    /// What velocity counts are kept per.
    public static let velocityDimensions: [(name: String, summary: String)] = VelocityDimension.allCases.map { dimension in
        switch dimension {
        case .key: (dimension.rawValue, "the App Attest key")
        case .user: (dimension.rawValue, "the user id (a keyed hash)")
        case .device: (dimension.rawValue, "the device id the caller passes")
        case .ip: (dimension.rawValue, "the client IP (a keyed hash)")
        }
    }

    /// The shortest and longest velocity windows, in seconds; windows are whole minutes.
    public static let velocityWindowRange: ClosedRange<Double> =
        Double(SignalWindow.secondsRange.lowerBound)...Double(SignalWindow.secondsRange.upperBound)

    /// The signals that do not depend on the rule set.
    public static let fixed: [SignalDefinition] = [
        SignalDefinition(.keyStatus, .string, .key, "`active`, `superseded`, `revoked`, or `unknown` when the key id is not registered to this app; missing without a key id"),
        SignalDefinition(.keyKind, .string, .key, "what stood for a key in the request: `attested` (an App Attest key id: an assertion, a session token issued for one, or a `keyId` on `POST /v1/score`, registered or not: read `key.status` for that) or `debug` (a debug token an admin made for the Simulator or CI: no device was attested); missing when the request shows neither"),
        SignalDefinition(.keyDebugToken, .string, .key, "the id of the debug token that stood for a key (`dbg_…`); missing otherwise"),
        SignalDefinition(.keyEnvironment, .string, .key, "`production` or `development`"),
        SignalDefinition(.keyAttestedAt, .timestamp, .key, "when the key was attested"),
        SignalDefinition(.keyAge, .duration, .key, "time since attestation"),
        SignalDefinition(.keyCounter, .number, .key, "the last accepted assertion counter (0 before any assertion)"),
        SignalDefinition(.keyLastAssertionAt, .timestamp, .key, "when the key's last assertion was accepted; missing before the first"),
        SignalDefinition(.keyLastAssertionAge, .duration, .key, "time since the last accepted assertion; missing before the first"),
        SignalDefinition(.keyCounterJump, .number, .key, "for an assertion, its counter minus the key's previous counter (1 when every assertion reached the server); missing otherwise"),
        SignalDefinition(.keySupersededKeys, .number, .key, "earlier keys of this user on this device that this one superseded"),
        SignalDefinition(.keyValidationCategory, .string, .key, "how the app that attested the key was distributed, from iOS 27's extension map (names as `request.validation_category`); missing for keys attested before iOS 27"),
        SignalDefinition(.keyBundleVersion, .string, .key, "the bundle version of the app that attested the key, from iOS 27's extension map; missing for keys attested before iOS 27"),
        SignalDefinition(.keyOsVersion, .string, .key, "the OS version the device ran when the key was attested (`27.0`; from Apple's credential certificate); missing if Apple wrote none"),
        SignalDefinition(.receiptRiskMetric, .number, .receipt, "Apple's risk metric: keys attested on this device in 30 days; missing until the first redemption"),
        SignalDefinition(.receiptRiskMetricChange7d, .number, .receipt, "the risk metric now minus the metric observed 7 or more days ago; missing without such history"),
        SignalDefinition(.receiptRefreshedAt, .timestamp, .receipt, "when the receipt was last redeemed; missing before the first redemption"),
        SignalDefinition(.receiptRefreshAge, .duration, .receipt, "time since the last redemption; missing before the first"),
        SignalDefinition(.receiptStale, .bool, .receipt, "Apple had no data for the receipt at the last attempt (404), so the metric is old"),
        SignalDefinition(.receiptType, .string, .receipt, "`ATTEST` (never redeemed) or `RECEIPT`"),
        SignalDefinition(.receiptRiskMetricPercentile, .number, .receipt, "0-100: the share, in percent, of the app's active keys in its latest baseline whose risk metric is at or below this key's (so `>= 99` exactly when the metric is at or above `app.risk_metric.p99`); missing without a metric or a baseline"),
        SignalDefinition(.appRiskMetricP50, .number, .app, "the median risk metric of the app's active keys in its latest daily baseline (nearest rank: the metric at rank ⌈0.5 × N⌉ of the N ordered metrics); missing before the first baseline"),
        SignalDefinition(.appRiskMetricP90, .number, .app, "the 90th percentile (nearest rank) of the app's latest baseline; missing before the first"),
        SignalDefinition(.appRiskMetricP99, .number, .app, "the 99th percentile (nearest rank) of the app's latest baseline; missing before the first"),
        SignalDefinition(.devicecheckBit0, .bool, .devicecheck, "DeviceCheck bit 0 stored for this key, user or device; missing if never queried or set"),
        SignalDefinition(.devicecheckBit1, .bool, .devicecheck, "DeviceCheck bit 1, as bit0"),
        SignalDefinition(.devicecheckUpdatedAt, .timestamp, .devicecheck, "Apple's last_update_time of the bits (month precision); missing if Apple has none"),
        SignalDefinition(.devicecheckAge, .duration, .devicecheck, "time since devicecheck.updated_at"),
        SignalDefinition(.devicecheckValidatedAt, .timestamp, .devicecheck, "when the user's device last passed Apple's DeviceCheck validation in this app (`POST /v1/app/devicecheck`); missing if never, or without a user id"),
        SignalDefinition(.devicecheckValidatedAge, .duration, .devicecheck, "time since devicecheck.validated_at; missing when it is"),
        SignalDefinition(.labelKey, .string, .label, "`fraud` or `legitimate`: the fraud team's label of the request's key (`POST /v1/labels`, `attestguard labels import`), as it stands now; of several sources' labels the latest applies (`fraud` on a tie); missing without a key or a label"),
        SignalDefinition(.labelKeyAge, .duration, .label, "time since that label's `labelledAt`; missing with it"),
        SignalDefinition(.labelUser, .string, .label, "the label of the request's user, as `label.key`; missing without a user id or a label"),
        SignalDefinition(.labelUserAge, .duration, .label, "time since the user's label; missing with it"),
        SignalDefinition(.labelDevice, .string, .label, "the label of the request's device id (the `deviceId` the caller passes), as `label.key`; missing without a device id or a label"),
        SignalDefinition(.labelDeviceAge, .duration, .label, "time since the device's label; missing with it"),
        SignalDefinition(.requestAppId, .string, .request, "the app id"),
        SignalDefinition(.requestEndpoint, .string, .request, "`score`, `assertion` or `attestation`: what asked for the verdict"),
        SignalDefinition(.requestAction, .string, .request, "what the gateway says the request does (`claim_promo`, `purchase`, ...); missing if not given"),
        SignalDefinition(.requestUserId, .string, .request, "the user id; missing if not given"),
        SignalDefinition(.requestIp, .string, .request, "the client IP, canonical (IPv4-mapped IPv6 is IPv4; IPv6 in RFC 5952 text); missing if not given"),
        SignalDefinition(.requestDeviceId, .string, .request, "the device id the caller passes; missing if not given"),
        SignalDefinition(.requestBinding, .string, .request, "how the assertion is bound to the request: `v1`, `v1_without_body` (method and path only: the gateway could not hash the body), `legacy`, `session_token` (a session token on a `token` route stood for an assertion: the request is not signed), `debug_token` (a debug token stood for one: no device was attested), or `none` (no assertion)"),
        SignalDefinition(.requestAttestStatus, .string, .request, "the client's own App Attest status as the gateway reports it (`supported`, `unsupported`, `throttled`, `failed`, ...); missing if not given"),
        SignalDefinition(.requestValidationCategory, .string, .request, "how the app that signed this attestation or assertion was distributed, from iOS 27's extension map: `app_store`, `test_flight`, `development`, `enterprise`, `developer_id`, `local_signing`, `platform`, ... or `unknown(N)`; missing before iOS 27 and for `POST /v1/score`"),
        SignalDefinition(.requestBundleVersion, .string, .request, "the bundle version (`CFBundleVersion`) of the app that signed this attestation or assertion, from iOS 27's extension map; compare with `version_below(request.bundle_version, \"4.2\")`; missing before iOS 27 and for `POST /v1/score`"),
        SignalDefinition(.rolloutBucket, .number, .rollout, "0-99, a stable hash of app and user id; missing without a user id"),
        SignalDefinition(.rolloutAttestationRequired, .bool, .rollout, "the user falls inside the app's attestation-required percentage; missing without a user id"),
    ]

    private static let fixedByName: [String: SignalDefinition] = Dictionary(uniqueKeysWithValues: fixed.map { ($0.name, $0) })

    /// The `key.` signals the request itself says (what stood for a key), which need no read of the key.
    public static let keySignalsFromRequest: Set<String> = [FixedSignal.keyKind.rawValue, FixedSignal.keyDebugToken.rawValue]

    /// The signals every decision logs whether or not a rule reads them, so that a backtest of a new rule over them
    /// has values: the build an attestation or assertion came from (iOS 27's map, free to assemble) and, when the
    /// rules read the key anyway (`readsKey`), the build and OS version the key was attested from; a rule set that
    /// never reads the key does not pay a key read for them. What stood for the key (`key.kind`, `key.debug_token`)
    /// is the request's, so a debug token's decisions are always marked.
    static func loggedWithEveryDecision(readsKey: Bool) -> [SignalDefinition] {
        let request: [FixedSignal] = [.requestValidationCategory, .requestBundleVersion, .keyKind, .keyDebugToken]
        let key: [FixedSignal] = readsKey ? [.keyValidationCategory, .keyBundleVersion, .keyOsVersion] : []
        return (request + key).compactMap { fixedByName[$0.rawValue] }
    }

    /// Looks a name up: a fixed signal, a velocity signal with a valid event, dimension and window, or a declared
    /// attribute. The error's hint suggests the nearest known name.
    static func definition(of name: String, attributes: [String: SignalType]) -> Result<SignalDefinition, SignalLookupFailure> {
        if let fixed = fixedByName[name] { return .success(fixed) }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        switch parts.first {
        case "velocity": return velocity(parts, name: name)
        case "distinct": return distinct(parts, name: name)
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

    private static func distinct(_ parts: [String], name: String) -> Result<SignalDefinition, SignalLookupFailure> {
        let shape = "distinct.<counted>.<per>.<window>, e.g. distinct.users.device.24h"
        guard parts.count == 4 else {
            return .failure(SignalLookupFailure(message: "`\(name)` is not a distinct count", hint: shape))
        }
        let counted = VelocityDimension.allCases.map(\.plural)
        guard let countedDimension = VelocityDimension(plural: parts[1]) else {
            return .failure(SignalLookupFailure(
                message: "a distinct count cannot count `\(parts[1])`",
                hint: nearest(parts[1], in: counted).map { "did you mean `\($0)`?" } ?? "it counts \(counted.joined(separator: ", "))"
            ))
        }
        guard let per = VelocityDimension(rawValue: parts[2]) else {
            let dimensions = VelocityDimension.allCases.map(\.rawValue)
            return .failure(SignalLookupFailure(
                message: "distinct counts are not kept per `\(parts[2])`",
                hint: nearest(parts[2], in: dimensions).map { "did you mean `\($0)`?" } ?? "kept per \(dimensions.joined(separator: ", "))"
            ))
        }
        guard DistinctCount(counted: countedDimension, per: per) != nil else {
            return .failure(SignalLookupFailure(
                message: "`\(name)` counts \(parts[1]) per \(per.rawValue): always 1",
                hint: "count another subject per \(per.rawValue), e.g. distinct.\(per == .user ? "devices" : "users").\(per.rawValue).\(parts[3])"
            ))
        }
        guard let window = velocityWindow(parts[3]) else {
            return .failure(SignalLookupFailure(
                message: "`\(parts[3])` is not a distinct count's window",
                hint: "a whole number of minutes from 1m to 30d, written like 1m, 15m, 1h, 24h, 7d"
            ))
        }
        let summary = "distinct \(parts[1]) seen with this \(per.rawValue) in the last \(RuleValueFormat.duration(window))"
        return .success(SignalDefinition(name, .number, .distinct, summary))
    }

    /// What a valid `distinct.<counted>.<per>.<window>` name counts, and its window in seconds; `nil` for any other
    /// name.
    public static func distinctCount(named name: String) -> (count: DistinctCount, window: Double)? {
        let parts = name.split(separator: ".")
        guard parts.count == 4, parts[0] == "distinct", let counted = VelocityDimension(plural: parts[1]),
            let per = VelocityDimension(rawValue: String(parts[2])), let count = DistinctCount(counted: counted, per: per),
            let window = velocityWindow(String(parts[3]))
        else { return nil }
        return (count, window)
    }

    /// The window of a velocity segment (`15m`, `24h`, `7d`, `2w`) in seconds, if it is a whole number of minutes
    /// inside ``velocityWindowRange``.
    public static func velocityWindow(_ segment: String) -> Double? {
        SignalWindow(segment: segment).map { Double($0.seconds) }
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
