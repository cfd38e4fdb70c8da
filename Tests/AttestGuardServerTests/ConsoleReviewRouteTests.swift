import AttestGuardStore
import AttestTestSupport
import AttestVocabulary
import Foundation
import HTTPTypes
import Testing

/// The console's review pages: the queue and an item's page; a key that may change things claims and decides by
/// forms that carry the session's token, an admin may also act on the item's key; a forged form changes nothing and
/// a read-only analyst gets no forms.
@Suite("HTTP: the console's review pages and forms")
struct ConsoleReviewRouteTests {
    static func opening(_ subject: String, at offset: TimeInterval, now: Date) -> ReviewOpening {
        ReviewOpening(
            appId: ServerHarness.appId, subjectKind: .key, subject: subject, keyId: subject, userHash: nil, deviceHash: nil, endpoint: .score,
            action: "<b>purchase</b>", score: 55, fired: "large-purchase", ruleSetVersion: "v1", requestId: "req-\(subject)",
            at: now.addingTimeInterval(offset), expiresAt: now.addingTimeInterval(86_400)
        )
    }

    @Test("claim, approve, reject with an action; a forged or second decision changes nothing; a reader gets no forms")
    func forms() async throws {
        try await ServerHarness.run(.sqlite, extraEnvironment: try ConsoleListRouteTests.environment()) { api in
            let engine = try #require(api.engine)
            let now = engine.clock.now()
            // Key ids that no key has: the revocation finds nothing to revoke.
            let subjects = ["A", "B", "C"].map { String(repeating: $0, count: 43) + "=" }
            try await engine.store.openReviewItems(subjects.enumerated().map { Self.opening($1, at: -Double(3 - $0), now: now) }, now: now)
            let ids = try await engine.store.reviewItems(appId: ServerHarness.appId, filter: .pending, cursor: nil, limit: 10, now: now).map(\.id)
            try #require(ids.count == 3)
            let query = "?app=\(ServerHarness.appId)&range=24h"

            let session = try await ConsoleRouteTests.session(api, key: ServerHarness.adminKey)
            let queue = try await ConsoleRouteTests.get(api, "/console/review-queue", cookie: session)
            #expect(queue.status == 200, "\(queue.text.prefix(400))")
            ConsoleRouteTests.expectConsoleHeaders(queue, "/console/review-queue")
            #expect(ids.allSatisfy { queue.text.contains("data-item=\"\($0)\"") })
            #expect(queue.text.contains("&lt;b&gt;purchase&lt;/b&gt;") && !queue.text.contains("<b>purchase"), "escaped")
            let page = try await ConsoleRouteTests.get(api, "/console/review-queue/\(ids[0])\(query)", cookie: session)
            let token = try #require(ConsoleListRouteTests.token(in: page.text), "an admin gets the forms")
            #expect(page.text.contains("name=\"revoke_key\""), "an admin may act on the key")

            let claimed = try await ConsoleListRouteTests.post(api, "/console/review-queue/\(ids[0])/claim\(query)", [("csrf", token)], cookie: session)
            #expect(claimed.status == 303 && claimed.headers[.location] == "/console/review-queue/\(ids[0])\(query)", "\(claimed.status) \(claimed.text.prefix(300))")
            #expect(try await ConsoleRouteTests.get(api, "/console/review-queue/\(ids[0])\(query)", cookie: session).text.contains("data-figure=\"status\">claimed<"))
            let approved = try await ConsoleListRouteTests.post(
                api, "/console/review-queue/\(ids[0])/decide\(query)", [("csrf", token), ("decision", "approve"), ("note", "known <customer>")], cookie: session
            )
            #expect(approved.status == 303, "\(approved.status) \(approved.text.prefix(300))")
            let approvedPage = try await ConsoleRouteTests.get(api, "/console/review-queue/\(ids[0])\(query)", cookie: session)
            #expect(approvedPage.text.contains("data-figure=\"status\">approved<") && approvedPage.text.contains("known &lt;customer&gt;"))
            #expect(ConsoleListRouteTests.token(in: approvedPage.text) == nil, "a decided item has no forms")

            let rejected = try await ConsoleListRouteTests.post(
                api, "/console/review-queue/\(ids[1])/decide\(query)", [("csrf", token), ("decision", "reject"), ("revoke_key", "on")], cookie: session
            )
            #expect(rejected.status == 303, "\(rejected.status) \(rejected.text.prefix(300))")
            let rejectedPage = try await ConsoleRouteTests.get(api, "/console/review-queue/\(ids[1])\(query)", cookie: session)
            #expect(rejectedPage.text.contains("data-figure=\"status\">rejected<"))
            #expect(rejectedPage.text.contains("<td data-action=\"revoke_key\">unchanged: no such key</td>"), "\(rejectedPage.text)")
            let labels = try await engine.store.labels(appId: ServerHarness.appId).map { "\($0.subject.prefix(1)) \($0.label) \($0.source)" }
            #expect(labels == ["A legitimate review", "B fraud review"])

            let again = try await ConsoleListRouteTests.post(api, "/console/review-queue/\(ids[0])/decide\(query)", [("csrf", token), ("decision", "reject")], cookie: session)
            #expect(again.status == 409 && again.text.contains("data-code=\"review_item_closed\""), "\(again.status)")
            let unchosen = try await ConsoleListRouteTests.post(api, "/console/review-queue/\(ids[2])/decide\(query)", [("csrf", token)], cookie: session)
            #expect(unchosen.status == 400 && unchosen.text.contains("data-code=\"invalid_field\""))

            let forged: [([(String, String)], HTTPFields)] = [
                ([("decision", "reject")], [:]),
                ([("csrf", Forgery.altered(token, last: 1)), ("decision", "reject")], [:]),
                ([("csrf", token), ("decision", "reject")], [HTTPField.Name("Sec-Fetch-Site")!: "cross-site"]),
                ([("csrf", token), ("decision", "reject")], [HTTPField.Name("Origin")!: "https://evil.example"]),
            ]
            for (fields, headers) in forged {
                let reply = try await ConsoleListRouteTests.post(api, "/console/review-queue/\(ids[2])/decide\(query)", fields, cookie: session, headers: headers)
                #expect(reply.status == 403 && reply.text.contains("data-code=\"forbidden\""), "\(fields.map(\.0)) \(headers): \(reply.status)")
            }
            #expect(try await engine.store.reviewItem(appId: ServerHarness.appId, id: ids[2])?.storedStatus == .open, "nothing changed")

            let reader = try await ConsoleRouteTests.session(api, key: ConsoleListRouteTests.readerKey)
            let readerPage = try await ConsoleRouteTests.get(api, "/console/review-queue/\(ids[2])\(query)", cookie: reader)
            #expect(readerPage.status == 200 && ConsoleListRouteTests.token(in: readerPage.text) == nil, "no form for a reader")
            let readerClaim = try await ConsoleListRouteTests.post(api, "/console/review-queue/\(ids[2])/claim\(query)", [("csrf", token)], cookie: reader)
            #expect(readerClaim.status == 403)
            let decided = try await ConsoleRouteTests.get(api, "/console/review-queue\(query)&status=decided", cookie: reader)
            #expect(decided.status == 200 && decided.text.contains("data-item=\"\(ids[0])\"") && !decided.text.contains("data-item=\"\(ids[2])\""))
            let badStatus = try await ConsoleRouteTests.get(api, "/console/review-queue\(query)&status=maybe", cookie: reader)
            #expect(badStatus.status == 400)
            let missing = try await ConsoleRouteTests.get(api, "/console/review-queue/99999\(query)", cookie: reader)
            #expect(missing.status == 404 && missing.text.contains("review_item_not_found"))
        }
    }
}
