import AttestGuardEngine

extension ReceiptRefreshSettings {
    /// Reads `receipts.refresh.*`: the scheduler's pacing. Whether `serve` refreshes at all
    /// (`receipts.refresh.enabled`) is the server's setting, read beside it.
    init(reading values: ConfigValues) throws {
        self.init(
            refreshInterval: .seconds(try values.int("intervalHours", default: 20, range: 1...2_000) * 3_600),
            firstRedemptionDelay: .seconds(try values.int("firstRedemptionDelaySeconds", default: 60, range: 0...86_400)),
            leaseDuration: .seconds(try values.int("leaseSeconds", default: 120, range: 1...3_600)),
            concurrency: try values.int("concurrency", default: 32, range: 1...1_024),
            leaseBatchSize: try values.int("leaseBatchSize", default: 64, range: 1...10_000),
            maximumAttempts: try values.int("maxAttempts", default: 6, range: 1...100),
            requestsPerSecond: [
                .production: Double(try values.int("productionRequestsPerSecond", default: 500, range: 0...1_000_000)),
                .development: Double(try values.int("developmentRequestsPerSecond", default: 100, range: 0...1_000_000)),
            ],
            pollInterval: .seconds(try values.int("pollSeconds", default: 5, range: 1...3_600)),
            dormantAfter: try Self.dormantAfter(days: values.int("dormantAfterDays", default: 30, range: 0...3_650))
        )
    }

    /// `receipts.refresh.dormantAfterDays`: 0 refreshes every active key for ever.
    private static func dormantAfter(days: Int) -> Duration? {
        days == 0 ? nil : .seconds(days * 86_400)
    }
}
