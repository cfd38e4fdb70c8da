import ArgumentParser
import AttestGuardEngine
import AttestGuardRuntime
import AttestGuardWire
import AttestVocabulary
import Foundation
import RiskRules

extension AttestGuardCommand {
    /// `attestguard lists`: the run-time lists rules read by name (`lists: { name: { managed: true } }`).
    struct Lists: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "lists",
            abstract: "Create, show and change the run-time lists rules read, without a deployment.",
            discussion: """
                Every server reads a change within apps.policyReloadSeconds. On SQLite, the commands that change a list \
                need the server stopped (or use the /v1/lists routes).
                """,
            subcommands: [
                ListListsCommand.self, ShowListCommand.self, CreateListCommand.self, AddListEntriesCommand.self, RemoveListEntriesCommand.self,
                ReplaceListCommand.self, DeleteListCommand.self, ListChangesCommand.self,
            ]
        )
    }
}

/// What the `lists` commands share: the configured store (``HistoryStoreSession``), JSON output as the routes
/// answer, and the actor they log (`cli:` and the user); a change publishes its `list.changed` event to the configured
/// webhook receivers. Exit codes: 2 usage or a bad entry; 1 no such list, or a
/// change the store refuses (a name taken, a list full); 3 the store is unusable.
struct ListOptions: ParsableArguments {
    @OptionGroup var configuration: ConfigurationOption

    @Flag(name: .long, help: "Print what the /v1/lists route answers, as JSON.")
    var json = false

    func run<Result: Sendable>(_ command: String, writing: Bool, _ body: @escaping @Sendable (ManagedListService, String) async throws -> Result) async throws -> Result {
        let configuration = try await self.configuration.load()
        let actor = "cli:\(ProcessInfo.processInfo.environment["USER"] ?? "unknown")"
        return try await HistoryStoreSession.reading(command: "lists \(command)", configuration: configuration, writing: writing) { store in
            // A change is published to the configured webhook receivers, as a server's is; the servers deliver it.
            let webhooks = WebhookPublisher(endpoints: configuration.engine.webhooks, store: store)
            return try await body(ManagedListService(store: store, clock: SystemClock(), readsOwnChanges: false, webhooks: webhooks), actor)
        }
    }

    /// Applies `submission` to the list `name` on the store and prints the change, as `add`, `remove` and `replace` do.
    func change(_ command: String, list name: String, _ submission: ManagedListChangeSubmission) async throws {
        let changed = try await run(command, writing: true) { service, actor in
            let changed = try await service.change(name, submission, actor: actor)
            return ManagedListChangedBody(list: ManagedListBody(changed.list), change: ManagedListChangeBody(changed.change))
        }
        try print(changed, text: Self.line(changed))
    }

    func print<Body: Encodable>(_ body: Body, text: @autoclosure () -> String) throws {
        Swift.print(json ? String(decoding: try WireJSON.encoder().encode(body), as: UTF8.self) : text())
    }

    static func line(_ list: ManagedListBody) -> String {
        let description = list.description.isEmpty ? "" : "  \(list.description)"
        return "\(list.name)  \(list.kind)  \(list.entryCount) entries  revision \(list.revision)  changed \(RFC3339.format(list.updatedAt)) by \(list.updatedBy)\(description)"
    }

    static func line(_ change: ManagedListChangeBody) -> String {
        let values = change.values.isEmpty ? "" : "  \(change.values.prefix(10).joined(separator: ", "))\(change.values.count > 10 ? ", …" : "")"
        return "\(RFC3339.format(change.at))  \(change.list)  \(change.action) by \(change.actor)  +\(change.added) -\(change.removed) → \(change.entries)\(values)"
    }

    static func line(_ changed: ManagedListChangedBody) -> String {
        "\(changed.list.name): \(changed.change.added) added or updated, \(changed.change.removed) removed, \(changed.change.entries) entries (revision \(changed.list.revision))"
    }
}

/// The entries a change names: values on the command line, or a file (CSV with a `value` column, or one entry a
/// line), with a time to live and a note for those that name none.
struct ListEntryOptions: ParsableArguments {
    @Argument(help: "Entries: text for a string list, addresses or CIDR blocks for a cidr list.")
    var values: [String] = []

    @Option(name: .long, help: "A CSV file of entries (a header naming value, expiresAt, ttlSeconds, note; or one entry a line); - reads standard input.")
    var file: String?

    @Option(name: .long, help: "How long the entries last: 90m, 24h, 7d (default: until removed).")
    var ttl: String?

    @Option(name: .long, help: "Why the entries are on the list (at most 256 bytes).")
    var note: String?

    func submissions() throws -> [ManagedListEntrySubmission] {
        var ttlSeconds: Int?
        if let ttl {
            guard let seconds = SignalInput.duration(ttl), seconds >= 1, seconds <= Double(ManagedListService.maximumTTLSeconds) else {
                throw ValidationError("--ttl is a duration such as 90m, 24h or 7d, at most ten years")
            }
            ttlSeconds = Int(seconds)
        }
        var entries = values.enumerated().map {
            ManagedListEntrySubmission(value: $1, ttlSeconds: ttlSeconds, note: note, position: "argument \($0 + 1)")
        }
        if let file {
            let text: String
            do {
                let data = file == "-" ? FileHandle.standardInput.readDataToEndOfFile() : try Data(contentsOf: URL(fileURLWithPath: file))
                guard let decoded = String(data: data, encoding: .utf8) else { throw ValidationError("\(file) is not UTF-8 text") }
                text = decoded
            } catch let error as ValidationError {
                throw error
            } catch {
                throw ValidationError("cannot read \(file): \(error.localizedDescription)")
            }
            do {
                entries += try ManagedListEntrySubmission.csv(text, ttlSeconds: ttlSeconds, note: note)
            } catch {
                throw ValidationError("\(file): \(error.message)")
            }
        }
        return entries
    }
}

/// `attestguard lists list`: every list, by name.
struct ListListsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the run-time lists.")

    @OptionGroup var options: ListOptions

    func run() async throws {
        let lists = try await options.run("list", writing: false) { service, _ in
            ManagedListsBody(lists: try await service.lists().map(ManagedListBody.init))
        }
        try options.print(lists, text: lists.lists.isEmpty ? "no run-time lists" : lists.lists.map(ListOptions.line).joined(separator: "\n"))
    }
}

/// `attestguard lists show NAME`: the list and its entries that have not expired.
struct ShowListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Show a run-time list and its entries.")

    @OptionGroup var options: ListOptions

    @Argument(help: "The list's name.")
    var name: String

    func run() async throws {
        let name = self.name
        let shown = try await options.run("show", writing: false) { service, _ in
            let contents = try await service.contents(of: name)
            return ManagedListContentsBody(list: ManagedListBody(contents.list), entries: contents.entries.map(ManagedListEntryBody.init))
        }
        try options.print(shown, text: ([ListOptions.line(shown.list)] + shown.entries.map { entry in
            let expiry = entry.expiresAt.map { "  expires \(RFC3339.format($0))" } ?? ""
            let note = entry.note.isEmpty ? "" : "  \(entry.note)"
            return "  \(entry.value)\(expiry)  added \(RFC3339.format(entry.addedAt)) by \(entry.addedBy)\(note)"
        }).joined(separator: "\n"))
    }
}

/// `attestguard lists create NAME [--kind cidr] [--description TEXT]`.
struct CreateListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "create", abstract: "Create an empty run-time list.")

    @OptionGroup var options: ListOptions

    @Argument(help: "The name rules read it by: letters, digits and _.")
    var name: String

    @Option(name: .long, help: "string (text matched whole, the default) or cidr (IPv4 and IPv6 addresses and blocks).")
    var kind: String = ListKind.string.rawValue

    @Option(name: .long, help: "What the list is for.")
    var description: String = ""

    func run() async throws {
        guard let kind = ListKind(rawValue: kind) else { throw ValidationError("--kind is string or cidr") }
        let (name, description) = (self.name, self.description)
        let created = try await options.run("create", writing: true) { service, actor in
            ManagedListBody(try await service.create(name: name, kind: kind, description: description, actor: actor))
        }
        try options.print(created, text: "created \(ListOptions.line(created))")
    }
}

/// `attestguard lists add NAME VALUE... [--file F] [--ttl 24h] [--note TEXT]`.
struct AddListEntriesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Add entries to a run-time list (an entry on it takes the new expiry and note).")

    @OptionGroup var options: ListOptions

    @Argument(help: "The list's name.")
    var name: String

    @OptionGroup var entries: ListEntryOptions

    func run() async throws {
        let submissions = try entries.submissions()
        guard !submissions.isEmpty else { throw ValidationError("name entries as arguments or with --file") }
        try await options.change("add", list: name, .add(submissions))
    }
}

/// `attestguard lists remove NAME VALUE... [--file F]`.
struct RemoveListEntriesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "remove", abstract: "Take entries off a run-time list.")

    @OptionGroup var options: ListOptions

    @Argument(help: "The list's name.")
    var name: String

    @OptionGroup var entries: ListEntryOptions

    func run() async throws {
        let submissions = try entries.submissions()
        guard !submissions.isEmpty else { throw ValidationError("name entries as arguments or with --file") }
        try await options.change("remove", list: name, .remove(submissions))
    }
}

/// `attestguard lists replace NAME --file F`: the list holds exactly the file's entries afterwards.
struct ReplaceListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "replace", abstract: "Replace a run-time list's entries with a file's (or the arguments).")

    @OptionGroup var options: ListOptions

    @Argument(help: "The list's name.")
    var name: String

    @OptionGroup var entries: ListEntryOptions

    @Flag(name: .long, help: "Allow replacing the entries with none (empties the list).")
    var allowEmpty = false

    func run() async throws {
        let submissions = try entries.submissions()
        guard !submissions.isEmpty || allowEmpty else { throw ValidationError("no entries given; --allow-empty empties the list") }
        try await options.change("replace", list: name, .replace(submissions))
    }
}

/// `attestguard lists delete NAME`: the list and its entries; its change log stays.
struct DeleteListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete a run-time list and its entries.")

    @OptionGroup var options: ListOptions

    @Argument(help: "The list's name.")
    var name: String

    func run() async throws {
        let name = self.name
        try await options.run("delete", writing: true) { service, actor in try await service.delete(name, actor: actor) }
        if !options.json { print("deleted \(name)") }
    }
}

/// `attestguard lists changes [NAME] [--limit N]`: who changed what and when, newest first.
struct ListChangesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "changes", abstract: "Show the change log of one run-time list or of all.")

    @OptionGroup var options: ListOptions

    @Argument(help: "The list's name (default: every list's changes).")
    var name: String?

    @Option(name: .long, help: "The most changes shown, 1-1000.")
    var limit: Int = 100

    func run() async throws {
        guard (1...ManagedListService.changeListingLimit).contains(limit) else { throw ValidationError("--limit is 1 to \(ManagedListService.changeListingLimit)") }
        let (name, limit) = (self.name, self.limit)
        let changes = try await options.run("changes", writing: false) { service, _ in
            ManagedListChangesBody(changes: try await service.changes(of: name, limit: limit).map(ManagedListChangeBody.init))
        }
        try options.print(changes, text: changes.changes.isEmpty ? "no changes" : changes.changes.map(ListOptions.line).joined(separator: "\n"))
    }
}
