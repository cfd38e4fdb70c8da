import Foundation
import PostgresNIO
import AttestGuardStore

/// The scoring-facts queries of a batch as statement parameters, for statements that read the facts of many
/// entries at once (``CommitAssertionsStatement``, ``ScoringFactsBatchStatement``): each query's scalars as parallel
/// arrays, unnested into the columns of the entry row `e` (with its position `e.i`), and each query's lists
/// (DeviceCheck scopes and subjects, velocity sums, label subjects, distinct counts and the members each leaves out)
/// as flat arrays, the batch's entries one after another, with an array of where each entry's run ends. ``facts(_:)``
/// is ``ScoringFactsSQL`` over those inputs: the scalars read through the parameter row `p` (``parameterColumns``), the
/// lists straight from their parameters.
///
/// An entry reads its run of a list as an array slice (``slice(_:endedBy:at:)``), so a batch of n entries unnests each
/// list element once; unnesting a whole list for every entry and keeping its elements would unnest it n times, which
/// for a batch of a dozen assertions is a large part of the statement's work.
///
/// Arrays cannot carry NULL elements here, so each optional value is a presence flag and a placeholder.
struct BatchedFactsParameters {
    /// How many of the block's parameters are scalar arrays (one element per entry); the 16 after them are lists.
    static let scalarCount = 12

    /// The columns of `e` the scalar arrays unnest into, in order.
    private static let scalarColumns = [
        "f_app_id", "f_has_key", "f_key_id", "f_receipt", "f_has_baseline", "f_baseline_at", "f_superseded", "f_dc_environment",
        "f_has_writer", "f_writer", "f_has_validation_user", "f_validation_user",
    ]

    /// What an absent instant is sent as (beside its presence flag). A stored constant, so that the closures that
    /// write the arrays capture nothing.
    private static let placeholderInstant = Date(timeIntervalSince1970: 0)

    /// The block's parameter types, in order.
    static let dataTypes = types.map(\.array)

    /// The number of the block's first parameter.
    let first: Int

    /// An array parameter's element type.
    private enum ElementType: String {
        case text, bool, bytea, timestamptz, int8

        var array: PostgresDataType {
            switch self {
            case .text: .textArray
            case .bool: .boolArray
            case .bytea: .byteaArray
            case .timestamptz: .timestamptzArray
            case .int8: .int8Array
            }
        }
    }

    /// The element type of each parameter's array, in order: the 12 scalars, then the 16 lists.
    private static let types: [ElementType] = [
        .text, .bool, .bytea, .bool, .bool, .timestamptz, .bool, .text, .bool, .text, .bool, .text,
        .int8, .text, .int8, .text, .text, .int8, .bytea, .int8, .int8, .text, .text, .int8, .bytea, .int8, .int8, .bytea,
    ]

    /// The block's `offset`th parameter (from 0): a scalar array as a column of the parameter row `p`
    /// (``parameterColumns``), a list as the parameter itself. Each list is read only through a slice whose bounds
    /// depend on the entry row, which the planner cannot know in any plan, so a list needs no barrier.
    private func parameter(_ offset: Int) -> String {
        offset < Self.scalarCount ? "p.p\(first + offset)" : "($\(first + offset)::\(Self.types[offset].rawValue)[])"
    }

    /// The run of list parameter `list` that belongs to the run numbered `run` (an SQL expression, from 1), where the
    /// `int8[]` parameter `ends` holds, for each run in order, the position of its last element (from 1; a run
    /// without elements ends where the one before it did). An empty run is an empty array. A slice unnests only its
    /// own elements: for the fixed-size elements of `int8[]` the bounds are found by arithmetic, and for the others
    /// by walking past the elements before it, which is far cheaper than unnesting them.
    private func slice(_ list: Int, endedBy ends: Int, at run: String) -> String {
        "\(parameter(list))[\(runStart(endedBy: ends, at: run)):\(parameter(ends))[\(run)]]"
    }

    /// The position of the first element of run `run` in the lists that `ends` ends (``slice(_:endedBy:at:)``).
    private func runStart(endedBy ends: Int, at run: String) -> String {
        "coalesce(\(parameter(ends))[\(run) - 1], 0) + 1"
    }

    /// The block's scalar arrays as the columns of the parameter row `p`: `$n::type[] AS pn`, for a
    /// `(SELECT ... \(planBarrier(keepingPlan: true))) AS p` that the entry rows are unnested from.
    ///
    /// For a prepared statement, the row is an optimisation barrier (``planBarrier(keepingPlan:)``): read through it,
    /// an array's length is as unknown to the planner when it plans for the values at hand as when it plans once for
    /// any values, so both plans cost the same and PostgreSQL keeps the plan it made once (after its first five
    /// executions). Read straight from the parameters, a batch of two is costed as two rows and the plan for any
    /// values as a hundred: PostgreSQL then plans the whole statement again at every execution, which costs more CPU
    /// than running it. A statement sent unnamed (behind a pooler) is planned at every call anyway, and without the
    /// barrier the planner folds the values in and plans it in about 1 ms less. Only the scalars pass through the row:
    /// every plan node that carries it builds a descriptor of each of its columns at every execution, and the lists
    /// need no barrier (``parameter(_:)``).
    var parameterColumns: String {
        (0..<Self.scalarCount).map { "$\(first + $0)::\(Self.types[$0].rawValue)[] AS p\(first + $0)" }.joined(separator: ", ")
    }

    /// What ends the parameter row's `SELECT`: `OFFSET 0`, which keeps the planner from pulling the row up into the
    /// statement, for a statement prepared once (`keepingPlan`); nothing for one planned at every call.
    static func planBarrier(keepingPlan: Bool) -> String { keepingPlan ? "OFFSET 0" : "" }

    /// The entry rows: a query of one row per entry, its scalars in the columns ``scalarColumns`` and its position
    /// in `i` (from 1), for `CROSS JOIN LATERAL (...) AS e` after the parameter row `p`.
    var entryRows: String {
        let columns = (0..<Self.scalarCount).map { (array: parameter($0), name: Self.scalarColumns[$0]) }
        return ParallelArrayRows(first: columns[0], others: Array(columns.dropFirst())).query(unnestedAs: "entry_scalars")
    }

    /// The facts of the entry row `e` in `shape`: its scalars are columns of `e`, its lists the entry's runs of the
    /// flat arrays.
    func facts(_ shape: any ScoringFactsShape.Type) -> String {
        let list = Self.scalarCount
        // Each list's run for entry `e`; the distinct counts' excluded members by the count's position among all
        // the batch's counts (the entry's first count's position, plus the count's place in the entry's run, less 1).
        let scopes = slice(list + 1, endedBy: list, at: "e.i")
        let subjectKinds = slice(list + 3, endedBy: list + 2, at: "e.i"), subjects = slice(list + 4, endedBy: list + 2, at: "e.i")
        let series = slice(list + 6, endedBy: list + 5, at: "e.i"), since = slice(list + 7, endedBy: list + 5, at: "e.i")
        let labelKinds = slice(list + 9, endedBy: list + 8, at: "e.i"), labelSubjects = slice(list + 10, endedBy: list + 8, at: "e.i")
        let distinctSeries = slice(list + 12, endedBy: list + 11, at: "e.i")
        let distinctSince = slice(list + 13, endedBy: list + 11, at: "e.i")
        let excluded = slice(list + 15, endedBy: list + 14, at: "(\(runStart(endedBy: list + 11, at: "e.i")) + l.i - 1)")
        var sql = ScoringFactsSQL(
            appId: "e.f_app_id",
            keyId: "(CASE WHEN e.f_has_key THEN e.f_key_id END)",
            receipt: "e.f_receipt",
            metricBaselineAt: "(CASE WHEN e.f_has_baseline THEN e.f_baseline_at END)",
            supersededKeys: "e.f_superseded",
            deviceCheckScopes: "unnest(\(scopes)) WITH ORDINALITY AS sc(scope, j)",
            deviceCheckEnvironment: "e.f_dc_environment",
            deviceCheckSubjects: "unnest(\(subjectKinds), \(subjects)) WITH ORDINALITY AS q(kind, subject, i)",
            velocitySums: "unnest(\(series), \(since)) WITH ORDINALITY AS q(series, since, i)",
            labelSubjects: "unnest(\(labelKinds), \(labelSubjects)) AS lq(kind, subject)",
            distinctCounts: """
                (SELECT l.series, l.since, l.i, \(excluded) AS excluding
                 FROM unnest(\(distinctSeries), \(distinctSince)) WITH ORDINALITY AS l(series, since, i)) AS dq
                """,
            velocityWriter: "(CASE WHEN e.f_has_writer THEN e.f_writer END)",
            validationUserId: "(CASE WHEN e.f_has_validation_user THEN e.f_validation_user END)"
        )
        sql.readsDailyFacts = shape.readsDailyFacts
        return sql.text
    }

    /// Appends the block's parameters (``dataTypes``) for `queries`, in the batch's order, all through
    /// ``ArrayParameter``: the scalar arrays encoded from `queries` as they are written, the lists gathered into
    /// arrays first, the `bytea` lists into one buffer each (``ByteaArrayParameter``), each list after the array of
    /// where each entry's run of it ends (``slice(_:endedBy:at:)``; the distinct counts' excluded members by count).
    static func append(_ queries: [ScoringFactsQuery], to bindings: inout PostgresBindings) {
        bindings.append(ArrayParameter(queries) { $0.pointee.appId })
        bindings.append(ArrayParameter(queries) { $0.pointee.keyId != nil })
        bindings.append(ByteaArrayParameter(queries) { $0.pointee.keyId ?? Data() })
        bindings.append(ArrayParameter(queries) { $0.pointee.receipt })
        bindings.append(ArrayParameter(queries) { $0.pointee.metricBaselineAt != nil })
        bindings.append(ArrayParameter(queries) { $0.pointee.metricBaselineAt ?? Self.placeholderInstant })
        bindings.append(ArrayParameter(queries) { $0.pointee.supersededKeys })
        bindings.append(ArrayParameter(queries) { ($0.pointee.deviceCheck?.defaultEnvironment ?? .production).rawValue })
        bindings.append(ArrayParameter(queries) { $0.pointee.velocityWriter != nil })
        bindings.append(ArrayParameter(queries) { $0.pointee.velocityWriter ?? "" })
        bindings.append(ArrayParameter(queries) { $0.pointee.deviceCheckValidationUserId != nil })
        bindings.append(ArrayParameter(queries) { $0.pointee.deviceCheckValidationUserId ?? "" })

        // Each list is sized once for the whole batch, so that no list reallocates as it fills.
        var sizes = ListSizes()
        for query in queries { sizes.add(query) }
        let entries = queries.count
        var scopeEnds = [Int64](capacity: entries), scopes = [String](capacity: sizes.scopes)
        var subjectEnds = [Int64](capacity: entries), subjectKinds = [String](capacity: sizes.subjects)
        var subjects = [String](capacity: sizes.subjects)
        var velocityEnds = [Int64](capacity: entries), since = [Int64](capacity: sizes.velocity)
        var series = ByteaArrayParameter(capacity: sizes.velocity, totalBytes: sizes.velocity * 16)
        var labelEnds = [Int64](capacity: entries), labelKinds = [String](capacity: sizes.labels)
        var labelSubjects = [String](capacity: sizes.labels)
        var distinctEnds = [Int64](capacity: entries), distinctSince = [Int64](capacity: sizes.distinct)
        var distinctSeries = ByteaArrayParameter(capacity: sizes.distinct, totalBytes: sizes.distinct * 16)
        var excludedEnds = [Int64](capacity: sizes.distinct)
        var excludedMembers = ByteaArrayParameter(capacity: sizes.excluded, totalBytes: sizes.excluded * 16)
        for query in queries {
            for scope in query.deviceCheck?.scopes ?? [] { scopes.append(scope.rawValue) }
            scopeEnds.append(Int64(scopes.count))
            for subject in query.deviceCheck?.subjects ?? [] {
                subjectKinds.append(subject.kind.rawValue)
                subjects.append(subject.value)
            }
            subjectEnds.append(Int64(subjects.count))
            for lookup in query.labelSubjects {
                labelKinds.append(lookup.kind.rawValue)
                labelSubjects.append(lookup.subject)
            }
            labelEnds.append(Int64(labelKinds.count))
            for sum in query.velocity {
                VelocitySeriesId.append(appId: query.appId, subject: sum.subject, event: sum.event, to: &series)
                since.append(sum.since)
            }
            velocityEnds.append(Int64(since.count))
            for read in query.distinct {
                distinctSeries.append(read.series)
                distinctSince.append(read.since)
                for member in read.excluding { excludedMembers.append(member) }
                excludedEnds.append(Int64(excludedMembers.count))
            }
            distinctEnds.append(Int64(distinctSince.count))
        }
        bindings.append(ArrayParameter(scopeEnds))
        bindings.append(ArrayParameter(scopes))
        bindings.append(ArrayParameter(subjectEnds))
        bindings.append(ArrayParameter(subjectKinds))
        bindings.append(ArrayParameter(subjects))
        bindings.append(ArrayParameter(velocityEnds))
        bindings.append(series)
        bindings.append(ArrayParameter(since))
        bindings.append(ArrayParameter(labelEnds))
        bindings.append(ArrayParameter(labelKinds))
        bindings.append(ArrayParameter(labelSubjects))
        bindings.append(ArrayParameter(distinctEnds))
        bindings.append(distinctSeries)
        bindings.append(ArrayParameter(distinctSince))
        bindings.append(ArrayParameter(excludedEnds))
        bindings.append(excludedMembers)
    }

    /// How many elements each list parameter of a batch has.
    private struct ListSizes {
        var scopes = 0, subjects = 0, velocity = 0, labels = 0, distinct = 0, excluded = 0

        mutating func add(_ query: ScoringFactsQuery) {
            scopes += query.deviceCheck?.scopes.count ?? 0
            subjects += query.deviceCheck?.subjects.count ?? 0
            velocity += query.velocity.count
            labels += query.labelSubjects.count
            distinct += query.distinct.count
            for read in query.distinct { excluded += read.excluding.count }
        }
    }

    /// The entry a row of a batch statement answers (column `batch_index`, from 1), as an index into a batch of
    /// `count` entries.
    static func entryIndex(of row: PostgresRowReader, in count: Int) throws -> Int {
        let position = try row.reading(table: "batched scoring facts")("batch_index", as: Int64.self)
        guard position >= 1, position <= Int64(count) else {
            throw StoreError(.corruptRow, "the batch's statement answered entry \(position) of \(count)")
        }
        return Int(position) - 1
    }
}

private extension Array {
    /// An empty array with room for `capacity` elements; no allocation for none.
    init(capacity: Int) {
        self.init()
        reserveCapacity(capacity)
    }
}
