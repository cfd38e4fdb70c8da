import AttestVocabulary
public import AttestGuardEngine
public import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import NIOSSL
public import Logging
import NIOCore
import Metrics
import NIOPosix
public import Prometheus
public import ServiceLifecycle
public import AttestGuardRuntime

/// Assembles the HTTP application: routes, middleware and the services that run beside it.
public enum ServerAssembly {
    /// The router with every route of the contract (and the console, when no operator listener is configured).
    public static func router(
        engine: Engine,
        configuration: AttestGuardRuntime.ServerConfiguration,
        store: OpenedStore,
        registry: PrometheusCollectorRegistry,
        rules: RuleSetReloader? = nil,
        heartbeat: ProcessHeartbeat? = nil,
        gatewayPolicies: GatewayPolicyReloader? = nil
    ) throws -> Router<AttestGuardRequestContext> {
        let operations = OperationsRoutes(store: store, mode: configuration.mode, registry: registry)
        let rules = rules ?? RuleSetReloader(holder: engine.scorer.rules, directory: nil, clock: engine.clock, logger: Logger(label: "attestguard.rules"))
        let gatewayPolicies = try gatewayPolicies
            ?? GatewayPolicyReloader(settings: configuration.gateway, apps: engine.apps, clock: engine.clock, logger: Logger(label: "attestguard.gateway"))
        let heartbeat = heartbeat ?? ProcessHeartbeat(store: engine.store, reloader: rules, clock: engine.clock)
        let router = Router(context: AttestGuardRequestContext.self)
        router.addMiddleware { frontMiddleware(engine: engine, configuration: configuration) }
        operations.register(on: router, including: configuration.operatorListener == nil ? .all : .liveness)
        VerificationRoutes(engine: engine, body: JSONBody(maximumBytes: configuration.maxBodyBytes))
            .register(on: router, keys: APIKeyRing(configuration.apiKeys))
        HistoryRoutes(engine: engine).register(on: router, keys: APIKeyRing(configuration.apiKeys))
        LabelRoutes(engine: engine, body: JSONBody(maximumBytes: configuration.maxBodyBytes)).register(on: router, keys: APIKeyRing(configuration.apiKeys))
        DeviceCheckRoutes(engine: engine, body: JSONBody(maximumBytes: configuration.maxBodyBytes))
            .register(on: router, keys: APIKeyRing(configuration.apiKeys))
        ScoreRoutes(engine: engine, body: JSONBody(maximumBytes: configuration.maxBodyBytes))
            .register(on: router, keys: APIKeyRing(configuration.apiKeys))
        RuleAdminRoutes(reloader: rules, heartbeat: heartbeat).register(on: router, keys: APIKeyRing(configuration.apiKeys))
        ForwardAuthRoutes(engine: engine, policies: gatewayPolicies, settings: configuration.gateway)
            .register(on: router, keys: APIKeyRing(configuration.apiKeys))
        GatewayAdminRoutes(reloader: gatewayPolicies).register(on: router, keys: APIKeyRing(configuration.apiKeys))
        AppFacingRoutes(engine: engine, policies: gatewayPolicies, settings: configuration.gateway, body: JSONBody(maximumBytes: configuration.maxBodyBytes))
            .register(on: router, keys: APIKeyRing(configuration.apiKeys))
        SessionTokenRoutes(engine: engine).register(on: router)
        DebugTokenRoutes(engine: engine, body: JSONBody(maximumBytes: configuration.maxBodyBytes)).register(on: router, keys: APIKeyRing(configuration.apiKeys))
        ManagedListRoutes(engine: engine, body: JSONBody(maximumBytes: configuration.maxBodyBytes)).register(on: router, keys: APIKeyRing(configuration.apiKeys))
        RuleActionRoutes(engine: engine).register(on: router, keys: APIKeyRing(configuration.apiKeys))
        ReviewRoutes(engine: engine, body: JSONBody(maximumBytes: configuration.maxBodyBytes)).register(on: router, keys: APIKeyRing(configuration.apiKeys))
        WebhookRoutes(engine: engine).register(on: router, keys: APIKeyRing(configuration.apiKeys))
        if configuration.operatorListener == nil {
            try ConsoleRoutes(engine: engine, keys: APIKeyRing(configuration.apiKeys), settings: configuration.console).register(on: router)
        }
        AppPolicyRoutes(
            engine: engine,
            changes: AppPolicyChanges(
                store: engine.store, apps: engine.apps, clock: engine.clock, logger: Logger(label: "attestguard.apps"), webhooks: engine.webhooks.publisher
            ),
            gateway: gatewayPolicies, body: JSONBody(maximumBytes: configuration.maxBodyBytes), reloadInterval: configuration.appPolicyReloadInterval
        ).register(on: router, keys: APIKeyRing(configuration.apiKeys))
        // Last: it applies to requests no route above matched.
        router.add(middleware: MethodNotAllowedMiddleware(routes: router.routes))
        ObservabilityMiddleware.publishServerErrors(of: router.routes)
        return router
    }

    /// What every route of both listeners runs first, outermost first: the access log, metrics and request id; the
    /// mapping of errors to the contract's bodies; the refusal of ambiguous framing. One statically composed stack
    /// (`addMiddleware`), not three added one by one: Hummingbird then calls it through one existential and one
    /// responder instead of three.
    @MiddlewareFixedTypeBuilder<Request, Response, AttestGuardRequestContext>
    static func frontMiddleware(
        engine: Engine, configuration: AttestGuardRuntime.ServerConfiguration
    ) -> some MiddlewareProtocol<Request, Response, AttestGuardRequestContext> {
        ObservabilityMiddleware(successPercent: configuration.accessLogSuccessPercent)
        ErrorMappingMiddleware(clock: engine.clock)
        RequestFramingMiddleware()
    }

    /// The router of the operator listener: the operational routes and the analysts' console.
    static func operatorRouter(
        engine: Engine, configuration: AttestGuardRuntime.ServerConfiguration, store: OpenedStore, registry: PrometheusCollectorRegistry
    ) throws -> Router<AttestGuardRequestContext> {
        let router = Router(context: AttestGuardRequestContext.self)
        router.addMiddleware { frontMiddleware(engine: engine, configuration: configuration) }
        OperationsRoutes(store: store, mode: configuration.mode, registry: registry)
            .register(on: router)
        try ConsoleRoutes(engine: engine, keys: APIKeyRing(configuration.apiKeys), settings: configuration.console).register(on: router)
        router.add(middleware: MethodNotAllowedMiddleware(routes: router.routes))
        ObservabilityMiddleware.publishServerErrors(of: router.routes)
        return router
    }

    /// The Hummingbird application, with the store's services, the challenge purger and `backgroundServices` (the
    /// receipt scheduler); it checks the schema (migrating first when allowed) before it accepts connections.
    public static func application(
        engine: Engine,
        configuration: AttestGuardRuntime.ServerConfiguration,
        store: OpenedStore,
        registry: PrometheusCollectorRegistry,
        logger: Logger,
        backgroundServices: [any Service] = [],
        rules: RuleSetReloader? = nil,
        onListening: @escaping @Sendable (Int) async -> Void = { _ in },
        onOperatorListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) throws -> some ApplicationProtocol {
        // `commit` is empty (to Prometheus, no label) when the build was not made from a git checkout.
        Gauge(
            label: MetricFamily.buildInfo.name, dimensions: [("version", AttestGuardVersion.version), ("commit", AttestGuardVersion.commit ?? "")]
        ).record(1)
        HTTPErrorMetrics.publishZeros()
        let group = MultiThreadedEventLoopGroup.singleton
        var server = HTTPServerBuilder.http1OnConnectionLoops(group: group, connections: configuration.connections)
        if let tls = configuration.tls {
            let certificates = try NIOSSLCertificate.fromPEMFile(tls.certificateChainPath).map { NIOSSLCertificateSource.certificate($0) }
            let key = try NIOSSLPrivateKey(file: tls.privateKeyPath, format: .pem)
            server = try .tls(server, tlsConfiguration: .makeServerConfiguration(certificateChain: certificates, privateKey: .privateKey(key)))
        }
        let rules = rules ?? RuleSetReloader(holder: engine.scorer.rules, directory: nil, clock: engine.clock, logger: logger)
        let heartbeat = ProcessHeartbeat(store: engine.store, reloader: rules, clock: engine.clock)
        let gatewayPolicies = try GatewayPolicyReloader(settings: configuration.gateway, apps: engine.apps, clock: engine.clock, logger: logger)
        let appPolicies = AppPolicyOverrides(store: engine.store, catalog: engine.apps, logger: logger)
        var services: [any Service] = store.services + [
            ChallengePurgeService(store: engine.store, clock: engine.clock, logger: logger, factsCache: engine.factsCache),
            WriteBehindService(engine: engine, logger: logger, shutdownBudget: configuration.connections.shutdownFlushTimeout),
            ReloadWatchService(rules: rules, gatewayPolicies: gatewayPolicies), ProcessHeartbeatService(heartbeat: heartbeat, logger: logger),
            PeriodicStoreRead(
                subject: "app policy overrides", kept: "the policies in force stay", interval: configuration.appPolicyReloadInterval,
                logger: appPolicies.logger, read: { _ = try await appPolicies.refresh() }
            ),
            AttestationRampService(
                controller: AttestationRampController(
                    store: engine.store, apps: engine.apps, clock: engine.clock, logger: logger, webhooks: engine.webhooks.publisher
                ),
                clock: engine.clock, logger: logger
            ),
            RiskBaselineReloadService.service(
                store: engine.store, book: engine.baselines, interval: configuration.appPolicyReloadInterval, logger: logger
            ),
        ] + backgroundServices
        if let retiredKeys = RetiredKeyRefreshService.service(engine: engine, logger: logger) {
            services.append(retiredKeys)
        }
        if let webhooks = WebhookDeliveryService.service(engine: engine, process: heartbeat.processId, logger: logger) {
            services.append(webhooks)
        }
        let lists = ManagedListRefreshService(engine: engine, rules: rules, logger: logger)
        services.append(lists.service(interval: configuration.appPolicyReloadInterval))
        if let listener = configuration.operatorListener {
            services.append(ListenerService(Application(
                router: HeadAsGet(base: try operatorRouter(engine: engine, configuration: configuration, store: store, registry: registry)),
                server: .http1(),
                configuration: ApplicationConfiguration(address: .hostname(listener.host, port: listener.port), serverName: "AttestGuard"),
                onServerRunning: { channel in await onOperatorListening(channel.localAddress?.port ?? listener.port) },
                eventLoopGroupProvider: .shared(group),
                logger: logger
            ), setting: "operator.port", host: listener.host, port: listener.port))
        }
        let descriptors = DescriptorBudget.forServer(configuration)
        if descriptors.isLimitedByDescriptors {
            logger.warning(
                "server.maxConnections is more than the file descriptor limit allows; holding fewer connections (raise ulimit -n)",
                metadata: [
                    "maxConnections": .stringConvertible(descriptors.configuredConnections),
                    "connectionCap": .stringConvertible(descriptors.connectionCap),
                    "descriptorLimit": .stringConvertible(descriptors.descriptorLimit),
                    "reserved": .stringConvertible(descriptors.reserved),
                ]
            )
        }
        var application = Application(
            router: HeadAsGet(base: try router(
                engine: engine, configuration: configuration, store: store, registry: registry, rules: rules, heartbeat: heartbeat,
                gatewayPolicies: gatewayPolicies
            )),
            server: server,
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.host, port: configuration.port),
                serverName: "AttestGuard",
                availableConnectionsDelegate: MaximumAvailableConnections(descriptors.connectionCap, logger: logger)
            ),
            services: services,
            onServerRunning: { channel in
                do {
                    try await AcceptPause.install(on: channel, logger: logger)
                } catch {
                    logger.warning("cannot install the accept pause on the listener", metadata: ["error": .string(String(describing: error))])
                }
                await onListening(channel.localAddress?.port ?? configuration.port)
            },
            eventLoopGroupProvider: .shared(group),
            logger: logger
        )
        let migrateFirst = configuration.autoMigrate || store.kind == .sqlite
        application.beforeServerStarts {
            if migrateFirst {
                let applied = store.migratedAtOpening + (try await store.migrate())
                if !applied.isEmpty { logger.notice("applied migrations", metadata: ["versions": .string("\(applied)")]) }
            }
            let version = try await store.schemaVersion()
            logger.info("store ready", metadata: ["store": .string(store.kind.rawValue), "schema": .stringConvertible(version)])
            // Stored app policy changes are in force before the first request; if the store cannot say, the files'
            // values serve until the first successful read.
            do {
                try await appPolicies.refresh()
            } catch {
                logger.warning("app policy overrides not read at start; the configured policies serve until they are", metadata: [
                    "error": .string(String(describing: error)),
                ])
            }
            do {
                try await RetiredKeyRefreshService.load(engine: engine)
            } catch {
                logger.warning("retired keys not read at start; token routes answer 503 until they are", metadata: [
                    "error": .string(String(describing: error)),
                ])
            }
            do {
                try await lists.load()
            } catch {
                logger.warning("run-time lists not read at start; rules find nothing in them until they are", metadata: [
                    "error": .string(String(describing: error)),
                ])
            }
            do {
                try await RiskBaselineReloadService.load(store: engine.store, into: engine.baselines, logger: logger)
            } catch {
                logger.warning("risk-metric baselines not read at start; the baseline signals are missing until they are", metadata: [
                    "error": .string(String(describing: error)),
                ])
            }
        }
        return application
    }
}
