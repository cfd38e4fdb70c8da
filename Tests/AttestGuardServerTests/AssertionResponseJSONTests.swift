@testable import AttestGuardEngine
@testable import AttestGuardRuntime
@testable import AttestGuardServer
import Foundation
import Testing

/// The assertion response is written by hand: these pin that it is the text `JSONEncoder` (sorted keys, unescaped
/// slashes) writes for the same document, which is what the route answered before.
@Suite("Assertion response JSON")
struct AssertionResponseJSONTests {
    /// The response's `Codable` shape, encoded the way the other routes' responses are.
    struct EncodedShape: Encodable {
        var keyId: String
        var counter: Int64
        var clientDataFormat: String
        var requestBinding: String
        var verdict: RiskVerdict
    }

    static func check(_ result: AssertionResult) throws {
        let handWritten = String(decoding: AssertionResponseJSON.bytes(result), as: UTF8.self)
        let encoded = EncodedShape(
            keyId: result.keyId.base64EncodedString(), counter: result.counter, clientDataFormat: result.clientDataFormat,
            requestBinding: result.requestBinding.rawValue, verdict: result.verdict
        )
        #expect(handWritten == String(decoding: try JSONResponse.encoder.encode(encoded), as: UTF8.self))
    }

    @Test("monitor mode, reasons with quotes, slashes and non-ASCII, a fractional score")
    func everyMember() throws {
        let verdict = RiskVerdict(
            decision: .allow, score: 62.5,
            reasons: [
                RiskVerdict.Reason(ruleId: "key-farm", score: 60, message: #"device has "12" keys\in 30 days/ok"#),
                RiskVerdict.Reason(ruleId: "tab\tline\nx", score: 2.5, message: "é ✓"),
            ],
            ruleSetVersion: "sha256:0123", enforced: false, ruleDecision: .review
        )
        let result = AssertionResult(
            keyId: Data((0..<32).map { UInt8($0 * 7 & 0xff) }), counter: 9_007_199_254_740_993, clientDataFormat: "v1",
            requestBinding: .verifiedWithoutBody, signedBodySha256: "ignored-here", verdict: verdict
        )
        try Self.check(result)
        let text = String(decoding: AssertionResponseJSON.bytes(result), as: UTF8.self)
        #expect(text.hasPrefix(#"{"clientDataFormat":"v1","counter":9007199254740993,"keyId":"AAcOFRwjKjE4P0ZNVFtiaXB3foWMk5qhqK+2vcTL0tk=","requestBinding":"verified_without_body","verdict":{"decision":"allow""#))
    }

    @Test("enforced, no reasons, legacy binding")
    func minimal() throws {
        let result = AssertionResult(
            keyId: Data([1, 2, 3]), counter: 1, clientDataFormat: "legacy", requestBinding: .notChecked,
            signedBodySha256: nil, verdict: RiskVerdict(decision: .deny, score: 0, reasons: [], ruleSetVersion: "none")
        )
        try Self.check(result)
        #expect(String(decoding: AssertionResponseJSON.bytes(result), as: UTF8.self)
            == #"{"clientDataFormat":"legacy","counter":1,"keyId":"AQID","requestBinding":"not_checked","verdict":{"decision":"deny","enforced":true,"reasons":[],"ruleSetVersion":"none","score":0}}"#)
    }
}
