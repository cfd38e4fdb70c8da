import AttestGuardEngine

extension AttestationRamp {
    /// The keys under `apps.<app>.ramp`.
    static let keys = ["enabled", "startPercent", "factor", "periodSeconds", "minimumSuccessRate", "maximumRateLimitedShare", "minimumAttempts"]

    /// Reads one app's ramp (`apps.<app>.ramp.*`): nil when no ramp key is set or `enabled` is false; a ramp of
    /// defaults for `enabled: true` alone.
    static func reading(_ values: ConfigValues) throws -> AttestationRamp? {
        let settingKeys = keys.dropFirst().filter { values.string($0) != nil }
        guard try values.bool("enabled", default: !settingKeys.isEmpty) else { return nil }
        return AttestationRamp(
            startPercent: try values.int("startPercent", default: defaultStartPercent, range: 1...100),
            factor: try values.decimal("factor", default: defaultFactor, range: 1.01...100),
            period: Int64(try values.int("periodSeconds", default: Int(defaultPeriod), range: 60...2_592_000)),
            minimumSuccessRate: try values.decimal("minimumSuccessRate", default: defaultMinimumSuccessRate, range: 0...1),
            maximumRateLimitedShare: try values.decimal("maximumRateLimitedShare", default: defaultMaximumRateLimitedShare, range: 0...1),
            minimumAttempts: Int64(try values.int("minimumAttempts", default: Int(defaultMinimumAttempts), range: 1...1_000_000_000))
        )
    }
}

extension ConfigValues {
    /// A decimal number in `range`, or `value` when the key is not set.
    func decimal(_ key: String, default value: Double, range: ClosedRange<Double>) throws -> Double {
        guard let text = string(key) else { return value }
        guard let parsed = Double(text.trimmingCharacters(in: .whitespaces)), parsed.isFinite, range.contains(parsed) else {
            return try report(ConfigurationError(key: path(key), "must be a number in \(range.lowerBound)...\(range.upperBound), got \(text)"), instead: value)
        }
        return parsed
    }
}
