/// One metric family AttestGuard exports: its Prometheus name, its type and the `# HELP` text of `/metrics`.
///
/// This is the catalog of every `attestguard_*` family. Code records a metric through swift-metrics with the
/// family's ``name``; the server's metrics factory looks the name up here for the HELP text, and
/// `scripts/check-dashboards.py` reads this file to check that every family has a panel and every panel query
/// names a family of the right type. A counter's name ends in `_total`.
public struct MetricFamily: Sendable, Hashable {
    /// What a family's samples are, as Prometheus types them.
    public enum Kind: String, Sendable, Hashable {
        /// Only ever increases (swift-metrics `Counter`).
        case counter
        /// Goes up and down (swift-metrics `Gauge`, a non-aggregating `Recorder`).
        case gauge
        /// Buckets, sum and count (swift-metrics `Timer`, an aggregating `Recorder`).
        case histogram
    }

    /// The metric name, as `/metrics` and the swift-metrics label carry it.
    public let name: String
    public let kind: Kind
    /// One line saying what the samples count or hold; the labels are named in parentheses.
    public let help: String

    private init(name: String, kind: Kind, help: String) {
        self.name = name
        self.kind = kind
        self.help = help
    }

    /// The family named `name`; nil for a name outside the catalog (a library's own metric).
    public static func named(_ name: String) -> MetricFamily? { byName[name] }

    private static let byName: [String: MetricFamily] = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    /// Every family, in the order `docs/reference/metrics.md` (``referenceMarkdown()``) lists them.
    public static let all: [MetricFamily] = [
        httpRequests, httpErrors, httpRequestDuration, httpAcceptPaused,
        attestations, assertions, challenges, gatewayChecks, devicecheckRequests,
        mode, buildInfo,
        appEnforced, appAttestationRequiredPercent, appVerdicts, appPolicyChanges,
        attestationOutcomes, attestationRampSteps, attestationRampPaused, appRiskMetricPercentile, appRiskMetricShare,
        receiptRedemptions, receiptRedemptionDuration, receiptQueueDepth, receiptRiskMetric, receiptDormantKeys,
        verdicts, ruleDecisions, ruleHits, scoreDuration, scoringFactsCacheLookups, shadowVerdicts,
        rulesLoaded, rulesReloads, rulesLastReloadSuccessful, rulesLastReloadSuccessTimestamp,
        retiredKeysHeld, retiredKeysLastReadTimestamp, listEntries, listsLastReadTimestamp, ruleActions, ruleActionsQueued,
        reviewOpenings, reviewOpeningsQueued, reviewOpeningsDropped, reviewDecisions,
        webhookEvents, webhookEventsQueued, webhookEventsDropped, webhookDeliveries, webhookBacklog, webhookOldestPending,
        velocityPendingBuckets, velocityDropped, velocityRolledUpBuckets, distinctPendingMembers, distinctDropped, decisionLogQueued, decisionLogDropped,
        storePrimaryUp, storeReplicaUp, storeReplicaLag, storeOperationsTimedOut, storeOperationsAbandoned, storeCommitsWaitingOnStandby,
        storeAssertionBatches, storeAssertionBatchEntries, storeReadBatches, storeReadBatchEntries,
    ]

    // MARK: HTTP

    public static let httpRequests = MetricFamily(
        name: "attestguard_http_requests_total", kind: .counter,
        help: "HTTP requests answered (route, method, status); route is unmatched when no route matched, method is other for a method HTTP does not define."
    )
    public static let httpErrors = MetricFamily(
        name: "attestguard_http_errors_total", kind: .counter,
        help: "HTTP error answers by error code (status_class 4xx or 5xx, code)."
    )
    public static let httpRequestDuration = MetricFamily(
        name: "attestguard_http_request_duration_seconds", kind: .histogram,
        help: "Time from a request's head to its answer (route, method)."
    )
    public static let httpAcceptPaused = MetricFamily(
        name: "attestguard_http_accept_paused_total", kind: .counter,
        help: "Times accepting connections paused for want of file descriptors."
    )

    // MARK: Verification

    public static let attestations = MetricFamily(
        name: "attestguard_attestations_total", kind: .counter,
        help: "Attestations submitted (result: registered, idempotent or the error code)."
    )
    public static let assertions = MetricFamily(
        name: "attestguard_assertions_total", kind: .counter,
        help: "Assertions submitted (result: accepted or the error code)."
    )
    public static let challenges = MetricFamily(
        name: "attestguard_challenges_total", kind: .counter,
        help: "Challenges requested (purpose, result: issued or the error code)."
    )
    public static let gatewayChecks = MetricFamily(
        name: "attestguard_gateway_checks_total", kind: .counter,
        help: "Forward-auth answers (app; route: the policy route's path or default; outcome: open, verified, token, debug, unattested, missing, invalid, replayed, denied or error; result: passed or refused)."
    )
    public static let devicecheckRequests = MetricFamily(
        name: "attestguard_devicecheck_requests_total", kind: .counter,
        help: "DeviceCheck operations (operation, result: the outcome or the error code)."
    )

    // MARK: The process

    public static let mode = MetricFamily(
        name: "attestguard_mode", kind: .gauge,
        help: "1 for the mode this process runs in (mode: production or simulator)."
    )
    public static let buildInfo = MetricFamily(
        name: "attestguard_build_info", kind: .gauge,
        help: "1 for the release this process runs (version)."
    )

    // MARK: Receipts

    public static let receiptRedemptions = MetricFamily(
        name: "attestguard_receipt_redemptions_total", kind: .counter,
        help: "Receipt redemptions with Apple (app, environment, outcome)."
    )
    public static let receiptRedemptionDuration = MetricFamily(
        name: "attestguard_receipt_redemption_duration_seconds", kind: .histogram,
        help: "Apple's time to answer a receipt redemption (environment)."
    )
    public static let receiptQueueDepth = MetricFamily(
        name: "attestguard_receipt_queue_depth", kind: .gauge,
        help: "Receipts waiting for a refresh in the whole store (state: due, leased, retrying, dormant)."
    )
    public static let receiptDormantKeys = MetricFamily(
        name: "attestguard_receipt_dormant_keys_total", kind: .counter,
        help: "Keys whose receipts left the refresh schedule because they went unused for receipts.dormantAfterDays (app)."
    )
    public static let receiptRiskMetric = MetricFamily(
        name: "attestguard_receipt_risk_metric", kind: .histogram,
        help: "Risk metrics of redeemed receipts: keys attested on the device in 30 days."
    )

    // MARK: Apps

    public static let appEnforced = MetricFamily(
        name: "attestguard_app_enforced", kind: .gauge,
        help: "1 when the app's verdicts are enforced, 0 in monitor mode, as in force in this process (app)."
    )
    public static let appAttestationRequiredPercent = MetricFamily(
        name: "attestguard_app_attestation_required_percent", kind: .gauge,
        help: "The app's attestation-required rollout percentage in force in this process (app)."
    )
    public static let appVerdicts = MetricFamily(
        name: "attestguard_app_verdicts_total", kind: .counter,
        help: "Verdicts per app by whether the request named an attested key (app, attestation: attested or unattested)."
    )
    public static let appPolicyChanges = MetricFamily(
        name: "attestguard_app_policy_changes_total", kind: .counter,
        help: "Run-time app policy changes made through this process (app, setting)."
    )
    public static let attestationOutcomes = MetricFamily(
        name: "attestguard_attestation_outcomes_total", kind: .counter,
        help: "Attestation outcomes of ramping apps counted through this process (app, outcome: attested, failed, rate_limited, unsupported, accepted)."
    )
    public static let attestationRampSteps = MetricFamily(
        name: "attestguard_attestation_ramp_steps_total", kind: .counter,
        help: "Attestation rollout ramp actions taken through this process at period boundaries (app, action: step, hold, pause, complete)."
    )
    public static let attestationRampPaused = MetricFamily(
        name: "attestguard_attestation_ramp_paused", kind: .gauge,
        help: "1 while the app's attestation rollout ramp is paused by rate limiting, as this process last read it (app)."
    )

    public static let appRiskMetricPercentile = MetricFamily(
        name: "attestguard_app_risk_metric_percentile", kind: .gauge,
        help: "The app's latest risk-metric baseline: the nearest-rank percentile of its active keys' metrics (app, percentile: p50, p90 or p99)."
    )
    public static let appRiskMetricShare = MetricFamily(
        name: "attestguard_app_risk_metric_share", kind: .gauge,
        help: "The app's latest risk-metric baseline: the share (0-1) of its active keys with a metric at or above a bound (app, at_least: 4 or 10)."
    )

    // MARK: Verdicts and rules

    public static let verdicts = MetricFamily(
        name: "attestguard_verdicts_total", kind: .counter,
        help: "Verdicts returned (endpoint, decision, enforced: false under monitor mode)."
    )
    public static let ruleDecisions = MetricFamily(
        name: "attestguard_rule_decisions_total", kind: .counter,
        help: "What the rules decided, monitor mode included (endpoint, decision)."
    )
    public static let ruleHits = MetricFamily(
        name: "attestguard_rule_hits_total", kind: .counter,
        help: "Times each rule fired (rule, endpoint, set: live or shadow); rules past the export limit count as _other."
    )
    public static let scoreDuration = MetricFamily(
        name: "attestguard_score_duration_seconds", kind: .histogram,
        help: "Time to assemble a verdict's signals and evaluate the rules."
    )
    public static let scoringFactsCacheLookups = MetricFamily(
        name: "attestguard_scoring_facts_cache_lookups_total", kind: .counter,
        help: "Verdicts' daily facts looked up in this process's cache (part: receipt, risk_metric_baseline, superseded_keys, devicecheck_bits, devicecheck_validation; result: hit or miss, a miss read from the store)."
    )
    public static let shadowVerdicts = MetricFamily(
        name: "attestguard_shadow_verdicts_total", kind: .counter,
        help: "Verdicts of the shadow rule set beside the live one (live, shadow)."
    )
    public static let rulesLoaded = MetricFamily(
        name: "attestguard_rules_loaded", kind: .gauge,
        help: "1 for the rule set version in force, 0 for versions replaced (version)."
    )
    public static let rulesReloads = MetricFamily(
        name: "attestguard_rules_reloads_total", kind: .counter,
        help: "Rule reload attempts (result: loaded or rejected)."
    )
    public static let rulesLastReloadSuccessful = MetricFamily(
        name: "attestguard_rules_last_reload_successful", kind: .gauge,
        help: "1 when the last rule reload attempt loaded (or none was made), 0 when it was rejected."
    )
    public static let rulesLastReloadSuccessTimestamp = MetricFamily(
        name: "attestguard_rules_last_reload_success_timestamp_seconds", kind: .gauge,
        help: "When the rules in force were loaded, in seconds since 1970 (a reload of unchanged rules keeps it)."
    )

    // MARK: Session tokens

    public static let retiredKeysHeld = MetricFamily(
        name: "attestguard_retired_keys_held", kind: .gauge,
        help: "Keys revoked or superseded within the longest session token lifetime that this process holds, as of its last read."
    )
    public static let retiredKeysLastReadTimestamp = MetricFamily(
        name: "attestguard_retired_keys_last_read_timestamp_seconds", kind: .gauge,
        help: "When this process last read the retired keys, in seconds since 1970; over three refresh periods (at least a minute) ago, token routes answer 503."
    )

    // MARK: Run-time lists

    public static let listEntries = MetricFamily(
        name: "attestguard_list_entries", kind: .gauge,
        help: "Entries of each run-time list (list) as this process last read it, expired ones included until the list's next change."
    )
    public static let listsLastReadTimestamp = MetricFamily(
        name: "attestguard_lists_last_read_timestamp_seconds", kind: .gauge,
        help: "When this process last read the run-time lists, in seconds since 1970; rules see a list change at the first read after it."
    )

    // MARK: Rule actions

    public static let ruleActions = MetricFamily(
        name: "attestguard_rule_actions_total", kind: .counter,
        help: "Actions of fired rules (action, outcome): done, unchanged, failed, no_target, already_run, monitored (monitor mode), shadow (the shadow rule set), dropped (queue full)."
    )
    public static let ruleActionsQueued = MetricFamily(
        name: "attestguard_rule_actions_queued", kind: .gauge,
        help: "Actions of fired rules waiting to run; they run within a second or two, and a process that dies loses those still queued."
    )

    // MARK: Review queue

    public static let reviewOpenings = MetricFamily(
        name: "attestguard_review_openings_total", kind: .counter,
        help: "Review verdicts of the apps' chosen actions noted for the review queue (app); repeats about one subject fold into its pending item."
    )
    public static let reviewOpeningsQueued = MetricFamily(
        name: "attestguard_review_openings_queued", kind: .gauge,
        help: "Review verdicts waiting to be written into the review queue (one per subject); written every second."
    )
    public static let reviewOpeningsDropped = MetricFamily(
        name: "attestguard_review_openings_dropped_total", kind: .counter,
        help: "Review verdicts not written into the review queue because the pending ones reached their bound."
    )
    public static let reviewDecisions = MetricFamily(
        name: "attestguard_review_decisions_total", kind: .counter,
        help: "Review items decided by analysts (decision: approve or reject)."
    )

    // MARK: Webhooks

    public static let webhookEvents = MetricFamily(
        name: "attestguard_webhook_events_total", kind: .counter,
        help: "Webhook events written to the outbox (type), once per event whatever the number of receivers it goes to."
    )
    public static let webhookEventsQueued = MetricFamily(
        name: "attestguard_webhook_events_queued", kind: .gauge,
        help: "Webhook events waiting in this process to be written to the outbox; written every second."
    )
    public static let webhookEventsDropped = MetricFamily(
        name: "attestguard_webhook_events_dropped_total", kind: .counter,
        help: "Webhook events never written to the outbox because the events waiting in this process reached their bound."
    )
    public static let webhookDeliveries = MetricFamily(
        name: "attestguard_webhook_deliveries_total", kind: .counter,
        help: "Webhook delivery attempts (webhook, outcome: delivered, retry, failed)."
    )
    public static let webhookBacklog = MetricFamily(
        name: "attestguard_webhook_backlog", kind: .gauge,
        help: "Webhook events in the outbox not yet delivered nor given up on (webhook), as the store last answered."
    )
    public static let webhookOldestPending = MetricFamily(
        name: "attestguard_webhook_oldest_pending_seconds", kind: .gauge,
        help: "Age of the oldest webhook event not yet delivered nor given up on (webhook); 0 when none waits."
    )

    // MARK: Write-behind

    public static let velocityPendingBuckets = MetricFamily(
        name: "attestguard_velocity_pending_buckets", kind: .gauge,
        help: "Velocity increments waiting to be written, in buckets."
    )
    public static let velocityDropped = MetricFamily(
        name: "attestguard_velocity_dropped_total", kind: .counter,
        help: "Velocity buckets dropped because the pending ones reached their bound."
    )
    public static let velocityRolledUpBuckets = MetricFamily(
        name: "attestguard_velocity_rolled_up_buckets_total", kind: .counter,
        help: "Aged minute buckets of velocity rolled up into hour buckets."
    )
    public static let distinctPendingMembers = MetricFamily(
        name: "attestguard_distinct_pending_members", kind: .gauge,
        help: "Sightings for distinct counts (a subject seen with another) waiting to be written."
    )
    public static let distinctDropped = MetricFamily(
        name: "attestguard_distinct_dropped_total", kind: .counter,
        help: "Sightings for distinct counts dropped because the pending ones reached their bound."
    )
    public static let decisionLogQueued = MetricFamily(
        name: "attestguard_decision_log_queued", kind: .gauge,
        help: "Decision log entries waiting to be written."
    )
    public static let decisionLogDropped = MetricFamily(
        name: "attestguard_decision_log_dropped_total", kind: .counter,
        help: "Decision log entries dropped because the queue reached its bound."
    )

    // MARK: Store

    public static let storePrimaryUp = MetricFamily(
        name: "attestguard_store_primary_up", kind: .gauge,
        help: "1 while a PostgreSQL host of database.url takes this process's writes, 0 while none does (PostgreSQL only)."
    )
    public static let storeReplicaUp = MetricFamily(
        name: "attestguard_store_replica_up", kind: .gauge,
        help: "1 while the read replica (database.readUrl) answers within its lag bound, 0 otherwise (with a replica only)."
    )
    public static let storeReplicaLag = MetricFamily(
        name: "attestguard_store_replica_lag_seconds", kind: .gauge,
        help: "How far the read replica is behind the primary, as last measured (with a replica only)."
    )
    public static let storeOperationsTimedOut = MetricFamily(
        name: "attestguard_store_operations_timed_out_total", kind: .counter,
        help: "PostgreSQL operations past database.timeoutMilliseconds, answered 503 store_unavailable; their connections are closed (PostgreSQL only)."
    )
    public static let storeOperationsAbandoned = MetricFamily(
        name: "attestguard_store_operations_abandoned_total", kind: .counter,
        help: "PostgreSQL operations still running 500 ms after their deadline, left to finish without their request (PostgreSQL only)."
    )
    public static let storeCommitsWaitingOnStandby = MetricFamily(
        name: "attestguard_store_commits_waiting_on_standby", kind: .gauge,
        help: "This process's role's commits waiting over a second for a synchronous standby, as last probed (PostgreSQL only)."
    )
    public static let storeAssertionBatches = MetricFamily(
        name: "attestguard_store_assertion_batches_total", kind: .counter,
        help: "Statements that committed this process's accepted assertions in groups (group commit; PostgreSQL only)."
    )
    public static let storeAssertionBatchEntries = MetricFamily(
        name: "attestguard_store_assertion_batch_entries_total", kind: .counter,
        help: "Assertions those statements carried; divided by attestguard_store_assertion_batches_total, the mean batch size (PostgreSQL only)."
    )
    public static let storeReadBatches = MetricFamily(
        name: "attestguard_store_read_batches_total", kind: .counter,
        help: "Statements that read verdicts' facts (score requests, DeviceCheck checks) in groups (PostgreSQL only)."
    )
    public static let storeReadBatchEntries = MetricFamily(
        name: "attestguard_store_read_batch_entries_total", kind: .counter,
        help: "Verdicts' reads those statements carried; divided by attestguard_store_read_batches_total, the mean batch size (PostgreSQL only)."
    )
}
