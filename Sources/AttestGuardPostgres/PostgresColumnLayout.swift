import PostgresNIO
import Synchronization

/// The column names of one statement's rows, in order, learnt from a row, so that a reader finds a named cell by its
/// position. postgres-nio finds a cell by name with two hash look-ups of the name (`contains`, then the subscript),
/// and a batch statement's row has about thirty cells a verdict reads; a reader that walks the layout from its last
/// read (``PostgresColumnCursor``) finds the next name with a comparison or two.
///
/// A learnt layout is a hint for rows of the same statement: every cell found by position must carry the name asked
/// for, and a row with another column count, another name at the position or a name the layout lacks is learnt
/// again. A name the layout holds twice is read by name, as postgres-nio reads it (its last column). What the hint
/// cannot see without reading every column's name is a row of the same count that repeats a name the layout holds
/// once: the statements that read by position have distinct column names (`PostgresColumnLayoutTests` holds them to
/// it), and a statement's columns change only with its text or its tables.
struct PostgresColumnLayout: Sendable {
    /// The row's column names, in order.
    let names: [String]
    /// Each name's length in UTF-8 bytes, compared before the name: most names a search passes differ in length.
    let lengths: [Int]
    /// The names that occur more than once.
    let repeated: Set<String>
    /// The statement type it was learnt for, for tests and messages.
    let statement: String

    init(learning row: PostgresRandomAccessRow, of statement: Any.Type) {
        names = (0..<row.count).map { row[$0].columnName }
        lengths = names.map(\.utf8.count)
        var seen = Set<String>(), repeated = Set<String>()
        for name in names where !seen.insert(name).inserted { repeated.insert(name) }
        self.repeated = repeated
        self.statement = String(reflecting: statement)
    }

    /// The layouts learnt so far, per statement type (a generic statement's each shape is a type of its own).
    private static let learnt = Mutex<[ObjectIdentifier: PostgresColumnLayout]>([:])

    /// Every layout learnt so far.
    static var allLearnt: [PostgresColumnLayout] { learnt.withLock { Array($0.values) } }

    /// The layout learnt for `statement`'s rows when it has `row`'s column count, else `row`'s, learnt now.
    static func of(_ statement: Any.Type, row: PostgresRandomAccessRow) -> PostgresColumnLayout {
        let key = ObjectIdentifier(statement)
        if let layout = learnt.withLock({ $0[key] }), layout.names.count == row.count { return layout }
        return learn(statement, from: row)
    }

    /// `row`'s layout, kept as `statement`'s from now on.
    static func learn(_ statement: Any.Type, from row: PostgresRandomAccessRow) -> PostgresColumnLayout {
        let layout = PostgresColumnLayout(learning: row, of: statement)
        learnt.withLock { $0[ObjectIdentifier(statement)] = layout }
        return layout
    }
}

/// One row's reads by position (``PostgresColumnLayout``): where the last read was, so that reads in the row's
/// column order find each name at the next position. Shared by the readers of one row, one read at a time.
final class PostgresColumnCursor {
    private let statement: Any.Type
    private let row: PostgresRandomAccessRow
    /// A layout of `row`'s column count (``PostgresColumnLayout/of(_:row:)``), so every position it names is a cell.
    private var layout: PostgresColumnLayout
    private var next = 0

    init(statement: Any.Type, row: PostgresRandomAccessRow) {
        self.statement = statement
        self.row = row
        layout = PostgresColumnLayout.of(statement, row: row)
    }

    /// The cell named `name` in the row, found by position; `nil` for a name the row repeats or lacks, which the
    /// caller reads by name.
    func cell(named name: String) -> PostgresCell? {
        switch find(name) {
        case .found(let cell): return cell
        case .byName: return nil
        case .stale:
            layout = PostgresColumnLayout.learn(statement, from: row)
            next = 0
            guard case .found(let cell) = find(name) else { return nil }
            return cell
        }
    }

    /// What a search of the layout for a name finds.
    private enum Search {
        case found(PostgresCell)
        /// The name is repeated in the layout, or absent from it and from the row: read by name.
        case byName
        /// The layout is not this row's: another column where it has the name, or the row has a name it lacks.
        case stale
    }

    /// Looks for `name` from where the last read was, round the layout once.
    private func find(_ name: String) -> Search {
        guard layout.repeated.isEmpty || !layout.repeated.contains(name) else { return .byName }
        let count = layout.names.count, length = name.utf8.count
        for step in 0..<count {
            let position = next + step < count ? next + step : next + step - count
            guard layout.lengths[position] == length, layout.names[position] == name else { continue }
            let cell = row[position]
            guard cell.columnName == name else { return .stale }
            next = position + 1 < count ? position + 1 : 0
            return .found(cell)
        }
        return row.contains(name) ? .stale : .byName
    }
}
