import AttestGuardEngine
import Foundation
import Hummingbird
import NIOCore
import Prometheus
import AttestGuardRuntime

/// Unauthenticated operational routes (bind the server to a private interface): liveness, readiness with the
/// version, the store and the schema, Prometheus metrics, and the OpenAPI document. With an operator listener the API
/// router gets liveness only (``register(on:including:)``) and the operator router all of them.
struct OperationsRoutes {
    let store: OpenedStore
    let mode: ServerConfiguration.Mode
    let registry: PrometheusCollectorRegistry
    /// Read at every scrape (nil off Linux).
    let process: ProcessMetrics?
    /// Read at every scrape (nil for SQLite).
    let storeMetrics: StoreMetrics?

    init(store: OpenedStore, mode: ServerConfiguration.Mode, registry: PrometheusCollectorRegistry) {
        self.store = store
        self.mode = mode
        self.registry = registry
        self.process = ProcessMetrics(registry: registry)
        self.storeMetrics = StoreMetrics(store: store, registry: registry)
    }

    /// `/healthz`'s answer, `{"status":"ok"}`, encoded once: the liveness probe and the benchmarks' yardstick costs no
    /// encoder.
    static let healthyBody: [UInt8] = Array(#"{"status":"ok"}"#.utf8)

    struct Readiness: Encodable {
        var status: String
        var version = AttestGuardVersion.version
        /// Absent (not null) when the build was not made from a git checkout.
        var commit = AttestGuardVersion.commit
        var mode: String
        var store: String
        var schemaVersion: Int?
        var reason: String?
        /// The read replica (`database.readUrl`), when there is one; it does not decide readiness, since the
        /// verification path never reads it.
        var replica: ReplicaReadiness?
        /// Present while the primary's commits wait for a synchronous standby that does not confirm them. It does
        /// not decide readiness: every process shares the primary, reads and verdicts go on, and writes answer 503
        /// at their deadline; taking every process out of the load balancer would refuse those too.
        var standby: StandbyReadiness?
    }

    struct StandbyReadiness: Encodable {
        /// `unavailable`: commits have waited over a second for the standby.
        var status = "unavailable"
        var commitsWaiting: Int
    }

    struct ReplicaReadiness: Encodable {
        /// `ready` (within its lag bound), `lagging` (behind it: reads that use it are refused) or `unavailable`.
        var status: String
        var lagSeconds: Double?
        var maxLagSeconds: Double
        var host: String?
    }

    /// Which of the routes a router serves.
    enum Routes {
        /// Every operational route.
        case all
        /// `/healthz` alone: the API listener beside an operator listener.
        case liveness
    }

    func register(on router: Router<AttestGuardRequestContext>, including routes: Routes = .all) {
        router.get("healthz") { _, _ in JSONResponse.make(json: Self.healthyBody, status: .ok) }
        guard routes == .all else { return }
        router.get("readyz") { _, context in try await readiness(context) }
        router.get("metrics") { _, _ in
            process?.update()
            storeMetrics?.update()
            return Response(
                status: .ok,
                headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer()))
            )
        }
        router.get("openapi.yaml") { _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "application/yaml"],
                body: .init(byteBuffer: ByteBuffer(string: EmbeddedOpenAPI.document))
            )
        }
    }

    private func readiness(_ context: AttestGuardRequestContext) async throws -> Response {
        do {
            let version = try await store.schemaVersion()
            return try JSONResponse.make(
                Readiness(
                    status: "ready", mode: mode.rawValue, store: store.kind.rawValue, schemaVersion: version, replica: replicaReadiness(),
                    standby: standbyReadiness()
                ),
                status: .ok
            )
        } catch {
            context.logger.warning("not ready", metadata: ["reason": .string(String(describing: error))])
            return try JSONResponse.make(
                Readiness(
                    status: "unavailable", mode: mode.rawValue, store: store.kind.rawValue, reason: String(describing: error),
                    replica: replicaReadiness(), standby: standbyReadiness()
                ),
                status: .serviceUnavailable
            )
        }
    }

    private func standbyReadiness() -> StandbyReadiness? {
        store.commitsWaitingOnStandby.map { StandbyReadiness(commitsWaiting: $0) }
    }

    private func replicaReadiness() -> ReplicaReadiness? {
        guard let replica = store.replicaState else { return nil }
        let maxLagSeconds = replica.maximumLag.timeInterval
        guard let lag = replica.lag else { return ReplicaReadiness(status: "unavailable", maxLagSeconds: maxLagSeconds) }
        return ReplicaReadiness(
            status: lag <= replica.maximumLag ? "ready" : "lagging", lagSeconds: lag.timeInterval, maxLagSeconds: maxLagSeconds,
            host: replica.host
        )
    }
}
