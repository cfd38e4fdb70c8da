import ArgumentParser
import AttestGuardRuntime
import AttestGuardStore
import AttestVocabulary
import Foundation
import Logging
import RiskRules
import AttestGuardWire

/// `attestguard rules explain --request-id ID --app APP`: the logged decision with that request id, its snapshot
/// evaluated under the rule set at the instant it was decided, and the fraud label that applies to it (its own,
/// else its key's, user's or device's: ``DecisionLabels``). The store is opened for reading beside a running
/// server. Exit 1 when no decision has the id, 3 when the store is unusable.
enum LoggedDecisionExplanation {
    static func explain(requestId: String, app: String, ruleSet: RuleSet, configuration: ServerConfiguration, json: Bool) async throws -> String {
        var logger = Logger(label: "attestguard")
        logger.logLevel = .warning
        let store: OpenedStore
        do {
            store = try await OpenedStore.openForReading(configuration.database.coldPool, clock: { Date() }, logger: logger)
        } catch {
            fail("cannot open the store: \(error)", code: 3)
        }
        let services = store.services
        let found: Result<(DecisionLogEntry, FraudLabelRecord?)?, any Error> = await {
            do {
                return .success(try await withThrowingTaskGroup(of: (DecisionLogEntry, FraudLabelRecord?)??.self) { group in
                    for service in services { group.addTask { try await service.run(); return nil } }
                    _ = try await store.schemaVersion()
                    guard let entry = try await store.store.decision(appId: app, requestId: requestId) else {
                        group.cancelAll()
                        return .some(nil)
                    }
                    let label = DecisionLabels(try await store.store.labels(for: [entry])).label(of: entry)
                    group.cancelAll()
                    return (entry, label)
                } ?? nil)
            } catch {
                return .failure(error)
            }
        }()
        await store.close()
        let entry: DecisionLogEntry
        let label: FraudLabelRecord?
        switch found {
        case .failure(let error): fail("reading the store failed: \(error)", code: 3)
        case .success(nil): fail("no logged decision of \(app) has the request id \(requestId)", code: 1)
        case .success(let pair?): (entry, label) = pair
        }
        guard let values = ruleSet.values(snapshot: entry.signals, decidedAt: entry.decidedAt) else {
            fail("the decision's signal snapshot is unreadable", code: 1)
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let evaluation = try JSONSerialization.jsonObject(with: try encoder.encode(ruleSet.evaluate(values)))
            let object: [String: Any] = [
                "requestId": requestId, "appId": app, "decidedAt": RFC3339.format(entry.decidedAt),
                "loggedDecision": entry.ruleDecision.rawValue, "loggedRuleSetVersion": entry.ruleSetVersion,
                "label": label.map(labelObject) ?? NSNull(), "evaluation": evaluation,
            ]
            let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
            return String(decoding: data, as: UTF8.self)
        }
        return [
            "decision \(requestId) of \(app) at \(RFC3339.format(entry.decidedAt)): logged \(entry.ruleDecision.rawValue) under rules \(entry.ruleSetVersion)",
            "label: " + (label.map(labelText) ?? "none"),
            "",
            RuleExplanation.text(ruleSet, values: values),
        ].joined(separator: "\n")
    }

    /// `fraud (chargebacks, 2026-11-20T10:00:00Z, on its key)`.
    static func labelText(_ label: FraudLabelRecord) -> String {
        "\(label.label.rawValue) (\(label.source), \(RFC3339.format(label.labelledAt)), \(subject(label.kind)))"
    }

    private static func labelObject(_ label: FraudLabelRecord) -> [String: Any] {
        ["label": label.label.rawValue, "source": label.source, "labelledAt": RFC3339.format(label.labelledAt), "subject": label.kind.rawValue]
    }

    private static func subject(_ kind: LabelSubjectKind) -> String {
        switch kind {
        case .decision: "on the decision"
        case .key: "on its key"
        case .user: "on its user"
        case .device: "on its device"
        }
    }

    private static func fail(_ message: String, code: Int32) -> Never {
        FileHandle.standardError.write(Data("attestguard rules explain: \(message)\n".utf8))
        Foundation.exit(code)
    }
}
