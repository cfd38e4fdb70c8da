import AttestVocabulary
import AttestGuardEngine
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import AttestGuardRuntime

/// The analysts' console: HTML pages under `/console`, on the operator listener when there is one.
/// `GET /console/login` and `POST /console/login` exchange an `analyst` or `admin` API key (in the form body, never a
/// URL) for a session cookie; `POST /console/logout` ends it; every page needs the session and shows only the apps
/// the key may use. The pages read; the run-time list pages (``ListPages``) also change lists, and the review pages
/// (``ReviewPages``) claim and decide review items, by forms that carry the session's token.
struct ConsoleRoutes {
    /// The largest login form read.
    static let maximumFormBytes = 4_096

    let engine: Engine
    let authority: ConsoleAuthority
    let templates: ConsoleTemplates
    let throttle = ConsoleLoginThrottle()

    init(engine: Engine, keys: APIKeyRing, settings: ConsoleSettings) throws {
        self.engine = engine
        authority = ConsoleAuthority(ring: keys, settings: settings)
        templates = try ConsoleTemplates()
    }

    func register(on router: Router<AttestGuardRequestContext>) {
        let console = router.group("console").add(middleware: ConsoleMiddleware(templates: templates, clock: engine.clock))
        console.get("console.css", use: stylesheet)
        console.get("login", use: loginForm)
        console.post("login", use: login)
        console.post("logout", use: logout)
        // Any other path under /console is the console's 404 page, with its headers.
        for method in [HTTPRequest.Method.get, .post] { console.on("**", method: method, use: notFound) }
        let pages = ConsolePages(engine: engine, templates: templates)
        let signedIn = console.add(middleware: ConsoleSessionMiddleware(authority: authority, clock: engine.clock))
        signedIn.get(use: pages.verdicts)
        signedIn.get("rules", use: pages.rules)
        signedIn.get("shadow", use: pages.shadow)
        signedIn.get("rollout", use: pages.rollout)
        signedIn.get("risk", use: pages.risk)
        signedIn.get("search", use: pages.search)
        let lists = ListPages(engine: engine, templates: templates, authority: authority)
        signedIn.get("lists", use: lists.lists)
        signedIn.get("lists/:listName", use: lists.list)
        signedIn.post("lists", use: lists.create)
        signedIn.post("lists/:listName/add", use: lists.add)
        signedIn.post("lists/:listName/remove", use: lists.remove)
        let reviews = ReviewPages(engine: engine, templates: templates, authority: authority)
        signedIn.get("review-queue", use: reviews.queue)
        signedIn.get("review-queue/:itemId", use: reviews.item)
        signedIn.post("review-queue/:itemId/claim", use: reviews.claim)
        signedIn.post("review-queue/:itemId/decide", use: reviews.decide)
    }

    @Sendable func stylesheet(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        Response(status: .ok, headers: [.contentType: "text/css; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: EmbeddedConsole.stylesheet)))
    }

    @Sendable func loginForm(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        templates.page("login", LoginPage(minutes: Int(authority.lifetime / 60)))
    }

    /// Reads the key from an `application/x-www-form-urlencoded` body: 303 to the console with the session cookie,
    /// or the login page again with 401 (no such key) or 403 (a key without a console scope).
    @Sendable func login(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        try Self.checkOrigin(request)
        let now = engine.clock.now()
        if let until = throttle.refusedUntil(address: context.peerAddress, at: now) {
            let seconds = max(1, Int(until.timeIntervalSince(now).rounded(.up)))
            throw APIError(.tooManyRequests, code: .rateLimited, "too many failed logins: try again in \(seconds) s", retryAfterSeconds: seconds)
        }
        guard let type = request.headers[.contentType], type.lowercased().hasPrefix("application/x-www-form-urlencoded") else {
            throw APIError(.unsupportedMediaType, code: .unsupportedMediaType, "send the login form as application/x-www-form-urlencoded")
        }
        let body = try await request.body.collect(upTo: Self.maximumFormBytes)
        let form = try FormFields(String(buffer: body))
        guard let secret = form["key"], !secret.isEmpty else {
            return loginPage(status: .badRequest, code: .missingField, "enter an API key")
        }
        switch authority.login(secret: secret, now: now) {
        case .session(let key, let cookie):
            context.accessLog.apiKeyName = key.name
            context.logger.info("console login", metadata: ["api_key": .string(key.name)])
            return Response(status: .seeOther, headers: [.location: "/console", .setCookie: cookie])
        case .unknownKey:
            throttle.failed(address: context.peerAddress, at: now)
            return loginPage(status: .unauthorized, code: .unauthorized, "that is not an API key this server knows")
        case .lacksScope(let key):
            throttle.failed(address: context.peerAddress, at: now)
            context.accessLog.apiKeyName = key.name
            return loginPage(status: .forbidden, code: .forbidden, "API key \(key.name) lacks the analyst or admin scope")
        }
    }

    /// Ends the session on the server too (a copied cookie opens nothing after it) and in the browser.
    @Sendable func logout(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        try Self.checkOrigin(request)
        authority.logOut(request, now: engine.clock.now())
        return Response(status: .seeOther, headers: [.location: "/console/login", .setCookie: authority.clearingCookie])
    }

    @Sendable func notFound(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        throw APIError(.notFound, code: .notFound, "the console has no page \(request.uri.path.prefix(128))")
    }

    /// A form posted from another site is refused (403): a browser says where the form came from in
    /// `Sec-Fetch-Site` (it must be `same-origin`, or `none` for one the user typed), or else in `Origin` (it must
    /// be this host's). A request with neither (a script, curl) passes.
    static func checkOrigin(_ request: Request) throws {
        let refused = APIError(.forbidden, code: .forbidden, "the console's forms are posted from its own pages only")
        if let site = request.headers[HTTPField.Name("Sec-Fetch-Site")!] {
            guard site == "same-origin" || site == "none" else { throw refused }
            return
        }
        guard let origin = request.headers[HTTPField.Name("Origin")!] else { return }
        let host = origin.split(separator: "://", maxSplits: 1).last.map(String.init) ?? ""
        guard let authority = request.head.authority, origin != "null", host.lowercased() == authority.lowercased() else { throw refused }
    }

    private func loginPage(status: HTTPResponse.Status, code: ErrorCode, _ message: String) -> Response {
        let view = LoginPage(minutes: Int(authority.lifetime / 60), problem: LoginPage.Problem(code: code.rawValue, message: message))
        return templates.page("login", view, status: status)
    }
}
