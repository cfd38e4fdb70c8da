public import AttestGuardStore
import Foundation

/// The console's aggregates over the store: an app's verdicts over a range and its keys' risk metrics. Each read
/// names one app, covers at most ``ConsoleRange/week`` and reads a bounded number of rows, so a page costs the same
/// whatever the log holds; what was left out is said on the page.
public struct ConsoleReports: Sendable {
    /// The most verdicts one page counts (the newest of its range).
    public static let maximumVerdicts = 50_000
    /// The most keys the risk-metric distribution counts.
    public static let maximumKeys = 100_000

    let store: any RiskStore
    let apps: AppCatalog
    let clock: any EngineClock

    public init(store: any RiskStore, apps: AppCatalog, clock: any EngineClock) {
        self.store = store
        self.apps = apps
        self.clock = clock
    }

    /// The app's verdicts over `range`, ending with the current bucket.
    /// - Throws: `invalid_field`, `app_not_found`, `store_unavailable`.
    public func verdicts(appId: String, range: ConsoleRange) async throws -> VerdictReport {
        let app = try apps.policy(for: appId)
        let (from, to) = range.window(endingAt: clock.now())
        let limit = Self.maximumVerdicts
        let samples = try await withStore { try await store.verdictSample(appId: appId, from: from, to: to, limit: limit + 1) }
        return VerdictReport(
            appId: appId, range: range, from: from, to: to, samples: samples, limit: limit,
            attestationRequiredPercent: app.attestationRequiredPercent
        )
    }

    /// The most rows (route × outcome × result) the forward-auth report reads.
    public static let maximumGatewayCheckRows = 5_000

    /// The app's forward-auth answers per protected route over `range`, every process's (each adds its counts
    /// every second: the newest second may be missing).
    /// - Throws: `invalid_field`, `app_not_found`, `store_unavailable`.
    public func gatewayChecks(appId: String, range: ConsoleRange) async throws -> GatewayCheckReport {
        _ = try apps.policy(for: appId)
        let (from, to) = range.window(endingAt: clock.now())
        let limit = Self.maximumGatewayCheckRows
        let counts = try await withStore {
            try await store.gatewayChecks(
                appId: appId, from: GatewayCheckCount.bucketStart(of: from), to: GatewayCheckCount.bucketStart(of: to), limit: limit + 1
            )
        }
        return GatewayCheckReport(appId: appId, from: from, to: to, counts: Array(counts.prefix(limit)), truncated: counts.count > limit)
    }

    /// How the app's active keys spread over the risk metric.
    /// - Throws: `invalid_field`, `app_not_found`, `store_unavailable`.
    public func riskMetrics(appId: String) async throws -> RiskMetricReport {
        _ = try apps.policy(for: appId)
        let counts = try await withStore { try await store.riskMetricCounts(appId: appId, limit: Self.maximumKeys) }
        return RiskMetricReport(appId: appId, counts: counts, limit: Self.maximumKeys)
    }
}
