import AttestVocabulary

/// The text of the scoring-facts query over its inputs, so that one query serves every verdict of a batch of reads
/// (``ScoringFactsBatchStatement``) and every assertion of a batch of commits (``CommitAssertionsStatement``), its
/// inputs from the batch's entry row (``BatchedFactsParameters``): the facts are written once.
///
/// Each input is an SQL expression; the three lists are `FROM` items with the column names the query reads. One row
/// always comes back: `key_found` says whether the key columns (`app_keys.*`) mean anything. Each part is skipped by
/// its flag or an empty list; the receipt's bytes are never read. Velocity sums come as one array in the order asked
/// (empty when none is asked), with the writer's flush sequence from the same snapshot; the labels of the subjects
/// asked for as five parallel arrays (kind, subject, source, label, labelled-at: one element per source's label, each
/// found by the primary key, in no order: the reader orders them); the distinct counts as one array in the order
/// asked, each counting at most `DistinctCount.maximum` members by the `distinct_sightings_recent` index. Each sum and
/// each count is a scalar subquery in an `ARRAY(...)`: one index probe per element, without the join, grouping and
/// sorted aggregate of a `GROUP BY`.
struct ScoringFactsSQL {
    /// `text`: the app.
    var appId: String
    /// `bytea`: the key (NULL: nothing key-related is found).
    var keyId: String
    /// `bool`: read the key's receipt summary.
    var receipt: String
    /// `timestamptz`: the instant of the risk-metric baseline (NULL: none read).
    var metricBaselineAt: String
    /// `bool`: count the superseded keys of the key's user and device.
    var supersededKeys: String
    /// A `FROM` item `sc(scope, j)`: the DeviceCheck scopes in order of preference.
    var deviceCheckScopes: String
    /// `text`: the DeviceCheck environment when the key is unknown.
    var deviceCheckEnvironment: String
    /// A `FROM` item `q(kind, subject, i)`: the DeviceCheck subjects in order of preference.
    var deviceCheckSubjects: String
    /// A `FROM` item `q(series, since, i)`: the velocity sums asked for, in order.
    var velocitySums: String
    /// A `FROM` item `lq(kind, subject)`: the subjects whose labels are read.
    var labelSubjects: String
    /// A `FROM` item `dq(series, since, excluding, i)`: the distinct counts asked for, in order, each with the
    /// members it leaves out (`bytea[]`).
    var distinctCounts: String
    /// `text`: the velocity writer whose latest flush is read (NULL: none).
    var velocityWriter: String
    /// `text`: the user whose latest DeviceCheck validation is read (NULL: none).
    var validationUserId: String
    /// Whether the text reads the facts that change about daily (the receipt, the risk-metric baseline, the
    /// superseded keys, DeviceCheck bits and validations): `false` leaves their parts and columns out, for a batch
    /// none of whose queries asks for them (``ScoringFactsShape``). The parts that stay are the same text.
    var readsDailyFacts = true

    var text: String {
        let daily = readsDailyFacts
        let parts = [("k", key)] + (daily ? [("r", receiptPart), ("b", baselinePart), ("s", supersededPart), ("d", deviceCheckPart), ("dv", validationPart)] : [])
            + [("vs", velocityPart), ("ds", distinctPart), ("lb", labelsPart)]
        let columns = ["k.app_id IS NOT NULL AS key_found, k.*"] + (daily ? [dailyColumns] : [])
            + [
                "vs.totals AS velocity_totals, ds.totals AS distinct_totals",
                """
                lb.kinds AS label_kinds, lb.subjects AS label_subjects, lb.sources AS label_sources, lb.labels AS label_values,
                       lb.labelled_at AS label_times
                """,
                "coalesce((SELECT sequence FROM velocity_flushes WHERE writer = \(velocityWriter)), 0)::int8 AS velocity_flushed",
            ]
        return """
            WITH \(parts.map { "\($0.0) AS (\n\($0.1)\n)" }.joined(separator: ", "))
            SELECT \(columns.joined(separator: ",\n       "))
            FROM (SELECT 1) AS one
            \(parts.map { "LEFT JOIN \($0.0) ON true" }.joined(separator: " "))
            """
    }

    /// The key's row.
    private var key: String {
        "    SELECT * FROM app_keys WHERE app_id = \(appId) AND key_id = \(keyId)"
    }

    /// The key's receipt summary, when asked.
    private var receiptPart: String {
        "    SELECT receipt_type, risk_metric, metric_stale, refreshed_at FROM receipts WHERE \(receipt) AND app_id = \(appId) AND key_id = \(keyId)"
    }

    /// The risk metric of the key's last receipt created at or before the baseline's instant, when asked.
    private var baselinePart: String {
        """
            SELECT risk_metric FROM risk_metric_history
            WHERE \(metricBaselineAt)::timestamptz IS NOT NULL AND app_id = \(appId) AND key_id = \(keyId)
              AND receipt_created_at <= \(metricBaselineAt)
            ORDER BY receipt_created_at DESC LIMIT 1
        """
    }

    /// The count of the superseded keys of the key's user and device, when asked.
    private var supersededPart: String {
        """
            SELECT count(*) AS n FROM k JOIN app_keys o
              ON o.app_id = k.app_id AND o.user_id = k.user_id AND o.device_id = k.device_id AND o.status = 'superseded'
            WHERE \(supersededKeys)
        """
    }

    /// The first stored DeviceCheck bits Apple found, by subject then scope.
    private var deviceCheckPart: String {
        """
            SELECT d.* FROM \(deviceCheckSubjects)
            CROSS JOIN \(deviceCheckScopes)
            JOIN devicecheck_bits d
              ON d.scope = sc.scope AND d.environment = coalesce((SELECT environment FROM k), \(deviceCheckEnvironment))
             AND d.subject_kind = q.kind AND d.subject = q.subject AND d.found
            ORDER BY q.i, sc.j LIMIT 1
        """
    }

    /// The user's latest DeviceCheck validation, when asked.
    private var validationPart: String {
        """
            SELECT environment, validated_at FROM devicecheck_validations
            WHERE \(validationUserId)::text IS NOT NULL AND app_id = \(appId) AND user_id = \(validationUserId)
        """
    }

    /// The velocity sums, in the order asked.
    private var velocityPart: String {
        """
            SELECT ARRAY(
                SELECT coalesce((SELECT sum(v.count) FROM velocity_buckets v WHERE v.series = q.series AND v.bucket >= q.since), 0)::int8
                FROM \(velocitySums)
                ORDER BY q.i
            ) AS totals
        """
    }

    /// The distinct counts, in the order asked.
    private var distinctPart: String {
        """
            SELECT ARRAY(
                SELECT (
                    SELECT count(*) FROM (
                        SELECT 1 FROM distinct_sightings m
                        WHERE m.series = dq.series AND m.last_seen >= dq.since AND m.member <> ALL (dq.excluding)
                        LIMIT \(DistinctCount.maximum)
                    ) AS c
                )::int8
                FROM \(distinctCounts)
                ORDER BY dq.i
            ) AS totals
        """
    }

    /// The labels of the subjects asked for, as parallel arrays: one aggregate node feeds every row to the five
    /// aggregates in turn, so their elements stay in step. They come in the join's order; the reader orders them
    /// (``ScoringFactsRow``). An `ORDER BY` in each aggregate would start five sorts for every entry, labelled or not.
    private var labelsPart: String {
        """
            SELECT array_agg(lt.subject_kind) AS kinds, array_agg(lt.subject) AS subjects, array_agg(lt.source) AS sources,
                   array_agg(lt.label) AS labels, array_agg(lt.labelled_at) AS labelled_at
            FROM \(labelSubjects)
            JOIN labels lt ON lt.app_id = \(appId) AND lt.subject_kind = lq.kind AND lt.subject = lq.subject
        """
    }

    /// The columns of the daily facts' parts.
    private var dailyColumns: String {
        """
        r.receipt_type IS NOT NULL AS receipt_found, r.receipt_type AS r_receipt_type, r.risk_metric AS r_risk_metric,
               r.metric_stale AS r_metric_stale, r.refreshed_at AS r_refreshed_at,
               b.risk_metric AS baseline_metric,
               CASE WHEN \(supersededKeys) AND k.device_id IS NOT NULL THEN s.n END AS superseded_keys,
               d.scope IS NOT NULL AS dc_found, d.scope AS dc_scope, d.environment AS dc_environment,
               d.subject_kind AS dc_subject_kind, d.subject AS dc_subject, d.bit0 AS dc_bit0, d.bit1 AS dc_bit1,
               d.last_update_time AS dc_last_update_time, d.observed_at AS dc_observed_at,
               dv.environment AS dv_environment, dv.validated_at AS dv_validated_at
        """
    }
}
