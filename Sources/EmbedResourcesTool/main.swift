import Foundation

// The build-time tool of the EmbedResources plugin: writes one Swift source that carries repository files as string
// literals, so that the one binary holds its migrations, OpenAPI document, default rule set, console and version
// without reading files at run time. The files stay the source of truth; the Swift is never committed.
//
//   EmbedResourcesTool <kind> <repository root> <output file>
//
// kinds: migrations (SQL/postgres, SQL/sqlite), openapi (OpenAPI/openapi.yaml), rules (Rules/), version (VERSION),
// console (Console/templates/*.mustache, Console/console.css). The output is rewritten only when its text changes,
// so that a build after an unrelated change recompiles nothing.

/// A refusal that ends the build with the file to fix.
struct EmbedFailure: Error, CustomStringConvertible {
    var description: String
}

/// `text` as a Swift raw string literal: `#"""`, the text's lines without trailing newlines, `"""#`, with as many `#`
/// as it takes for nothing in the text to end the literal or start an escape.
func rawStringLiteral(_ text: String) -> String {
    var hashes = "#"
    while text.contains("\"\"\"" + hashes) || text.contains("\\" + hashes) { hashes += "#" }
    var body = Substring(text)
    while body.hasSuffix("\n") { body = body.dropLast() }
    return "\(hashes)\"\"\"\n\(body)\n\"\"\"\(hashes)"
}

/// `text` as a Swift string literal on one line (names, paths, versions).
func quoted(_ text: String) -> String {
    var escaped = ""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": escaped += "\\\""
        case "\\": escaped += "\\\\"
        case _ where scalar.value < 0x20: escaped += "\\u{\(String(scalar.value, radix: 16))}"
        default: escaped.unicodeScalars.append(scalar)
        }
    }
    return "\"\(escaped)\""
}

/// The regular files below `folder`, as paths relative to it with `/`, in path order.
func files(below folder: URL) throws -> [String] {
    guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey]) else {
        throw EmbedFailure(description: "cannot read \(folder.path)")
    }
    var paths: [String] = []
    let prefix = folder.standardizedFileURL.path + "/"
    for case let url as URL in walker where (try url.resourceValues(forKeys: [.isRegularFileKey])).isRegularFile == true {
        let path = url.standardizedFileURL.path
        paths.append(path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : url.lastPathComponent)
    }
    return paths.sorted()
}

func read(_ url: URL) throws -> String {
    do { return try String(contentsOf: url, encoding: .utf8) } catch { throw EmbedFailure(description: "cannot read \(url.path) as UTF-8: \(error)") }
}

func header(_ source: String) -> String {
    "// Generated at build time by the EmbedResources plugin from \(source). Edit those files, not this one.\n"
}

/// One dialect's migrations, for its store backend, which imports the store contract's `Migration`.
func migrations(root: URL, dialect: String) throws -> String {
    var lines = [header("SQL/\(dialect)/"), "public import AttestGuardStore", "", "extension Migration {"]
    lines.append("    /// The migrations in `SQL/\(dialect)/`, in order.")
    lines.append("    public static let \(dialect): [Migration] = [")
    let folder = root.appending(path: "SQL/\(dialect)")
    for name in try files(below: folder) where name.hasSuffix(".sql") {
        // NNNN_name.sql: the version orders the migrations and is stored; the name says what it does.
        let parts = name.dropLast(".sql".count).split(separator: "_", maxSplits: 1)
        guard parts.count == 2, parts[0].count == 4, let version = Int(parts[0]), parts[0].allSatisfy(\.isASCII),
            parts[1].allSatisfy({ ($0.isASCII && ($0.isLowercase || $0.isNumber)) || $0 == "_" })
        else { throw EmbedFailure(description: "SQL/\(dialect)/\(name): a migration is named NNNN_lowercase_name.sql") }
        lines.append("        Migration(version: \(version), name: \(quoted(String(parts[1]))), sql: \(try rawStringLiteral(read(folder.appending(path: name))))),")
    }
    lines.append("    ]")
    lines.append("}")
    return lines.joined(separator: "\n")
}

func openAPI(root: URL) throws -> String {
    [
        header("OpenAPI/openapi.yaml"),
        "/// The OpenAPI 3.1 document served at `/openapi.yaml`.",
        "enum EmbeddedOpenAPI {",
        "    static let document = \(try rawStringLiteral(read(root.appending(path: "OpenAPI/openapi.yaml"))))",
        "}",
    ].joined(separator: "\n")
}

func rules(root: URL) throws -> String {
    let folder = root.appending(path: "Rules")
    var lines = [
        header("Rules/"),
        "extension DefaultRuleSet {",
        "    /// The files of `Rules/`, by path relative to it, in path order.",
        "    public static let files: [File] = [",
    ]
    for path in try files(below: folder) {
        lines.append("        File(path: \(quoted(path)), text: \(try rawStringLiteral(read(folder.appending(path: path))))),")
    }
    lines += ["    ]", "}"]
    return lines.joined(separator: "\n")
}

/// A semantic version: MAJOR.MINOR.PATCH, optionally `-` and a pre-release of letters, digits, dots and hyphens.
func isSemanticVersion(_ text: String) -> Bool {
    let (core, preRelease) = text.firstIndex(of: "-").map { (text[..<$0], Optional(text[text.index(after: $0)...])) } ?? (Substring(text), nil)
    let numbers = core.split(separator: ".", omittingEmptySubsequences: false)
    guard numbers.count == 3, numbers.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }) else { return false }
    guard let preRelease else { return true }
    return !preRelease.isEmpty && preRelease.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }
}

func version(root: URL) throws -> String {
    let version = try read(root.appending(path: "VERSION")).trimmingCharacters(in: .whitespacesAndNewlines)
    guard isSemanticVersion(version) else { throw EmbedFailure(description: "VERSION is not a semantic version: \(version)") }
    return [
        header("VERSION"),
        "/// The release this build is: `attestguard --version`, `GET /readyz`, the start-up log and `attestguard_build_info`",
        "/// all say it.",
        "public enum AttestGuardVersion {",
        "    public static let version = \(quoted(version))",
        "}",
    ].joined(separator: "\n")
}

func console(root: URL) throws -> String {
    let templates = root.appending(path: "Console/templates")
    var lines = [
        header("Console/"),
        "/// The console's Mustache templates (by name, `Console/templates/<name>.mustache`) and its stylesheet.",
        "enum EmbeddedConsole {",
        "    static let templates: [String: String] = [",
    ]
    for name in try files(below: templates) where name.hasSuffix(".mustache") && !name.contains("/") {
        lines.append("        \(quoted(String(name.dropLast(".mustache".count)))): \(try rawStringLiteral(read(templates.appending(path: name)))),")
    }
    lines += [
        "    ]",
        "",
        "    /// `Console/console.css`, served at `/console/console.css`.",
        "    static let stylesheet = \(try rawStringLiteral(read(root.appending(path: "Console/console.css"))))",
        "}",
    ]
    return lines.joined(separator: "\n")
}

let arguments = CommandLine.arguments
guard arguments.count == 4 else {
    FileHandle.standardError.write(Data("usage: EmbedResourcesTool migrations-postgres|migrations-sqlite|openapi|rules|version|console ROOT OUTPUT\n".utf8))
    exit(2)
}
let root = URL(fileURLWithPath: arguments[2], isDirectory: true)
let output = URL(fileURLWithPath: arguments[3])
do {
    let text: String
    switch arguments[1] {
    case "migrations-postgres": text = try migrations(root: root, dialect: "postgres")
    case "migrations-sqlite": text = try migrations(root: root, dialect: "sqlite")
    case "openapi": text = try openAPI(root: root)
    case "rules": text = try rules(root: root)
    case "version": text = try version(root: root)
    case "console": text = try console(root: root)
    default: throw EmbedFailure(description: "unknown kind \(arguments[1])")
    }
    let data = Data((text + "\n").utf8)
    if (try? Data(contentsOf: output)) != data {
        try FileManager.default.createDirectory(at: output.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: output, options: .atomic)
    }
} catch {
    FileHandle.standardError.write(Data("EmbedResourcesTool: error: \(error)\n".utf8))
    exit(1)
}
