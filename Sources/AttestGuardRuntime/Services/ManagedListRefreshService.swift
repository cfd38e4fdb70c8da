package import AttestGuardEngine
package import Logging
import AttestVocabulary
import Metrics
import RiskRules
import Synchronization

/// Reads the run-time lists changed through any process into the engine's ``ManagedListBook``: at start, and every
/// `apps.policyReloadSeconds` (``PeriodicStoreRead``), so that an analyst's change is in every verdict of every
/// process within that period. Each read that finds a change logs it. A run-time list the rules in force (or the
/// shadow set) declare but the store lacks is created, empty, with the declared kind (so declaring a list in a rule
/// file is all it takes to start filling it); one the store holds with another kind is named at warning once until
/// it is mended: it matches nothing.
package final class ManagedListRefreshService: Sendable {
    let engine: Engine
    let rules: RuleSetReloader
    let logger: Logger
    /// Problems already logged, so that each is logged once while it lasts.
    private let reported = Mutex<Set<String>>([])
    /// The lists whose entries this process last published.
    private let published = Mutex<Set<String>>([])

    package init(engine: Engine, rules: RuleSetReloader, logger: Logger) {
        self.engine = engine
        self.rules = rules
        self.logger = logger
    }

    /// Reads once; records the instant in `attestguard_lists_last_read_timestamp_seconds` and the lists' entries in
    /// `attestguard_list_entries`.
    package func load() async throws {
        let refresh = try await engine.lists.refresh()
        let snapshot = engine.lists.book.snapshot
        Gauge(label: MetricFamily.listsLastReadTimestamp.name).record(engine.clock.now().timeIntervalSince1970)
        for name in refresh.read {
            logger.info("run-time list read", metadata: ["list": .string(name), "entries": .stringConvertible(snapshot.lists[name]?.count ?? 0)])
        }
        for name in refresh.dropped {
            logger.info("run-time list gone from the store", metadata: ["list": .string(name)])
        }
        try await checkDeclarations(held: refresh.kinds)
        publishEntries(engine.lists.book.snapshot)
    }

    /// Every list's entries as this process holds them (also after a change this process made, which its own
    /// refresh already read), and 0 for a list published before and gone since.
    private func publishEntries(_ snapshot: ManagedListSnapshot) {
        let gone = published.withLock { published in
            let gone = published.subtracting(snapshot.lists.keys)
            published = Set(snapshot.lists.keys)
            return gone
        }
        for (name, contents) in snapshot.lists {
            Gauge(label: MetricFamily.listEntries.name, dimensions: [("list", name)]).record(contents.count)
        }
        for name in gone { Gauge(label: MetricFamily.listEntries.name, dimensions: [("list", name)]).record(0) }
    }

    /// Creates the run-time lists the rule sets declare and the store lacks; names, once, each the store holds with
    /// another kind.
    func checkDeclarations(held: [String: ListKind]) async throws {
        var declared = rules.holder.ruleSet.managedLists
        if let shadow = rules.shadow { declared.merge(shadow.holder.ruleSet.managedLists) { live, _ in live } }
        var created = false
        var problems: [String: String] = [:]
        for (name, kind) in declared.sorted(by: { $0.key < $1.key }) where held[name] == nil {
            do {
                if try await engine.lists.createDeclared(name: name, kind: kind) {
                    logger.notice("run-time list created, empty, as the rules declare it", metadata: ["list": .string(name), "kind": .string(kind.rawValue)])
                }
                created = true
            } catch let error as EngineError where error.code == .tooManyLists {
                // The lists held stay in force; only this one is missing, and matches nothing.
                problems["\(name) not created"] = "the rules read run-time list \(name), which the store does not have and cannot take: \(error.message)"
            }
        }
        let kinds = created ? try await engine.lists.refresh().kinds : held
        for (name, kind) in declared {
            switch kinds[name] {
            case nil: break
            case let stored? where stored != kind:
                problems["\(name) \(stored)≠\(kind)"] = "the rules declare run-time list \(name) as \(kind), but the store's list is \(stored): it matches nothing"
            default: break
            }
        }
        let fresh = reported.withLock { reported in
            let fresh = Set(problems.keys).subtracting(reported)
            reported = Set(problems.keys)
            return fresh
        }
        for key in fresh.sorted() { logger.warning("\(problems[key] ?? key)") }
    }

    /// The read every `apps.policyReloadSeconds` beside the server.
    package func service(interval: Duration) -> PeriodicStoreRead {
        PeriodicStoreRead(subject: "run-time lists", kept: "the lists held stay in force", interval: interval, logger: logger) { [self] in
            try await load()
        }
    }
}
