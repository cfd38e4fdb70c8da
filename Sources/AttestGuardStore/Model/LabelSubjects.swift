import AttestVocabulary
import Foundation

/// The distinct (app, kind, subject) triples of some logged decisions: what their labels are looked up by.
package struct LabelSubjects {
    package var appIds: [String] = []
    package var kinds: [String] = []
    package var subjects: [String] = []

    package init(_ decisions: [DecisionLogEntry]) {
        var seen = Set<[String]>()
        for entry in decisions {
            for kind in LabelSubjectKind.precedence {
                guard let subject = DecisionLabels.subject(of: entry, kind), seen.insert([entry.appId, kind.rawValue, subject]).inserted else { continue }
                appIds.append(entry.appId)
                kinds.append(kind.rawValue)
                subjects.append(subject)
            }
        }
    }

    package var isEmpty: Bool { appIds.isEmpty }

    /// The triples as a JSON array of three-element arrays (SQLite's `json_each` reads it).
    package var json: String {
        let triples = appIds.indices.map { [appIds[$0], kinds[$0], subjects[$0]] }
        let data = (try? JSONSerialization.data(withJSONObject: triples)) ?? Data("[]".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
