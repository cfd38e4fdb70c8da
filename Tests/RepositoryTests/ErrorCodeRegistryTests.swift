import Foundation
import Testing

/// The registry writes each code twice, as a case of its private enum and as a public constant: each constant
/// must name the case of its own name, or `ErrorCode.keyRevoked` could carry another code and every test that
/// compares constants would still pass.
struct ErrorCodeRegistryTests {
    static let path = "Sources/AttestVocabulary/ErrorCode.swift"

    /// `(constant, case)` for every `public static let X = ErrorCode(.Y)`, and every `case Y = "..."`.
    static func declarations(in source: String) -> (constants: [(String, String)], cases: [String]) {
        let constants = source.matches(of: /public static let (\w+) = ErrorCode\(\.(\w+)\)/).map { (String($0.1), String($0.2)) }
        let cases = source.matches(of: /\n\s*case (\w+) = "/).map { String($0.1) }
        return (constants, cases)
    }

    @Test func eachConstantNamesItsOwnCaseAndEveryCaseHasOne() throws {
        let (constants, cases) = Self.declarations(in: try RepositoryFiles.text(Self.path))
        #expect(cases.count > 50 && constants.count == cases.count)
        for (constant, named) in constants where constant != named {
            Issue.record("ErrorCode.\(constant) is the code of case \(named)")
        }
        #expect(Set(constants.map(\.0)) == Set(cases), "cases without a constant, or constants without a case")
    }

    @Test func aMiswiredConstantIsFound() {
        let source = """
            private enum Storage: String {
                case keyRevoked = "key_revoked"
                case keySuperseded = "key_superseded"
            }
            public static let keyRevoked = ErrorCode(.keySuperseded)
            public static let keySuperseded = ErrorCode(.keySuperseded)
            """
        let (constants, cases) = Self.declarations(in: source)
        #expect(cases == ["keyRevoked", "keySuperseded"])
        #expect(constants.filter { $0.0 != $0.1 }.map(\.0) == ["keyRevoked"])
    }
}
