import SQLiteNIO

/// Statements that carry many rows each in one `VALUES` list: the write-behind flushes (the decision log, velocity
/// counters, distinct sightings, key use, gateway checks) and a batch's assertion claims. On this store each statement
/// is a hop to SQLiteNIO's thread and back, which costs more than SQLite's work for a row: a flush of a second's rows
/// as one statement per row spent most of the store's time in those hops.
///
/// SQLite applies a multi-row `INSERT ... VALUES` row by row in the list's order, so an upsert whose rows meet the same
/// key twice behaves as the statements one after another would, and rowids follow the list.
struct SQLiteRowStatements {
    /// One statement: its text and its values in order.
    struct Statement {
        let sql: String
        let binds: [SQLiteData]
    }

    /// The most rows one statement carries unless the caller says fewer: a second's flush in one or a few statements,
    /// each at most 30,000 parameters (a row has at most ``maximumWidth`` values), under SQLite's default limit.
    static let maximumRows = 500
    /// The most rows of an `UPDATE ... FROM` a table of them: with more, SQLite's planner (without statistics, which
    /// this store does not gather) scans the whole updated table once instead of looking each row up by its key.
    static let maximumJoinedRows = 100
    /// The most values a row may have.
    static let maximumWidth = 60

    /// The statements in the order they run.
    let statements: [Statement]

    /// Statements writing `rows` in order, at most `rowsPerStatement` each: the text is `head`, the rows'
    /// placeholders (`(?, ?, ...), (?, ?, ...)`), then `tail`. Every row has `width` values; none is spliced into the
    /// text.
    init(_ head: String, rows: [[SQLiteData]], width: Int, _ tail: String = "", rowsPerStatement: Int = maximumRows) {
        precondition(width > 0 && width <= Self.maximumWidth, "a row of 1 to \(Self.maximumWidth) values")
        precondition(rowsPerStatement > 0 && rowsPerStatement <= Self.maximumRows, "1 to \(Self.maximumRows) rows a statement")
        let placeholder = "(" + Array(repeating: "?", count: width).joined(separator: ", ") + ")"
        statements = stride(from: 0, to: rows.count, by: rowsPerStatement).map { start in
            let chunk = rows[start..<min(start + rowsPerStatement, rows.count)]
            var binds: [SQLiteData] = []
            binds.reserveCapacity(chunk.count * width)
            for row in chunk {
                precondition(row.count == width, "every row has \(width) values")
                binds.append(contentsOf: row)
            }
            let list = Array(repeating: placeholder, count: chunk.count).joined(separator: ", ")
            return Statement(sql: "\(head) \(list) \(tail)", binds: binds)
        }
    }

    /// Runs the statements one after another on `connection` (inside the caller's transaction); answers the rows they
    /// return, in order.
    @discardableResult
    func run(on connection: SQLiteConnection) async throws -> [SQLiteRow] {
        var rows: [SQLiteRow] = []
        for statement in statements { rows += try await connection.query(statement.sql, statement.binds) }
        return rows
    }
}
