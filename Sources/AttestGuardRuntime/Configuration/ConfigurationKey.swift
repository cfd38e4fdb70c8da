/// One configuration key the server reads, as a configuration file writes it: a dotted path in which `<app>`,
/// `<apiKey>` and `<webhook>` stand for a name listed in `apps.names`, `apiKeys.names` and `webhooks.names`.
///
/// ``all`` is the one list of every key: the settings types read exactly these (a test records every key a full
/// configuration reads and compares), so a check of a configuration file can name the keys the server ignores.
public struct ConfigurationKey: Sendable, Hashable, CustomStringConvertible {
    /// The dotted path, with `<app>` or `<apiKey>` for a configured name.
    public let path: String
    /// What the key holds, with its default.
    public let summary: String
    /// Whether the key holds a list (`[a, b]`, or `a,b` in its environment variable) rather than one value.
    public let isList: Bool

    package init(_ path: String, _ summary: String, list: Bool = false) {
        self.path = path
        self.summary = summary
        self.isList = list
    }

    public var description: String { path }

    /// What every environment variable of the configuration starts with (then `_`).
    public static let environmentPrefix = "ATTESTGUARD"

    /// The environment variable that overrides the key: `ATTESTGUARD_` and the path in upper snake case
    /// (`server.port` is `ATTESTGUARD_SERVER_PORT`, `apps.<app>.appId` is `ATTESTGUARD_APPS_<APP>_APP_ID`).
    public var environmentVariable: String { Self.environmentVariable(forPath: path) }

    /// The variable swift-configuration's environment provider reads for a dotted path: each segment upper-cased,
    /// with `_` where a lowercase letter meets an uppercase one and for any character not a letter or digit, the
    /// segments joined by `_` after `ATTESTGUARD` (`velocity.ipv6PrefixLength` is
    /// `ATTESTGUARD_VELOCITY_IPV6PREFIX_LENGTH`). A placeholder segment (`<app>`) is only upper-cased.
    public static func environmentVariable(forPath path: String) -> String {
        let segments = path.split(separator: ".").map { segment -> String in
            if segment.hasPrefix("<") { return segment.uppercased() }
            var name = ""
            var previous: Character?
            for character in segment {
                if let previous, previous.isLowercase, character.isUppercase { name += "_" }
                name += character.isLetter || character.isNumber ? character.uppercased() : "_"
                previous = character
            }
            return name
        }
        return ([environmentPrefix] + segments).joined(separator: "_")
    }

    /// The concrete paths of the key for the configured names: `apps.<app>.appId` once for each app in `apps`,
    /// `apiKeys.<apiKey>.scopes` once for each key in `apiKeys`, any other key as it is.
    package func concretePaths(apps: [String], apiKeys: [String], webhooks: [String] = []) -> [String] {
        let segments = path.split(separator: ".").map(String.init)
        guard let index = segments.firstIndex(where: { $0.hasPrefix("<") }) else { return [path] }
        let names = switch segments[index] {
        case "<app>": apps
        case "<webhook>": webhooks
        default: apiKeys
        }
        return names.map { name in
            var concrete = segments
            concrete[index] = name
            return concrete.joined(separator: ".")
        }
    }

    /// Whether `concretePath` (`apps.shop.appId`) is this key: segment by segment, `<app>` and `<apiKey>` match any
    /// one name.
    public func matches(_ concretePath: String) -> Bool {
        let pattern = path.split(separator: ".")
        let concrete = concretePath.split(separator: ".")
        guard pattern.count == concrete.count else { return false }
        return zip(pattern, concrete).allSatisfy { $0.hasPrefix("<") || $0 == $1 }
    }

    /// Every key the server reads.
    public static let all: [ConfigurationKey] = [
        ConfigurationKey("mode", "`production` (Apple's roots only; the default with a file) or `simulator` (the test PKI; the default without one)"),
        ConfigurationKey("logLevel", "swift-log level: trace, debug, info (default), notice, warning, error, critical"),
        ConfigurationKey("logFormat", "`text` (logfmt, the default) or `json` (one object per line)"),
        ConfigurationKey("accessLog.successPercent", "the share of 2xx and 3xx answers given an access log line at info, 0-100 (default 100); errors always are"),
        ConfigurationKey("clockSkewSeconds", "the one clock-skew tolerance: certificates, receipt creation times, challenge expiry (default 120)"),
        ConfigurationKey("simulator.seed", "the simulator PKI's seed (simulator mode)"),
        ConfigurationKey("server.host", "the address to bind (default 127.0.0.1)"),
        ConfigurationKey("server.port", "the port (default 8080)"),
        ConfigurationKey("server.maxBodyBytes", "the largest request body; larger is 413 body_too_large (default 131072)"),
        ConfigurationKey("server.idleTimeoutSeconds", "a connection with no request in progress is closed after this long (default 75)"),
        ConfigurationKey("server.headerReadTimeoutSeconds", "a request's head must arrive within this long of its first byte, a connection's first head of the accept (default 10)"),
        ConfigurationKey("server.bodyReadTimeoutSeconds", "a request's body must arrive within this long of its head (default 10)"),
        ConfigurationKey("server.maxConnections", "connections held at once; more wait in the listen backlog (default 1024; lowered to fit the descriptor limit)"),
        ConfigurationKey("server.shutdownTimeoutSeconds", "after SIGTERM, connections still open this long are closed (default 10)"),
        ConfigurationKey("server.shutdownFlushTimeoutSeconds", "then the last write-behind flush's budget; what it cannot write is counted as dropped (default 5)"),
        ConfigurationKey("operator.port", "a listener of its own for /metrics, /readyz and /openapi.yaml (plain HTTP); the API listener then serves the API and /healthz only"),
        ConfigurationKey("operator.host", "the operator listener's address (default: server.host)"),
        ConfigurationKey("server.tls.certificateChainPath", "PEM certificate chain for HTTPS"),
        ConfigurationKey("server.tls.privateKeyPath", "PEM private key for HTTPS"),
        ConfigurationKey("database.url", "PostgreSQL URL without a password; without one, the SQLite file"),
        ConfigurationKey("database.passwordFile", "a file holding the PostgreSQL password"),
        ConfigurationKey("database.passwordEnv", "an environment variable holding the PostgreSQL password"),
        ConfigurationKey("database.poolSize", "PostgreSQL connections per process (default 16)"),
        ConfigurationKey("database.minimumConnections", "connections kept open while idle (default: poolSize)"),
        ConfigurationKey("database.keepAliveSeconds", "idle time before a keep-alive query; 0 = none (default)"),
        ConfigurationKey("database.readUrl", "a read replica (PostgreSQL URL) for history, decisions, console and backtest reads"),
        ConfigurationKey("database.readPoolSize", "connections to the read replica per process (default 4, none while idle)"),
        ConfigurationKey("database.readMaxLagSeconds", "reads that use the replica are refused while it is further behind (default 30)"),
        ConfigurationKey("database.batchSize", "the most accepted assertions (or verdicts' reads) one statement carries (default 32, 1 = no batching)"),
        ConfigurationKey("database.batchesInFlight", "batched statements of each kind in flight at once (default 2; a batch forms while all run)"),
        ConfigurationKey("database.pooler", "none (default) | transaction: a pooler in transaction mode (PgBouncer) in front"),
        ConfigurationKey("database.timeoutMilliseconds", "a store call slower than this is 503 store_unavailable (default 5000)"),
        ConfigurationKey("database.autoMigrate", "PostgreSQL: apply migrations at start (default false; SQLite always migrates)"),
        ConfigurationKey("database.sqlitePath", "the SQLite file when no URL is set (default attestguard.sqlite)"),
        ConfigurationKey("challenges.ttlSeconds", "how long a challenge is valid (default 300)"),
        ConfigurationKey("challenges.maxPerUser", "challenges one user of one app may be issued per window (default 30)"),
        ConfigurationKey("challenges.quotaWindowSeconds", "the per-user quota's window (default 300)"),
        ConfigurationKey("challenges.maxUnboundPerClient", "challenges without a user one client address of one app may be issued per window (default 60)"),
        ConfigurationKey("challenges.maxUnboundPerApp", "unexpired challenges without a user one app may hold (default 10000)"),
        ConfigurationKey("challenges.perApiKeyPerMinute", "per-process token bucket per API key; 0 = no limit (default)"),
        ConfigurationKey("apps.names", "the names of the configured apps", list: true),
        ConfigurationKey("apps.policyReloadSeconds", "how often stored app policy overrides, risk-metric baselines and run-time lists are read again, 1-3600 (default 5)"),
        ConfigurationKey("apps.<app>.appId", "TEAMID.bundle.id"),
        ConfigurationKey("apps.<app>.environments", "development and/or production (default [production])", list: true),
        ConfigurationKey("apps.<app>.attestationClientDataHash", "sha256 (default) or raw"),
        ConfigurationKey("apps.<app>.clientDataFormat", "v1 (default, request-bound) or legacy"),
        ConfigurationKey("apps.<app>.legacyChallengePointer", "the JSON pointer to the challenge in legacy clientData"),
        ConfigurationKey("apps.<app>.mode", "enforce (default) or monitor"),
        ConfigurationKey("apps.<app>.attestationRequiredPercent", "users the rules see as rollout.attestation_required, 0-100 (default 0)"),
        ConfigurationKey("apps.<app>.onStoreError", "the verdict when scoring cannot read the store: allow, review (default) or deny"),
        ConfigurationKey("apps.<app>.shareDeviceCheckBits", "file and read DeviceCheck bits with the team's other sharing apps (default false: per app)"),
        ConfigurationKey("apps.<app>.build.allowedCategories.production", "the validation categories (app_store, test_flight, development, ...) a production key's attestation and assertions may carry, from iOS 27's map (default: any)", list: true),
        ConfigurationKey("apps.<app>.build.allowedCategories.development", "the validation categories a development key's attestation and assertions may carry (default: any)", list: true),
        ConfigurationKey("apps.<app>.build.minimumBundleVersion", "the lowest bundle version (CFBundleVersion, 4.2) an attestation or assertion that carries one may have (default: none)"),
        ConfigurationKey("apps.<app>.build.requireAuthenticatorExtensions", "refuse attestations and assertions without iOS 27's map from keys attested on iOS 27 or later (default false)"),
        ConfigurationKey("apps.<app>.sessionTokens.enabled", "exchange verified assertions for session tokens (default false)"),
        ConfigurationKey("apps.<app>.sessionTokens.ttlSeconds", "a session token's lifetime, 60-86400 seconds (default 600)"),
        ConfigurationKey("apps.<app>.debugTokens.enabled", "accept debug tokens, which admins make for the iOS Simulator and CI runners (default false)"),
        ConfigurationKey("apps.<app>.debugTokens.maxLifetimeDays", "the longest lifetime an admin may give a debug token, 1-365 days (default 30)"),
        ConfigurationKey("apps.<app>.debugTokens.allowInProduction", "let an app whose environments include production accept debug tokens; the server warns of it at every start (default false)"),
        ConfigurationKey("apps.<app>.reviewQueue.actions", "the request actions (purchase, claim_promo; * for every verdict) whose review verdicts open items in the app's review queue (default: none)", list: true),
        ConfigurationKey("apps.<app>.webhooks.verdictActions", "the request actions (purchase; * for every verdict) whose deny and review verdicts go to the webhooks that take verdict.deny and verdict.review events (default: none)", list: true),
        ConfigurationKey("apps.<app>.reviewQueue.itemLifetimeHours", "how long a review item waits undecided before it expires, 1-720 hours (default 72)"),
        ConfigurationKey("apps.<app>.ramp.enabled", "follow an automatic attestation rollout ramp (default true when another ramp key is set)"),
        ConfigurationKey("apps.<app>.ramp.startPercent", "the ramp's first attestation-required percentage, 1-100 (default 1)"),
        ConfigurationKey("apps.<app>.ramp.factor", "what a step multiplies the percentage by, 1.01-100 (default 2)"),
        ConfigurationKey("apps.<app>.ramp.periodSeconds", "the ramp period, 60-2592000 seconds (default 86400: a step a day at 00:00 UTC)"),
        ConfigurationKey("apps.<app>.ramp.minimumSuccessRate", "the attestation success rate a period needs to step, 0-1 (default 0.95)"),
        ConfigurationKey("apps.<app>.ramp.maximumRateLimitedShare", "the share of rate-limited attempts above which the ramp pauses, 0-1 (default 0.05)"),
        ConfigurationKey("apps.<app>.ramp.minimumAttempts", "the attempts a period needs before the ramp steps (default 100)"),
        ConfigurationKey("apple.teamId", "the Apple team id of the .p8 key"),
        ConfigurationKey("apple.keyId", "the id of a .p8 key with DeviceCheck enabled"),
        ConfigurationKey("apple.privateKeyFile", "the .p8 key's file"),
        ConfigurationKey("apple.privateKeyEnv", "an environment variable holding the .p8 key"),
        ConfigurationKey("apple.requestTimeoutMilliseconds", "the deadline of one request to Apple (default 10000)"),
        ConfigurationKey("apple.hosts.receiptsDevelopment", "simulator mode only: the development receipt host"),
        ConfigurationKey("apple.hosts.receiptsProduction", "simulator mode only: the production receipt host"),
        ConfigurationKey("apple.hosts.deviceCheckDevelopment", "simulator mode only: the development DeviceCheck host"),
        ConfigurationKey("apple.hosts.deviceCheckProduction", "simulator mode only: the production DeviceCheck host"),
        ConfigurationKey("receipts.refresh.enabled", "continuous refresh inside serve (default true; needs apple.*)"),
        ConfigurationKey("receipts.refresh.firstRedemptionDelaySeconds", "a new key's ATTEST receipt is redeemed this soon after attestation (default 60)"),
        ConfigurationKey("receipts.refresh.intervalHours", "then again after this long (default 20)"),
        ConfigurationKey("receipts.refresh.concurrency", "redemptions in flight per process (default 32)"),
        ConfigurationKey("receipts.refresh.leaseBatchSize", "receipts leased per store round trip (default 64)"),
        ConfigurationKey("receipts.refresh.leaseSeconds", "a dead worker's leases return to the pool after this (default 120)"),
        ConfigurationKey("receipts.refresh.maxAttempts", "transient failures before waiting for the next round (default 6)"),
        ConfigurationKey("receipts.refresh.productionRequestsPerSecond", "per-process token bucket for Apple's production host; 0 = no limit (default 500)"),
        ConfigurationKey("receipts.refresh.developmentRequestsPerSecond", "per-process token bucket for Apple's development host; 0 = no limit (default 100)"),
        ConfigurationKey("receipts.refresh.pollSeconds", "how often serve looks for newly due receipts (default 5)"),
        ConfigurationKey("receipts.refresh.dormantAfterDays", "keys unused this long leave the schedule until their next use; 0 = never (default 30)"),
        ConfigurationKey("rules.directory", "the rule set (default ./Rules if present, else none)"),
        ConfigurationKey("rules.shadowDirectory", "a rule set evaluated beside the live one, logged, never enforced"),
        ConfigurationKey("rules.sweepDirectory", "the rule set `attestguard receipts sweep` evaluates over every active key, running its rules' actions (default: none)"),
        ConfigurationKey("rules.hitMetricsLimit", "rules with a hit series of their own in attestguard_rule_hits_total; the rest count as _other (default 500)"),
        ConfigurationKey("gateway.policyDirectory", "the app route policies forward-auth decides by (none: forward-auth refuses every request)"),
        ConfigurationKey("gateway.trustedHeaderPrefix", "the prefix of the headers only the gateway sets: User, Client-IP, Body-Sha256 (default X-AttestGuard-)"),
        ConfigurationKey("gateway.answerWithinMilliseconds", "forward-auth answers 503 store_unavailable after this long; below the gateway's read timeout (default 1000)"),
        ConfigurationKey("velocity.ipv6PrefixLength", "IPv6 clients count per network of this many bits, 32-128 (default 64)"),
        ConfigurationKey("decisionLog.retentionDays", "days of verdicts kept (default 30)"),
        ConfigurationKey("factsCache.maxAgeSeconds", "verdicts use a key's receipt, history and superseded keys, DeviceCheck bits and validations read at most this long ago; another process's writes show within it, this one's at once (default 60; 0 reads every fact every time)"),
        ConfigurationKey("factsCache.maxEntries", "the most entries each process holds of each kind: keys, DeviceCheck (scope, environment, subject) pairs, users (default 100000, at most 1000000)"),
        ConfigurationKey("privacy.hashKeyFile", "a file holding the key of the keyed hashes of user ids and IPs (32+ characters)"),
        ConfigurationKey("privacy.hashKeyEnv", "an environment variable holding that key"),
        ConfigurationKey("sessionTokens.signingKeyFile", "a file holding the PEM P-256 private key session tokens are signed with (the same on every server)"),
        ConfigurationKey("sessionTokens.signingKeyEnv", "an environment variable holding that key"),
        ConfigurationKey("sessionTokens.verifyingKeyFiles", "PEM files of earlier signing keys (public or private) whose tokens still verify until they expire", list: true),
        ConfigurationKey("sessionTokens.revocationRefreshSeconds", "how often each process reads the keys revoked or superseded through other processes; their session tokens stop passing within this period, 1-300 (default 10)"),
        ConfigurationKey("console.sessionSecretFile", "a file holding the key the console's session cookies are signed with (32+ characters, the same on every server; none: a random key per process)"),
        ConfigurationKey("console.sessionSecretEnv", "an environment variable holding that key"),
        ConfigurationKey("console.sessionMinutes", "how long a console session lasts after login, 1-10080 (default 60)"),
        ConfigurationKey("webhooks.names", "the names of the webhook receivers (1-64 letters, digits, _ and -)", list: true),
        ConfigurationKey("webhooks.<webhook>.url", "where the receiver takes events: an http or https URL, POSTed one signed event at a time"),
        ConfigurationKey(
            "webhooks.<webhook>.secretFile",
            "a file holding the receiver's signing secret: whsec_ and the base64 of 24 or more random bytes (while rotating it, the new and the old one, one a line: each delivery is signed with both)"
        ),
        ConfigurationKey("webhooks.<webhook>.secretEnv", "an environment variable holding that secret (or those secrets, separated by spaces)"),
        ConfigurationKey("webhooks.<webhook>.events", "the event types it takes: verdict.deny, verdict.review, key.revoked, review.decided, ramp.paused, app.mode_changed, list.changed (default: every type)", list: true),
        ConfigurationKey("webhooks.<webhook>.apps", "the app ids whose events it takes ([\"*\"] or none: every app's, and list changes)", list: true),
        ConfigurationKey("apiKeys.names", "the names of the configured API keys", list: true),
        ConfigurationKey("apiKeys.<apiKey>.secretFile", "a file holding the API key"),
        ConfigurationKey("apiKeys.<apiKey>.secretEnv", "an environment variable holding the API key"),
        ConfigurationKey("apiKeys.<apiKey>.scopes", "verify, score, gateway, devicecheck:read, devicecheck:write, admin, analyst, analyst:write", list: true),
        ConfigurationKey("apiKeys.<apiKey>.apps", "the app ids the key may touch ([\"*\"] or none: every app)", list: true),
    ]
}
