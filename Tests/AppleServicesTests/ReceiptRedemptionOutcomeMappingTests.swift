import AppleServices
import AttestCore
import Testing

struct ReceiptRedemptionOutcomeMappingTests {
    private func outcome(_ status: Int, _ body: String = "", retryAfter: String? = nil) -> ReceiptRedemptionOutcome {
        ReceiptRedemptionClient.outcome(status: status, retryAfter: retryAfter, body: Array(body.utf8))
    }

    @Test func testEveryDocumentedStatus() {
        #expect(outcome(200, Base64Text.encode([1, 2, 3]) + "\n") == .redeemed([1, 2, 3]))
        #expect(outcome(304) == .notModified)
        #expect(outcome(400, "Incorrect Environment") == .incorrectEnvironment(detail: "Incorrect Environment"))
        #expect(outcome(400, "Missing or badly formatted receipt") == .badRequest(detail: "Missing or badly formatted receipt"))
        #expect(outcome(401, "Unauthorized") == .unauthorized(detail: "Unauthorized"))
        #expect(outcome(404) == .noData)
        #expect(outcome(429, retryAfter: " 30") == .throttled(retryAfter: .seconds(30)))
        #expect(outcome(429, retryAfter: "Wed, 21 Oct 2026 07:28:00 GMT") == .throttled(retryAfter: nil))
        #expect(outcome(429) == .throttled(retryAfter: nil))
        #expect(outcome(500) == .serverError(status: 500))
        #expect(outcome(503) == .serverError(status: 503))
        #expect(outcome(502) == .serverError(status: 502))
        #expect(outcome(418, "teapot") == .unexpectedStatus(418, detail: "teapot"))
    }

    @Test func testUnreadable200IsUnexpected() {
        guard case .unexpectedStatus(200, _) = outcome(200, "not base64!") else {
            Issue.record("a non-base64 200 body was accepted")
            return
        }
        guard case .unexpectedStatus(200, _) = outcome(200, "") else {
            Issue.record("an empty 200 body was accepted")
            return
        }
    }
}
