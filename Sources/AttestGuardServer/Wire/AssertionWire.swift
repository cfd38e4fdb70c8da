import AttestGuardEngine
import Foundation

/// `POST /v1/assertions` response body, keys sorted: the key, its new counter, how the clientData bound the request,
/// and the verdict. Written by hand (``VerdictJSON``) like the score response: it is the answer a gateway asks for
/// most.
enum AssertionResponseJSON {
    static func bytes(_ result: AssertionResult) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(160 + VerdictJSON.estimatedSize(of: result.verdict))
        output.append(UInt8(ascii: "{"))
        JSONText.appendKey("clientDataFormat", first: true, to: &output)
        JSONText.appendString(result.clientDataFormat, to: &output)
        JSONText.appendKey("counter", to: &output)
        output.append(contentsOf: String(result.counter).utf8)
        JSONText.appendKey("keyId", to: &output)
        JSONText.appendString(result.keyId.base64EncodedString(), to: &output)
        JSONText.appendKey("requestBinding", to: &output)
        JSONText.appendString(result.requestBinding.rawValue, to: &output)
        JSONText.appendKey("verdict", to: &output)
        output.append(UInt8(ascii: "{"))
        VerdictJSON.appendMembers(of: result.verdict, to: &output)
        output.append(contentsOf: "}}".utf8)
        return output
    }
}
