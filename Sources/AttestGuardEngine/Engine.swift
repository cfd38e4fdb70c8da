public import AppleServices
public import AttestGuardStore
/// The verification core with its state: challenges, attestations, assertions, the key registry, DeviceCheck
/// bits and risk verdicts over one store, one clock and one set of apps. The HTTP server and the CLI are thin layers over it.
public struct Engine: Sendable {
    public let apps: AppCatalog
    public let settings: EngineSettings
    public let store: any RiskStore
    public let clock: any EngineClock
    public let challenges: ChallengeService
    public let attestations: AttestationService
    public let assertions: AssertionService
    public let keys: KeyService
    /// A key's risk-metric history and the decision log, for analysts.
    public let history: HistoryService
    /// The console's bounded aggregates: verdicts over a range, rule hits, shadow disagreements, risk metrics.
    public let console: ConsoleReports
    public let deviceCheck: DeviceCheckService
    /// Verdicts from the rule set in force (`scorer.rules` swaps it).
    public let scorer: RiskScorer
    /// Velocity events counted by this process, flushed to the store by ``VelocityRecorder/flush()``.
    public let velocity: VelocityRecorder
    /// The subjects every verdict saw together, for distinct counts, flushed to the store by
    /// ``DistinctRecorder/flush()``.
    public let distinct: DistinctRecorder
    /// Each app's latest risk-metric baseline, held in memory for the `app.risk_metric.*` and
    /// `receipt.risk_metric_percentile` signals; the server fills it from the store.
    public let baselines: RiskBaselineBook
    /// Forward-auth answers per app, route and outcome, counted here and added to the store behind the requests.
    public let gatewayChecks: GatewayCheckRecorder
    /// The verdicts' daily facts this process holds (``EngineSettings/factsCache``); whatever writes such a fact in
    /// this process outside the engine (the receipt refresher, the legacy DeviceCheck purge) tells it.
    public let factsCache: ScoringFactsCache
    /// Session tokens for verified assertions.
    public let sessionTokens: SessionTokenExchange
    /// Debug tokens, which stand for App Attest on the Simulator and CI runners of apps that accept them.
    public let debugTokens: DebugTokenService
    /// Run-time lists: analysts change them, the rules read them (``ManagedListService/book``).
    public let lists: ManagedListService
    /// The actions fired rules ask for (`then:`), queued by the verdicts and run behind them.
    public let ruleActions: RuleActionService
    /// Each app's review queue: opened by review verdicts of chosen actions, decided by analysts.
    public let reviews: ReviewService
    /// The nightly sweep of every active key with a named rule set, whose actions run as the rules' do.
    public let sweep: KeySweep
    /// The webhook events this process publishes, and the outbox's delivery log.
    public let webhooks: WebhookService
    /// Bounds each user's attestation outcome reports (``AttestationOutcomes/report(_:appId:user:)``).
    let outcomeReportQuota = AttestationOutcomes.ReportQuota()

    /// - Parameter deviceCheck: Apple's DeviceCheck API (`AppleClients.deviceCheck`); `nil` when no Apple
    ///   credentials are configured, which makes the DeviceCheck calls `devicecheck_unavailable`.
    public init(
        store: any RiskStore,
        apps: AppCatalog,
        settings: EngineSettings,
        clock: any EngineClock = SystemClock(),
        deviceCheck: (any DeviceChecking)? = nil,
        rules: RuleSetHolder = RuleSetHolder(RuleSetHolder.empty),
        shadowRules: RuleSetHolder? = nil
    ) {
        let metrics = EngineMetrics()
        let baselines = RiskBaselineBook()
        self.baselines = baselines
        self.apps = apps
        self.settings = settings
        self.store = store
        self.clock = clock
        let factsCache = ScoringFactsCache(limits: settings.factsCache)
        self.factsCache = factsCache
        let deviceCheckService = DeviceCheckService(
            client: deviceCheck, store: store, apps: apps, clock: clock, metrics: metrics, factsCache: factsCache
        )
        let velocity = VelocityRecorder(store: store, keying: settings.velocityKeying, clock: clock)
        let distinct = DistinctRecorder(store: store)
        self.distinct = distinct
        let publisher = WebhookPublisher(endpoints: settings.webhooks, store: store)
        self.webhooks = WebhookService(
            publisher: publisher, store: store, apps: apps, clock: clock, retentionDays: settings.decisionLogRetentionDays
        )
        let lists = ManagedListService(store: store, clock: clock, webhooks: publisher)
        self.lists = lists
        let actionQueue = RuleActionQueue()
        let reviewRecorder = ReviewQueueRecorder(store: store)
        let scorer = RiskScorer(
            rules: rules, apps: apps, store: store, deviceCheck: deviceCheckService, velocity: velocity,
            decisionLog: DecisionLogWriter(store: store, retentionDays: settings.decisionLogRetentionDays),
            keyUse: KeyUseRecorder(store: store), clock: clock, metrics: metrics,
            shadow: shadowRules, baselines: baselines, factsCache: factsCache, lists: lists.book, actions: actionQueue,
            distinct: distinct, reviews: reviewRecorder, webhooks: publisher
        )
        self.velocity = velocity
        self.deviceCheck = deviceCheckService
        self.scorer = scorer
        self.challenges = ChallengeService(store: store, apps: apps, settings: settings, clock: clock, metrics: metrics)
        let retiredKeys = RetiredKeyBook(
            horizon: settings.sessionTokenKeys == nil ? 0 : SessionTokenExchange.retirementHorizon(apps: apps, clockSkew: settings.clockSkew.timeInterval),
            staleAfter: max(settings.revocationRefresh * 3, RetiredKeyBook.minimumStaleness)
        )
        self.attestations = AttestationService(
            store: store, apps: apps, settings: settings, clock: clock, metrics: metrics, scorer: scorer, factsCache: factsCache,
            retiredKeys: retiredKeys
        )
        let assertions = AssertionService(store: store, apps: apps, settings: settings, clock: clock, metrics: metrics, scorer: scorer)
        self.assertions = assertions
        self.sessionTokens = SessionTokenExchange(
            assertions: assertions, apps: apps, keying: settings.velocityKeying,
            service: settings.sessionTokenKeys.map { SessionTokenService(keys: $0, clock: clock, clockSkew: settings.clockSkew.timeInterval) },
            retiredKeys: retiredKeys
        )
        self.debugTokens = DebugTokenService(store: store, apps: apps, clock: clock)
        let keys = KeyService(store: store, apps: apps, clock: clock, factsCache: factsCache, retiredKeys: retiredKeys, webhooks: publisher)
        self.keys = keys
        let ruleActions = RuleActionService(queue: actionQueue, store: store, keys: keys, lists: lists, deviceCheck: deviceCheckService)
        self.ruleActions = ruleActions
        // The sweep's own assembler: the same reads, without the facts cache, which a night of every key would fill
        // with keys no verdict asks about.
        let sweepAssembler = SignalAssembler(
            store: store, deviceCheck: deviceCheckService, velocity: VelocitySignals(recorder: velocity), distinct: DistinctSignals(recorder: distinct),
            baselines: baselines, factsCache: ScoringFactsCache(limits: .disabled), lists: lists.book
        )
        self.sweep = KeySweep(
            store: store, apps: apps, assembler: sweepAssembler, keying: settings.velocityKeying, actions: ruleActions, clock: clock
        )
        self.reviews = ReviewService(
            recorder: reviewRecorder, store: store, apps: apps, actions: ruleActions, clock: clock,
            retentionDays: settings.decisionLogRetentionDays, webhooks: publisher
        )
        self.history = HistoryService(
            store: store, apps: apps, keying: settings.velocityKeying, clock: clock,
            ruleSets: { [rules.ruleSet] + (shadowRules.map { [$0.ruleSet] } ?? []) }
        )
        self.console = ConsoleReports(store: store, apps: apps, clock: clock)
        self.gatewayChecks = GatewayCheckRecorder(store: store)
    }
}
