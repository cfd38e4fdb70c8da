@testable import AttestGuardEngine
import AttestGuardStore
import AttestTestSupport
import AttestVocabulary
import Foundation
import Testing

/// Run-time lists in the engine: a process's book reads a list deleted and made again at a revision it held before,
/// and CSV entries come with a header in any column order, or without one, as the media type says.
@Suite("Run-time list service")
struct ManagedListServiceTests {
    static func entries(_ values: String...) -> ManagedListChangeSubmission {
        .add(values.enumerated().map { ManagedListEntrySubmission(value: $1, position: "entry \($0 + 1)") })
    }

    @Test("a list deleted and made again is read afresh, even at a revision this process held", arguments: TestStoreBackend.available)
    func recreatedList(backend: TestStoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
            let writer = ManagedListService(store: test.store, clock: clock, readsOwnChanges: false)
            let reader = ManagedListService(store: test.store, clock: clock)
            _ = try await writer.create(name: "blocked_ips", kind: .cidr, description: "", actor: "a")
            _ = try await writer.change("blocked_ips", Self.entries("203.0.113.0/24"), actor: "a")
            try await reader.refresh()
            #expect(reader.book.snapshot.lists["blocked_ips"]?.contains("203.0.113.9", at: clock.now().timeIntervalSince1970) == true)

            clock.advance(by: 1)
            try await writer.delete("blocked_ips", actor: "a")
            _ = try await writer.create(name: "blocked_ips", kind: .cidr, description: "", actor: "a")
            let again = try await writer.change("blocked_ips", Self.entries("198.51.100.0/24"), actor: "a")
            #expect(again.list.revision == 2, "the same revision the reader holds")
            try await reader.refresh()
            let now = clock.now().timeIntervalSince1970
            #expect(reader.book.snapshot.lists["blocked_ips"]?.contains("203.0.113.9", at: now) == false)
            #expect(reader.book.snapshot.lists["blocked_ips"]?.contains("198.51.100.9", at: now) == true)
        }
    }

    @Test("CSV: a header names its columns in any order; header=absent reads every line as an entry")
    func csvHeaders() throws {
        let reordered = try ManagedListEntrySubmission.csv("Note,VALUE,ttlSeconds\nfarm,203.0.113.0/24,60\n,198.51.100.1,\n")
        #expect(reordered.map(\.value) == ["203.0.113.0/24", "198.51.100.1"])
        #expect(reordered.first?.note == "farm" && reordered.first?.ttlSeconds == 60 && reordered.first?.position == "line 2")
        let bare = try ManagedListEntrySubmission.csv("value\nalice\n", header: false)
        #expect(bare.map(\.value) == ["value", "alice"], "header=absent: the first line is an entry")
        let pasted = try ManagedListEntrySubmission.csv("203.0.113.0/24\n198.51.100.1\n")
        #expect(pasted.map(\.value) == ["203.0.113.0/24", "198.51.100.1"], "no header cell named value: a column of entries")
        #expect(throws: EngineError.self, "header=present without a value column") {
            try ManagedListEntrySubmission.csv("address,note\n203.0.113.0/24,x\n", header: true)
        }
        #expect(throws: EngineError.self, "an unclosed quote") { try ManagedListEntrySubmission.csv("value\n\"203.0.113.0/24\n") }
    }
}
