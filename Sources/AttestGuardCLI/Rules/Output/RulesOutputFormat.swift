import ArgumentParser
import Foundation

/// What `rules lint` and `rules test` write to standard output: `text` for people (the default), `json` for scripts
/// (one document, described by `docs/schemas/`), `junit` for a CI system's test report. Standard error and the exit
/// code are the same in every format.
enum RulesOutputFormat: String, CaseIterable, ExpressibleByArgument {
    case text
    case json
    case junit

    /// The `formatVersion` of both JSON documents: it goes up when a field changes meaning or goes away, not when
    /// one is added.
    static let jsonFormatVersion = 1

    /// `value` as one JSON document: keys sorted and nothing timed, so that the same files give the same bytes.
    static func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
