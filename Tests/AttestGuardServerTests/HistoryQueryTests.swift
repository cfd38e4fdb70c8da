import AttestGuardEngine
import AttestGuardStore
import Foundation
@testable import AttestGuardRuntime
@testable import AttestGuardServer
import Testing
import AttestGuardWire

/// The pieces of a decision search's query: RFC 3339 instants, cursors, and the strict query parser.
@Suite("Decision search query parts")
struct HistoryQueryTests {
    @Test("RFC 3339 instants in UTC or at an offset, with or without a fraction; nothing else", arguments: [
        ("2026-11-22T12:00:00Z", 1_795_348_800.0), ("2026-11-22t12:00:00z", 1_795_348_800), ("2026-11-22T12:00:00.250Z", 1_795_348_800.25),
        ("2026-11-22T13:30:00+01:30", 1_795_348_800), ("2026-11-22T07:00:00.5-05:00", 1_795_348_800.5),
    ])
    func instants(text: String, seconds: Double) throws {
        #expect(try #require(RFC3339.parse(text)).timeIntervalSince1970 == seconds)
    }

    @Test("malformed instants are refused", arguments: [
        "2026-11-22", "2026-11-22T12:00:00", "2026-11-22 12:00:00Z", "2026-11-22T12:00:00+1:00", "2026-11-22T12:00:00+24:00",
        "2026-02-30T12:00:00Z", "2026-11-22T12:00:00.Z", "2026-11-22T12:00:00+01:60", "yesterday", "",
    ])
    func malformedInstants(text: String) {
        #expect(RFC3339.parse(text) == nil)
    }

    @Test("a cursor's text names its position to the microsecond, and only texts this server makes are read")
    func cursors() throws {
        let position = DecisionLogPosition(decidedAt: Date(timeIntervalSince1970: 1_795_435_200.123_457), sequence: 42)
        let text = DecisionCursor(position).text
        #expect(text.count == 22)
        let read = try DecisionCursor(text: text).position
        #expect(read.sequence == 42)
        #expect((read.decidedAt.timeIntervalSince1970 * 1_000_000).rounded() == 1_795_435_200_123_457)
        for bad in ["", "AAAA", text + "A", String(text.dropLast()) + "=", text.replacingOccurrences(of: "A", with: "+"), "AAAAAAAAAAAAAAAAAAAAAA"] {
            #expect(throws: EngineError.self, "\(bad)") { try DecisionCursor(text: bad) }
        }
    }

    @Test("the query is read strictly: percent-decoded UTF-8, plus signs kept, a name given twice refused")
    func queryParameters() throws {
        let query = try QueryParameters("userId=a%20b+c&limit=7&empty=&flag")
        #expect(query["userId"] == "a b+c" && query["empty"] == "" && query["flag"] == "" && query["other"] == nil)
        #expect(try query.integer("limit") == 7)
        for bad in ["userId=%", "userId=%G1", "userId=%C3", "a=1&a=2", "limit=1e3"] {
            #expect(throws: APIError.self, "\(bad)") { _ = try QueryParameters(bad).integer("limit") }
        }
    }
}
