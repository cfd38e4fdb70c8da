import Foundation
import Testing

/// The wire is written once: the app's client, the device simulator and the traffic simulator send and read
/// AttestGuard's JSON bodies as the wire module's `Codable` types (`Sources/AttestGuardWire/Bodies/`), which the
/// server decodes too, never as types of their own.
struct WireOwnershipTests {
    /// The modules that speak AttestGuard's API from the outside.
    static let clients = ["AttestGuardClient", "AttestGuardClientTesting", "DeviceSimulator", "TrafficSimulator"]

    /// The `Codable` types those modules may declare, and why none is a body of AttestGuard's API.
    static let notBodies: [String: String] = [
        "StoredKey": "the key id the client keeps in the Keychain",
        "Row": "a line of the traffic report the CLI prints",
        "Persona": "a traffic persona's name",
        "Body": "the fake Apple's control route (POST /fake/risk-metric), not AttestGuard's API",
    ]

    /// Routes those modules call whose answer they read as a plain JSON object and that take no body: the traffic
    /// simulator reads a key's receipt fields from `GET /v1/apps/{appId}/keys/{keyId}`.
    static let readLoosely: Set<String> = ["/v1/apps/"]

    /// A `Codable` type declared in `source`: its name and the doc comment above it.
    static func codableDeclarations(in source: String) -> [(name: String, doc: String)] {
        let lines = source.components(separatedBy: "\n")
        var found: [(String, String)] = []
        let declaration = /^\s*(?:public |package |private |fileprivate |internal )?(?:struct|enum|class|final class) ([A-Za-z_][A-Za-z0-9_]*)[^{]*\b(?:Encodable|Decodable|Codable)\b/
        for (index, line) in lines.enumerated() {
            guard let match = line.firstMatch(of: declaration) else { continue }
            var doc: [String] = []
            var above = index - 1
            while above >= 0, lines[above].trimmingCharacters(in: .whitespaces).hasPrefix("///") {
                doc.insert(lines[above], at: 0)
                above -= 1
            }
            found.append((String(match.1), doc.joined(separator: "\n")))
        }
        return found
    }

    @Test func clientsDeclareNoBodyOfTheirOwn() throws {
        let sources = try RepositoryFiles.tracked().filter { path in
            path.hasSuffix(".swift") && Self.clients.contains { path.hasPrefix("Sources/\($0)/") }
        }
        #expect(!sources.isEmpty)
        for source in sources {
            for declared in Self.codableDeclarations(in: try RepositoryFiles.text(source)) {
                #expect(Self.notBodies[declared.name] != nil, "\(source) declares its own JSON type \(declared.name): use the wire module's body")
                #expect(!declared.doc.contains("/v1/"), "\(source): \(declared.name) describes an AttestGuard route: use the wire module's body")
            }
        }
    }

    @Test func everyRouteTheClientsCallHasItsBodiesInTheWireModule() throws {
        let files = try RepositoryFiles.tracked()
        let wire = try files.filter { $0.hasPrefix("Sources/AttestGuardWire/") && $0.hasSuffix(".swift") }
            .map { try RepositoryFiles.text($0) }.joined(separator: "\n")
        let sources = files.filter { path in path.hasSuffix(".swift") && Self.clients.contains { path.hasPrefix("Sources/\($0)/") } }
        var routes = Set<String>()
        for source in sources {
            for match in try RepositoryFiles.text(source).matches(of: /"(\/v1\/[a-z\/-]*)/) { routes.insert(String(match.1)) }
        }
        #expect(routes.contains("/v1/assertions"), "the route literals were not found: \(routes.sorted())")
        for route in routes.subtracting(Self.readLoosely).sorted() {
            #expect(wire.contains("`POST \(route)`") || wire.contains("`GET \(route)`"), "no wire body documents \(route)")
        }
    }

    @Test func declarationsAreFound() {
        let source = """
            /// `POST /v1/score` body.
            private struct ScoreBody: Encodable {
            public struct Plain {
            struct Row: Codable, Sendable {
            """
        #expect(Self.codableDeclarations(in: source).map(\.name) == ["ScoreBody", "Row"])
        #expect(Self.codableDeclarations(in: source).first?.doc.contains("/v1/score") == true)
    }
}
