public import AttestVocabulary
public import Foundation

/// What one verdict asks the store about a key, the request's subjects and their velocity
/// (``RiskStore/scoringFacts(_:)``). Only what the rule set reads is asked for.
public struct ScoringFactsQuery: Sendable, Hashable {
    public var appId: String
    /// The request's key; without one, nothing key-related is read.
    public var keyId: Data?
    /// Read the key's receipt summary.
    public var receipt: Bool
    /// Read the risk metric of the key's last receipt created at or before this instant (for a change over time).
    public var metricBaselineAt: Date?
    /// Count the superseded keys of the key's user and device.
    public var supersededKeys: Bool
    /// Read stored DeviceCheck bits.
    public var deviceCheck: DeviceCheckQuery?
    /// Read this user's latest DeviceCheck validation in the app.
    public var deviceCheckValidationUserId: String?
    /// Read velocity sums of the app, with `velocityWriter`'s latest committed flush (``VelocityStore``).
    public var velocity: [VelocitySum]
    public var velocityWriter: String?
    /// Read the labels of these subjects (every source's, in the app).
    public var labelSubjects: [LabelLookup] = []
    /// Read these distinct counts.
    public var distinct: [DistinctCountRead] = []

    public init(
        appId: String, keyId: Data?, receipt: Bool = false, metricBaselineAt: Date? = nil, supersededKeys: Bool = false,
        deviceCheck: DeviceCheckQuery? = nil, deviceCheckValidationUserId: String? = nil, velocity: [VelocitySum] = [],
        velocityWriter: String? = nil
    ) {
        self.appId = appId
        self.keyId = keyId
        self.receipt = receipt
        self.metricBaselineAt = metricBaselineAt
        self.supersededKeys = supersededKeys
        self.deviceCheck = deviceCheck
        self.deviceCheckValidationUserId = deviceCheckValidationUserId
        self.velocity = velocity
        self.velocityWriter = velocityWriter
    }

    /// Whether there is anything to read.
    public var isEmpty: Bool {
        keyId == nil && deviceCheck == nil && deviceCheckValidationUserId == nil && velocity.isEmpty && labelSubjects.isEmpty && distinct.isEmpty
    }

    /// `key` when it is the key this query asks about (a row the caller already holds, which the store need not read
    /// again), else nil.
    package func heldKey(_ key: KeyRecord?) -> KeyRecord? {
        guard let key, let keyId, key.appId == appId, key.keyId == keyId else { return nil }
        return key
    }
}

/// A subject whose labels a verdict reads (the `label.*` signals): its kind and how labels name it (the key's base64
/// id, the keyed hash of the user or device).
public struct LabelLookup: Sendable, Hashable {
    public var kind: LabelSubjectKind
    public var subject: String

    public init(kind: LabelSubjectKind, subject: String) {
        self.kind = kind
        self.subject = subject
    }
}

/// Which stored DeviceCheck bits a verdict reads: the first of `subjects`, in order, with bits Apple found, in the
/// first of the app's `scopes` that has them, in the key's environment (`defaultEnvironment` when the request has
/// no known key).
public struct DeviceCheckQuery: Sendable, Hashable {
    public var scopes: [DeviceCheckScope]
    public var defaultEnvironment: AppAttestEnvironment
    public var subjects: [DeviceCheckSubject]

    public init(scopes: [DeviceCheckScope], defaultEnvironment: AppAttestEnvironment, subjects: [DeviceCheckSubject]) {
        self.scopes = scopes
        self.defaultEnvironment = defaultEnvironment
        self.subjects = subjects
    }
}

/// A receipt as scoring sees it: never the receipt's bytes.
public struct ReceiptSummary: Sendable, Hashable {
    public var receiptType: ReceiptType
    public var riskMetric: Int?
    public var metricStale: Bool
    public var refreshedAt: Date?

    public init(receiptType: ReceiptType, riskMetric: Int?, metricStale: Bool, refreshedAt: Date?) {
        self.receiptType = receiptType
        self.riskMetric = riskMetric
        self.metricStale = metricStale
        self.refreshedAt = refreshedAt
    }
}

/// The store's answer to a ``ScoringFactsQuery``; what was not asked for, or does not exist, is `nil`.
public struct ScoringFacts: Sendable, Hashable {
    public var key: KeyRecord?
    public var receipt: ReceiptSummary?
    /// The risk metric at the baseline instant.
    public var metricBaseline: Int?
    /// `nil` also when the key is unknown or has no device id.
    public var supersededKeys: Int?
    public var deviceCheck: DeviceCheckRecord?
    /// The user's latest DeviceCheck validation in the app.
    public var deviceCheckValidation: DeviceCheckValidationRecord?
    /// The velocity sums asked for, in order, with the writer's latest committed flush in the same snapshot.
    public var velocity: VelocityReading
    /// Every source's labels of the subjects asked for (``ScoringFactsQuery/labelSubjects``), ordered by kind, subject
    /// and source.
    public var labels: [FraudLabelRecord] = []
    /// The distinct counts asked for (``ScoringFactsQuery/distinct``), in order.
    public var distinct: [Int64] = []

    public init(
        key: KeyRecord? = nil, receipt: ReceiptSummary? = nil, metricBaseline: Int? = nil, supersededKeys: Int? = nil,
        deviceCheck: DeviceCheckRecord? = nil, deviceCheckValidation: DeviceCheckValidationRecord? = nil,
        velocity: VelocityReading = VelocityReading(totals: [], flushedSequence: 0)
    ) {
        self.key = key
        self.receipt = receipt
        self.metricBaseline = metricBaseline
        self.supersededKeys = supersededKeys
        self.deviceCheck = deviceCheck
        self.deviceCheckValidation = deviceCheckValidation
        self.velocity = velocity
    }
}

extension ScoringFacts {
    /// The facts as they are once `commit` is committed: the key's counter and last assertion advanced.
    public func committing(_ commit: AssertionCommit) -> ScoringFacts {
        var facts = self
        facts.key?.counter = commit.counter
        facts.key?.lastAssertionAt = commit.claim.at
        return facts
    }
}

extension RiskStore {
    /// The commit, then the facts: two operations, for stores that read no facts in their commit (the test suites'
    /// wrappers). A failure to read the facts after the commit is no failure of the commit: the facts are then nil.
    public func commitAssertion(_ commit: AssertionCommit, readingFacts query: ScoringFactsQuery) async throws -> (AssertionCommitOutcome, ScoringFacts?) {
        let outcome = try await commitAssertion(commit)
        guard outcome.isCommitted, !query.isEmpty else { return (outcome, nil) }
        return (outcome, try? await scoringFacts(query))
    }
}

/// Facts put together from single reads: the embedded SQLite store's key and daily facts, and every part of a query past
/// what its one statement for the exact facts takes.
extension RiskStore {
    /// `knownKey`: the key's row as the caller already holds it (the embedded store's commit returns it), read only
    /// when it is not the query's key.
    public func scoringFactsFromSingleReads(_ query: ScoringFactsQuery, knownKey: KeyRecord? = nil) async throws -> ScoringFacts {
        var facts = ScoringFacts()
        if !query.velocity.isEmpty {
            facts.velocity = try await velocitySums(appId: query.appId, query.velocity, writer: query.velocityWriter)
        }
        let key: KeyRecord? = if let held = query.heldKey(knownKey) {
            held
        } else if let keyId = query.keyId {
            try await self.key(appId: query.appId, keyId: keyId)
        } else {
            nil
        }
        if let key {
            facts.key = key
            if query.receipt, let receipt = try await receipt(appId: key.appId, keyId: key.keyId) {
                facts.receipt = ReceiptSummary(
                    receiptType: receipt.receiptType, riskMetric: receipt.riskMetric, metricStale: receipt.metricStale, refreshedAt: receipt.refreshedAt
                )
            }
            if let baseline = query.metricBaselineAt {
                let history = try await riskMetricHistory(appId: key.appId, keyId: key.keyId)
                facts.metricBaseline = history.last(where: { $0.receiptCreatedAt <= baseline })?.riskMetric
            }
            if query.supersededKeys, let deviceId = key.deviceId {
                facts.supersededKeys = try await supersededKeyCount(appId: key.appId, userId: key.userId, deviceId: deviceId)
            }
        }
        if let deviceCheck = query.deviceCheck {
            let environment = facts.key?.environment ?? deviceCheck.defaultEnvironment
            search: for subject in deviceCheck.subjects {
                for scope in deviceCheck.scopes {
                    if let record = try await deviceCheckBits(scope: scope, environment: environment, subject: subject), record.found {
                        facts.deviceCheck = record
                        break search
                    }
                }
            }
        }
        if let userId = query.deviceCheckValidationUserId {
            facts.deviceCheckValidation = try await deviceCheckValidation(appId: query.appId, userId: userId)
        }
        if !query.labelSubjects.isEmpty {
            facts.labels = try await labels(appId: query.appId, of: query.labelSubjects)
        }
        if !query.distinct.isEmpty {
            facts.distinct = try await distinctCounts(query.distinct)
        }
        return facts
    }
}
