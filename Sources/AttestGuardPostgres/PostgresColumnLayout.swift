import PostgresNIO
import Synchronization

/// The column names of one statement's rows, in order, learnt from a row, so that a reader finds a named cell by its
/// position. postgres-nio finds a cell by name with two hash look-ups of the name (`contains`, then the subscript),
/// and a batch statement's row has about thirty cells a verdict reads; a reader that walks the layout from its last
/// read (``PostgresColumnCursor``) finds the next name with a comparison or two.
///
/// A learnt layout is a hint, never trusted: every cell found by position must carry the name asked for, and a row
/// whose columns differ (another column count, another name at the position) is learnt again. A name that occurs
/// twice in a row is read by name, as postgres-nio reads it (its last column).
struct PostgresColumnLayout: Sendable {
    /// The row's column names, in order.
    let names: [String]
    /// Each name's length in UTF-8 bytes, compared before the name: most names a search passes differ in length.
    let lengths: [Int]
    /// The names that occur more than once.
    let repeated: Set<String>

    init(learning row: PostgresRandomAccessRow) {
        names = (0..<row.count).map { row[$0].columnName }
        lengths = names.map(\.utf8.count)
        var seen = Set<String>(), repeated = Set<String>()
        for name in names where !seen.insert(name).inserted { repeated.insert(name) }
        self.repeated = repeated
    }

    /// The layouts learnt so far, per statement type (a generic statement's each shape is a type of its own).
    private static let learnt = Mutex<[ObjectIdentifier: PostgresColumnLayout]>([:])

    /// The layout learnt for `statement`'s rows when it has `row`'s column count, else `row`'s, learnt now.
    static func of(_ statement: Any.Type, row: PostgresRandomAccessRow) -> PostgresColumnLayout {
        let key = ObjectIdentifier(statement)
        if let layout = learnt.withLock({ $0[key] }), layout.names.count == row.count { return layout }
        return learn(statement, from: row)
    }

    /// `row`'s layout, kept as `statement`'s from now on.
    static func learn(_ statement: Any.Type, from row: PostgresRandomAccessRow) -> PostgresColumnLayout {
        let layout = PostgresColumnLayout(learning: row)
        learnt.withLock { $0[ObjectIdentifier(statement)] = layout }
        return layout
    }
}

/// One row's reads by position (``PostgresColumnLayout``): where the last read was, so that reads in the row's
/// column order find each name at the next position. Shared by the readers of one row, one read at a time.
final class PostgresColumnCursor {
    private let statement: Any.Type
    private var layout: PostgresColumnLayout
    private var next = 0

    init(statement: Any.Type, row: PostgresRandomAccessRow) {
        self.statement = statement
        layout = PostgresColumnLayout.of(statement, row: row)
    }

    /// The cell named `name` in `row`, found by position; `nil` for a name the layout repeats or lacks, which the
    /// caller reads by name.
    func cell(named name: String, in row: PostgresRandomAccessRow) -> PostgresCell? {
        if layout.names.count != row.count { relearn(from: row) }
        guard layout.repeated.isEmpty || !layout.repeated.contains(name) else { return nil }
        switch find(name, in: row) {
        case .found(let cell): return cell
        case .absent: return nil
        case .moved:
            // Another column sits where the layout has this name: the layout is not this row's.
            relearn(from: row)
            guard layout.repeated.isEmpty || !layout.repeated.contains(name), case .found(let cell) = find(name, in: row) else { return nil }
            return cell
        }
    }

    private enum Search {
        case found(PostgresCell)
        /// The layout has no such name.
        case absent
        /// The layout's position for the name holds another column in this row.
        case moved
    }

    /// Looks for `name` from where the last read was, round the layout once.
    private func find(_ name: String, in row: PostgresRandomAccessRow) -> Search {
        let count = layout.names.count, length = name.utf8.count
        for step in 0..<count {
            let position = next + step < count ? next + step : next + step - count
            guard layout.lengths[position] == length, layout.names[position] == name else { continue }
            let cell = row[position]
            guard cell.columnName == name else { return .moved }
            next = position + 1 < count ? position + 1 : 0
            return .found(cell)
        }
        return .absent
    }

    private func relearn(from row: PostgresRandomAccessRow) {
        layout = PostgresColumnLayout.learn(statement, from: row)
        next = 0
    }
}
