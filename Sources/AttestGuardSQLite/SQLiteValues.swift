import Foundation
import NIOCore
import SQLiteNIO
import AttestGuardStore

/// Conversions between the store's Swift values and SQLite's storage classes. Times are integer milliseconds
/// since 1970 UTC; bytes are BLOBs.
enum SQLiteValues {
    static func bind(_ date: Date) -> SQLiteData {
        .integer(SQLiteInt64((date.timeIntervalSince1970 * 1000).rounded()))
    }

    static func bind(_ date: Date?) -> SQLiteData {
        date.map { bind($0) } ?? .null
    }

    static func bind(_ data: Data) -> SQLiteData {
        .blob(ByteBuffer(bytes: data))
    }

    static func bind(_ data: Data?) -> SQLiteData {
        data.map { bind($0) } ?? .null
    }

    static func bind(_ text: String?) -> SQLiteData {
        text.map { .text($0) } ?? .null
    }

    static func bind(_ integer: Int64?) -> SQLiteData {
        integer.map { .integer(SQLiteInt64($0)) } ?? .null
    }

    static func bind(_ flag: Bool?) -> SQLiteData {
        flag.map { .integer($0 ? 1 : 0) } ?? .null
    }
}

/// Typed reads of one SQLite row that fail with ``StoreError/Code/corruptRow`` instead of trapping.
struct SQLiteRowReader {
    let row: SQLiteRow
    let table: String

    private func value(_ column: String) throws -> SQLiteData {
        guard let value = row.column(column) else {
            throw StoreError(.corruptRow, "\(table) row has no column \(column)")
        }
        return value
    }

    func text(_ column: String) throws -> String {
        guard case .text(let text) = try value(column) else {
            throw StoreError(.corruptRow, "\(table).\(column) is not text")
        }
        return text
    }

    func optionalText(_ column: String) throws -> String? {
        if case .null = try value(column) { return nil }
        return try text(column)
    }

    func integer(_ column: String) throws -> Int64 {
        guard case .integer(let integer) = try value(column) else {
            throw StoreError(.corruptRow, "\(table).\(column) is not an integer")
        }
        return Int64(integer)
    }

    func optionalInteger(_ column: String) throws -> Int64? {
        if case .null = try value(column) { return nil }
        return try integer(column)
    }

    func blob(_ column: String) throws -> Data {
        guard case .blob(let buffer) = try value(column) else {
            throw StoreError(.corruptRow, "\(table).\(column) is not a blob")
        }
        return Data(buffer.readableBytesView)
    }

    func optionalBlob(_ column: String) throws -> Data? {
        if case .null = try value(column) { return nil }
        return try blob(column)
    }

    func real(_ column: String) throws -> Double {
        switch try value(column) {
        case .float(let value): return value
        case .integer(let value): return Double(value)
        default: throw StoreError(.corruptRow, "\(table).\(column) is not a number")
        }
    }

    func date(_ column: String) throws -> Date {
        Date(timeIntervalSince1970: TimeInterval(try integer(column)) / 1000)
    }

    func optionalDate(_ column: String) throws -> Date? {
        try optionalInteger(column).map { Date(timeIntervalSince1970: TimeInterval($0) / 1000) }
    }

    func enumeration<Value: RawRepresentable>(_ column: String, as type: Value.Type) throws -> Value
    where Value.RawValue == String {
        let raw = try text(column)
        guard let value = Value(rawValue: raw) else {
            throw StoreError(.corruptRow, "\(table).\(column) has unknown value \(raw)")
        }
        return value
    }
}
