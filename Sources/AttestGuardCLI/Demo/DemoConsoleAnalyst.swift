import AsyncHTTPClient
import AttestGuardWire
import AttestVocabulary
import Foundation
import NIOCore
import NIOHTTP1
import TrafficSimulator

/// The demo's analyst at the console: signs in with the demo's key as the login form does, finds the review item each
/// checked request of ``PersonaExpectations/decidedInReviewQueue`` opened, and decides it on the item's page with that
/// page's own form (its action and `csrf` token, the session cookie, the console's own `Origin`), as a browser posts
/// it. A decision labels the item's subject in the store, which is how it reaches the labelled history.
struct DemoConsoleAnalyst {
    /// One checked request's review item and what became of it.
    struct Decided {
        var persona: Persona
        var itemId: String
        var decision: ReviewDecision
    }

    /// What the analyst writes in each decision's note.
    static let note = "attestguard demo: the analyst's review of a client without App Attest"

    let serverURL: String
    let apiKey: String
    let appId: String
    /// A client that reads each answer as it is: the console answers a form with 303, which is checked, not followed.
    private let client: HTTPClient

    init(serverURL: String, apiKey: String, appId: String) {
        self.serverURL = serverURL
        self.apiKey = apiKey
        self.appId = appId
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.timeout = HTTPClient.Configuration.Timeout(connect: .seconds(30))
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// What the analyst did: the items decided, and the checked requests that opened none (each a line saying so).
    struct Work {
        var decided: [Decided] = []
        var missing: [String] = []
    }

    /// Decides every reviewed persona's item, approving a legitimate persona's and rejecting a fraudulent one's
    /// (``PersonaExpectations/label(for:)``), then closes the client. A checked request that opened no item (its
    /// persona got no `review` on a purchase, with another rule set) is listed in ``Work/missing``.
    /// - Throws: ``DemoError`` when the console refused a step.
    func decide(_ results: [PersonaResult]) async throws -> Work {
        do {
            let decided = try await decideEach(results)
            try await client.shutdown()
            return decided
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    private func decideEach(_ results: [PersonaResult]) async throws -> Work {
        let cookie = try await signIn()
        let pending = try await pendingItems()
        var work = Work()
        for result in results where PersonaExpectations.decidedInReviewQueue.contains(result.persona) {
            guard let label = PersonaExpectations.label(for: result.persona) else { continue }
            let decision: ReviewDecision = label == .fraud ? .reject : .approve
            let requestIds = result.outcomes.compactMap { $0.verdict?.requestId }
            if requestIds.isEmpty { work.missing.append("\(result.persona.rawValue): no checked verdict") }
            for requestId in requestIds {
                guard let item = pending.first(where: { $0.lastRequestId == requestId || $0.firstRequestId == requestId }) else {
                    // A verdict between an item's first and last folded into it; the item names only those two.
                    if !work.decided.contains(where: { $0.persona == result.persona }) {
                        work.missing.append("\(result.persona.rawValue): request \(requestId) opened no review item")
                    }
                    continue
                }
                // Verdicts about one subject fold into one item: it is decided once.
                guard !work.decided.contains(where: { $0.itemId == item.id }) else { continue }
                try await decide(itemId: item.id, decision, cookie: cookie)
                work.decided.append(Decided(persona: result.persona, itemId: item.id, decision: decision))
            }
        }
        return work
    }

    /// `POST /console/login` with the key: the session cookie's `name=value`.
    private func signIn() async throws -> String {
        let answer = try await send(.POST, "/console/login", form: [("key", apiKey)], cookie: nil)
        guard answer.status == 303, let setCookie = answer.headers.first(name: "Set-Cookie"),
            let pair = setCookie.split(separator: ";").first, pair.contains("=")
        else {
            throw DemoError("the console's login answered \(answer.status): \(answer.text.prefix(300))")
        }
        return String(pair)
    }

    /// The app's pending review items, through the API (the console's queue shows the same, without request ids).
    private func pendingItems() async throws -> [ReviewItemBody] {
        let answer = try await send(.GET, "/v1/apps/\(appId)/review-items?status=\(ReviewItemFilter.pending.rawValue)&limit=500", bearer: true)
        guard answer.status == 200 else {
            throw DemoError("GET review-items answered \(answer.status): \(answer.text.prefix(300))")
        }
        return try WireJSON.decoder().decode(ReviewItemsBody.self, from: answer.body).items
    }

    /// Opens the item's page and posts its decision form.
    private func decide(itemId: String, _ decision: ReviewDecision, cookie: String) async throws {
        let page = try await send(.GET, "/console/review-queue/\(itemId)?app=\(appId)", cookie: cookie)
        guard page.status == 200, let form = Self.decisionForm(in: page.text) else {
            throw DemoError("the console's page of review item \(itemId) answered \(page.status) without a decision form")
        }
        let posted = try await send(
            .POST, form.action, form: [("csrf", form.csrf), ("decision", decision.rawValue), ("note", Self.note)], cookie: cookie
        )
        guard posted.status == 303 else {
            throw DemoError("deciding review item \(itemId) in the console answered \(posted.status): \(posted.text.prefix(300))")
        }
    }

    /// The decision form of an item's page: its action (a path with its query) and its `csrf` token, HTML-unescaped.
    static func decisionForm(in html: String) -> (action: String, csrf: String)? {
        let pattern = /<form class="change" method="post" action="([^"]*\/decide[^"]*)">\s*<input type="hidden" name="csrf" value="([^"]+)">/
        guard let match = html.firstMatch(of: pattern) else { return nil }
        return (unescape(String(match.1)), unescape(String(match.2)))
    }

    /// Undoes the escaping the console's templates apply to values (Mustache's: `<`, `>`, `&`, `"`, `'`).
    static func unescape(_ text: String) -> String {
        text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    /// What the server answered: status, headers, body.
    private struct Answer {
        var status: Int
        var headers: HTTPHeaders
        var body: Data
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// One request: a form body (URL-encoded, with the console's own `Origin`), the session cookie, or the API key.
    private func send(
        _ method: HTTPMethod, _ path: String, form: [(String, String)]? = nil, cookie: String? = nil, bearer: Bool = false
    ) async throws -> Answer {
        var request = HTTPClientRequest(url: serverURL + path)
        request.method = method
        if bearer { request.headers.add(name: "Authorization", value: "Bearer \(apiKey)") }
        if let cookie { request.headers.add(name: "Cookie", value: cookie) }
        if let form {
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            request.headers.add(name: "Origin", value: serverURL)
            let body = form.map { "\(Self.formEncoded($0.0))=\(Self.formEncoded($0.1))" }.joined(separator: "&")
            request.body = .bytes(ByteBuffer(string: body))
        }
        let response = try await client.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 20)
        return Answer(status: Int(response.status.code), headers: response.headers, body: Data(body.readableBytesView))
    }

    /// A form field as `application/x-www-form-urlencoded` writes it: unreserved characters as they are, a space as
    /// `+`, every other byte percent-encoded.
    static func formEncoded(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)..<Unicode.Scalar(128)))
        allowed.insert(charactersIn: "-._* ")
        return (text.addingPercentEncoding(withAllowedCharacters: allowed) ?? "").replacingOccurrences(of: " ", with: "+")
    }
}
