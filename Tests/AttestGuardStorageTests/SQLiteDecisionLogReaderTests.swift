import AttestTestSupport
import AttestVocabulary
import Foundation
import AttestGuardStore
import AttestGuardSQLite
import Testing

/// A SQLite store's decision log read-only beside the store that holds the file: no lock, no migration, no write,
/// and refusals of a missing file and of another schema.
@Suite("SQLite decision log, read-only")
struct SQLiteDecisionLogReaderTests {
    static func temporaryPath(_ name: String = "store.sqlite") throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("attestguard-reader-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent(name).path
    }

    static func entries(_ count: Int, from first: Int = 0) -> [DecisionLogEntry] {
        (first..<first + count).map { DecisionLogStoreTests.entry(Double($0)) }
    }

    static func readAll(_ reader: any DecisionLogReader) async throws -> [DecisionLogEntry] {
        var read: [DecisionLogEntry] = []
        var cursor: DecisionLogEntry?
        while true {
            let page = try await reader.decisions(since: .distantPast, after: cursor, limit: 7)
            guard let last = page.last else { return read }
            read += page
            cursor = last
        }
    }

    @Test("opens while the store holds the process lock, and sees each of its later writes")
    func besideTheWriter() async throws {
        let path = try Self.temporaryPath()
        let store = try await SQLiteRiskStore.open(path: path, logger: TestStore.logger)
        try await store.appendDecisions(Self.entries(20))
        let reader = try await SQLiteDecisionLogReader.open(path: path, logger: TestStore.logger)
        #expect(reader.schemaVersion == Migration.sqlite.map(\.version).max())
        #expect(try await Self.readAll(reader).count == 20)

        // Writes between the reader's pages: a page in progress is never disturbed, the next one sees them.
        let firstPage = try await reader.decisions(since: .distantPast, after: nil, limit: 5)
        try await store.appendDecisions(Self.entries(10, from: 20))
        let rest = try await reader.decisions(since: .distantPast, after: firstPage.last, limit: 100)
        #expect(firstPage.count + rest.count == 30)
        #expect(Set((firstPage + rest).map(\.sequence)).count == 30)

        // The writer keeps its lock and its writes while the reader stays open.
        try await store.appendDecisions(Self.entries(5, from: 30))
        #expect(try await Self.readAll(reader).count == 35)
        let second = await #expect(throws: StoreError.self) {
            _ = try await SQLiteRiskStore.open(path: path, logger: TestStore.logger)
        }
        #expect(second?.code == .locked)
        await reader.close()
        try await store.appendDecisions(Self.entries(5, from: 35))
        #expect(try await store.decisions(since: .distantPast, after: nil, limit: 100).count == 40)
        await store.close()
    }

    @Test("takes no lock: a store opens on the file while a reader is open")
    func holdsNoLock() async throws {
        let path = try Self.temporaryPath()
        try await SQLiteRiskStore.open(path: path, logger: TestStore.logger).close()
        let reader = try await SQLiteDecisionLogReader.open(path: path, logger: TestStore.logger)
        let store = try await SQLiteRiskStore.open(path: path, logger: TestStore.logger)
        try await store.appendDecisions(Self.entries(3))
        #expect(try await Self.readAll(reader).count == 3)
        await store.close()
        await reader.close()
    }

    @Test("leaves the database file as it found it")
    func writesNothing() async throws {
        let path = try Self.temporaryPath()
        let store = try await SQLiteRiskStore.open(path: path, logger: TestStore.logger)
        try await store.appendDecisions(Self.entries(50))
        await store.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let reader = try await SQLiteDecisionLogReader.open(path: path, logger: TestStore.logger)
        #expect(try await Self.readAll(reader).count == 50)
        await reader.close()
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test("refuses a missing file and creates nothing")
    func missingFile() async throws {
        let path = try Self.temporaryPath()
        let error = await #expect(throws: StoreError.self) {
            _ = try await SQLiteDecisionLogReader.open(path: path, logger: TestStore.logger)
        }
        #expect(error?.code == .notFound)
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
    }

    @Test("refuses a schema other than this build's, and leaves it as it is", arguments: TestSQLite.SchemaShift.allCases)
    func otherSchema(shift: TestSQLite.SchemaShift) async throws {
        let path = try Self.temporaryPath()
        try await SQLiteRiskStore.open(path: path, logger: TestStore.logger).close()
        try await TestSQLite.shiftSchema(at: path, shift)
        for _ in 0..<2 {
            let error = await #expect(throws: StoreError.self) {
                _ = try await SQLiteDecisionLogReader.open(path: path, logger: TestStore.logger)
            }
            #expect(error?.code == (shift == .older ? .schemaOutdated : .schemaTooNew), "\(String(describing: error))")
        }
    }

    @Test("a path with URI characters names the file itself", arguments: ["a?mode=rwc#b.sqlite", "100% ünïcode.sqlite"])
    func uriCharacters(name: String) async throws {
        let path = try Self.temporaryPath(name)
        let store = try await SQLiteRiskStore.open(path: path, logger: TestStore.logger)
        try await store.appendDecisions(Self.entries(4))
        let reader = try await SQLiteDecisionLogReader.open(path: path, logger: TestStore.logger)
        #expect(try await Self.readAll(reader).count == 4)
        await reader.close()
        await store.close()
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).filter { !$0.hasPrefix(name) }.isEmpty)
    }
}
