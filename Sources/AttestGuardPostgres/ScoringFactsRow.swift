import AttestVocabulary
import Foundation
import NIOCore
import PostgresNIO
import AttestGuardStore

/// The facts in a row of ``ScoringFactsSQL``'s columns, as the batch statements that read them answer
/// (``CommitAssertionsStatement``, ``ScoringFactsBatchStatement``).
enum ScoringFactsRow {
    /// The facts in `row`, a row of ``ScoringFactsSQL``'s columns, as `query` asked for them.
    static func facts(in row: PostgresRowReader, asked query: ScoringFactsQuery) throws -> ScoringFacts {
        let read = row.reading(table: "scoring facts")
        var facts = ScoringFacts()
        if try read("key_found", as: Bool.self) {
            facts.key = try KeyRecord(postgres: row.reading(table: "app_keys"))
        }
        // The facts that change about daily are read only when asked: a statement for a batch that asks none leaves
        // their columns out (``ScoringFactsShape``), and unasked they are empty in the others.
        if query.receipt, try read("receipt_found", as: Bool.self) {
            facts.receipt = ReceiptSummary(
                receiptType: ReceiptType(rawValue: try read("r_receipt_type")), riskMetric: try read("r_risk_metric", as: Int32?.self).map(Int.init),
                metricStale: try read("r_metric_stale"), refreshedAt: try read("r_refreshed_at")
            )
        }
        if query.metricBaselineAt != nil {
            facts.metricBaseline = try read("baseline_metric", as: Int32?.self).map(Int.init)
        }
        if query.supersededKeys {
            facts.supersededKeys = try read("superseded_keys", as: Int64?.self).map(Int.init)
        }
        if query.deviceCheck != nil, try read("dc_found", as: Bool.self) {
            facts.deviceCheck = DeviceCheckRecord(
                scope: DeviceCheckScope(rawValue: try read("dc_scope")), environment: try read.enumeration("dc_environment", as: AppAttestEnvironment.self),
                subject: DeviceCheckSubject(kind: try read.enumeration("dc_subject_kind", as: DeviceCheckSubject.Kind.self), value: try read("dc_subject")),
                bit0: try read("dc_bit0"), bit1: try read("dc_bit1"), found: true,
                lastUpdateTime: try read("dc_last_update_time"), observedAt: try read("dc_observed_at")
            )
        }
        if let userId = query.deviceCheckValidationUserId, let validatedAt = try read("dv_validated_at", as: Date?.self) {
            facts.deviceCheckValidation = DeviceCheckValidationRecord(
                appId: query.appId, userId: userId, environment: try read.enumeration("dv_environment", as: AppAttestEnvironment.self),
                validatedAt: validatedAt
            )
        }
        if let kinds = try read("label_kinds", as: [String]?.self) {
            let subjects = try read("label_subjects", as: [String].self), sources = try read("label_sources", as: [String].self)
            let labels = try read("label_values", as: [String].self), times = try read("label_times", as: [Date].self)
            guard subjects.count == kinds.count, sources.count == kinds.count, labels.count == kinds.count, times.count == kinds.count else {
                throw StoreError(.corruptRow, "the scoring facts' label arrays differ in length")
            }
            facts.labels = try kinds.indices.map { index in
                guard let kind = LabelSubjectKind(rawValue: kinds[index]), let label = FraudLabel(rawValue: labels[index]) else {
                    throw StoreError(.corruptRow, "labels: a label \(labels[index]) of a \(kinds[index]) is not one this build reads")
                }
                return FraudLabelRecord(
                    appId: query.appId, kind: kind, subject: subjects[index], source: sources[index], label: label, labelledAt: times[index]
                )
            }
            // The statement aggregates them unsorted; the facts carry them by kind, subject and source, bytewise, as
            // SQLite's reads and `labels(appId:of:)` give them.
            if facts.labels.count > 1 { facts.labels.sort(by: FraudLabelRecord.precedesInStoreOrder) }
        }
        facts.distinct = try read("distinct_totals", as: Int64ArrayColumn?.self)?.values ?? []
        facts.velocity = VelocityReading(
            totals: try read("velocity_totals", as: Int64ArrayColumn?.self)?.values ?? [], flushedSequence: try read("velocity_flushed")
        )
        return facts
    }
}
