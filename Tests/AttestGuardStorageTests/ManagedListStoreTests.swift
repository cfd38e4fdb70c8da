import AttestTestSupport
import AttestVocabulary
import Foundation
@testable import AttestGuardStore
import Testing

@Suite("Run-time lists in the store")
struct ManagedListStoreTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func list(_ name: String, kind: ListKind = .cidr) -> ManagedListRecord {
        ManagedListRecord(name: name, kind: kind, description: "for \(name)", createdAt: start, createdBy: "analyst")
    }

    static func entry(_ value: String, expiresIn seconds: TimeInterval? = nil, note: String = "", at: Date = start) -> ManagedListEntryRecord {
        ManagedListEntryRecord(value: value, expiresAt: seconds.map { at.addingTimeInterval($0) }, note: note, addedAt: at, addedBy: "analyst")
    }

    @Test("created once and bounded in number; each change raises the revision once and is logged", arguments: StoreBackend.available)
    func lifecycle(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            guard case .created(let created) = try await store.createManagedList(Self.list("blocked_ips"), maximumLists: 2) else {
                Issue.record("not created")
                return
            }
            #expect(created.revision == 1 && created.entryCount == 0 && created.kind == .cidr && created.updatedBy == "analyst")
            #expect(try await store.createManagedList(Self.list("blocked_ips", kind: .string), maximumLists: 2) == .exists(created))
            guard case .created = try await store.createManagedList(Self.list("testers", kind: .string), maximumLists: 2) else {
                Issue.record("second list not created")
                return
            }
            #expect(try await store.createManagedList(Self.list("third"), maximumLists: 2) == .tooMany)
            #expect(try await store.managedLists().map(\.name) == ["blocked_ips", "testers"])

            let later = Self.start.addingTimeInterval(60)
            let added = try await store.changeManagedList(
                name: "blocked_ips", edit: .add([Self.entry("203.0.113.0/24", note: "farm"), Self.entry("10.0.0.1", expiresIn: 30, at: later),
                                                 Self.entry("203.0.113.0/24", note: "farm, again")]),
                actor: "key-a", at: later, maximumEntries: 10
            )
            guard case .changed(let list, let change) = added else {
                Issue.record("not changed: \(added)")
                return
            }
            #expect(list.revision == 2 && list.entryCount == 2 && list.updatedBy == "key-a" && list.updatedAt == later)
            #expect(change.action == .added && change.added == 2 && change.removed == 0 && change.entries == 2)
            #expect(change.values == ["203.0.113.0/24", "10.0.0.1", "203.0.113.0/24"])
            let entries = try await store.managedListEntries(name: "blocked_ips", now: later)
            #expect(entries.map(\.value) == ["10.0.0.1", "203.0.113.0/24"])
            #expect(entries.last?.note == "farm, again", "of one value given twice, the last counts")

            // The same entry again changes nothing but the revision; an expired entry is dropped at the next change.
            let afterExpiry = later.addingTimeInterval(31)
            #expect(try await store.managedListEntries(name: "blocked_ips", now: afterExpiry).map(\.value) == ["203.0.113.0/24"])
            guard case .changed(let same, let unchanged) = try await store.changeManagedList(
                name: "blocked_ips", edit: .add([Self.entry("203.0.113.0/24", note: "farm, again")]), actor: "key-b", at: afterExpiry, maximumEntries: 10
            ) else {
                Issue.record("not changed")
                return
            }
            #expect(unchanged.added == 0 && unchanged.entries == 1 && same.revision == 3 && same.entryCount == 1)

            guard case .changed(let replaced, let replacement) = try await store.changeManagedList(
                name: "blocked_ips", edit: .replace([Self.entry("2001:db8::/32"), Self.entry("203.0.113.0/24", note: "farm, again")]),
                actor: "key-b", at: afterExpiry, maximumEntries: 10
            ) else {
                Issue.record("not replaced")
                return
            }
            #expect(replacement.action == .replaced && replacement.added == 1 && replacement.removed == 0 && replaced.entryCount == 2)
            guard case .changed(_, let removal) = try await store.changeManagedList(
                name: "blocked_ips", edit: .remove(["2001:db8::/32", "192.0.2.1"]), actor: "key-b", at: afterExpiry, maximumEntries: 10
            ) else {
                Issue.record("not removed")
                return
            }
            #expect(removal.removed == 1 && removal.entries == 1)

            #expect(try await store.changeManagedList(name: "nope", edit: .add([]), actor: "key-b", at: afterExpiry, maximumEntries: 10) == .notFound)
            let full = try await store.changeManagedList(
                name: "blocked_ips", edit: .add((1...3).map { Self.entry("192.0.2.\($0)") }), actor: "key-b", at: afterExpiry, maximumEntries: 3
            )
            #expect(full == .full(entries: 4))
            #expect(try await store.managedList(name: "blocked_ips")?.revision == 5, "a refused change leaves the list as it was")
            #expect(try await store.managedListEntries(name: "blocked_ips", now: afterExpiry).map(\.value) == ["203.0.113.0/24"])

            #expect(try await store.deleteManagedList(name: "blocked_ips", actor: "key-c", at: afterExpiry))
            #expect(try await !store.deleteManagedList(name: "blocked_ips", actor: "key-c", at: afterExpiry))
            #expect(try await store.managedList(name: "blocked_ips") == nil)
            #expect(try await store.managedListEntries(name: "blocked_ips", now: afterExpiry).isEmpty)
            let log = try await store.managedListChanges(name: "blocked_ips", limit: 10)
            #expect(log.map(\.action) == [.deleted, .removed, .replaced, .added, .added, .created], "the log outlives the list")
            #expect(log.first?.removed == 1 && log.first?.actor == "key-c")
            #expect(try await store.managedListChanges(name: nil, limit: 2).map(\.action) == [.deleted, .removed])
            #expect(try await store.managedListChanges(name: nil, limit: 100).count == 7)
        }
    }

    @Test("a change checked for one kind is refused by a list made again with another, and changes nothing", arguments: StoreBackend.available)
    func kindChanged(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            _ = try await store.createManagedList(Self.list("mixed", kind: .cidr), maximumLists: 10)
            let change = try await store.changeManagedList(
                name: "mixed", edit: .add([Self.entry("alice")]), actor: "a", at: Self.start, maximumEntries: 10, expectedKind: .string
            )
            #expect(change == .kindChanged(.cidr))
            #expect(try await store.managedList(name: "mixed")?.revision == 1)
            #expect(try await store.managedListEntries(name: "mixed", now: Self.start).isEmpty)
            guard case .changed = try await store.changeManagedList(
                name: "mixed", edit: .add([Self.entry("10.0.0.1")]), actor: "a", at: Self.start, maximumEntries: 10, expectedKind: .cidr
            ) else {
                Issue.record("the right kind was refused")
                return
            }
        }
    }

    @Test("changes of one list from many writers at once each apply whole, one after another", arguments: StoreBackend.available)
    func concurrentChanges(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            _ = try await store.createManagedList(Self.list("farm_ips"), maximumLists: 10)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<8 {
                    group.addTask {
                        let entries = (0..<5).map { Self.entry("198.51.\(writer).\($0)") }
                        _ = try await store.changeManagedList(name: "farm_ips", edit: .add(entries), actor: "w\(writer)", at: Self.start, maximumEntries: 38)
                    }
                }
                try await group.waitForAll()
            }
            let list = try #require(try await store.managedList(name: "farm_ips"))
            let changes = try await store.managedListChanges(name: "farm_ips", limit: 100).filter { $0.action == .added }
            #expect(changes.count == 7, "the bound refuses exactly the change that would pass it")
            #expect(list.revision == 8 && list.entryCount == 35)
            #expect(changes.map(\.entries).sorted() == [5, 10, 15, 20, 25, 30, 35], "each change saw the ones before it")
        }
    }
}
