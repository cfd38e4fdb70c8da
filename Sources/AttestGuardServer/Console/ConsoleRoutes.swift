import AttestVocabulary
import AttestGuardEngine
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The analysts' console: read-only HTML pages under `/console`, on the operator listener when there is one.
/// `GET /console/login` and `POST /console/login` exchange an `analyst` or `admin` API key (in the form body, never a
/// URL) for a session cookie; `POST /console/logout` ends it; every page needs the session and shows only the apps
/// the key may use.
struct ConsoleRoutes {
    /// The largest login form read.
    static let maximumFormBytes = 4_096

    let engine: Engine
    let authority: ConsoleAuthority
    let templates: ConsoleTemplates

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
        let pages = ConsolePages(engine: engine, templates: templates)
        let signedIn = console.add(middleware: ConsoleSessionMiddleware(authority: authority, clock: engine.clock))
        signedIn.get(use: pages.verdicts)
        signedIn.get("rules", use: pages.rules)
        signedIn.get("shadow", use: pages.shadow)
        signedIn.get("rollout", use: pages.rollout)
        signedIn.get("risk", use: pages.risk)
        signedIn.get("search", use: pages.search)
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
        guard let type = request.headers[.contentType], type.lowercased().hasPrefix("application/x-www-form-urlencoded") else {
            throw APIError(.unsupportedMediaType, code: .unsupportedMediaType, "send the login form as application/x-www-form-urlencoded")
        }
        let body = try await request.body.collect(upTo: Self.maximumFormBytes)
        let form = try FormFields(String(buffer: body))
        guard let secret = form["key"], !secret.isEmpty else {
            return loginPage(status: .badRequest, code: .missingField, "enter an API key")
        }
        switch authority.login(secret: secret, now: engine.clock.now()) {
        case .session(let key, let cookie):
            context.accessLog.apiKeyName = key.name
            context.logger.info("console login", metadata: ["api_key": .string(key.name)])
            return Response(status: .seeOther, headers: [.location: "/console", .setCookie: cookie])
        case .unknownKey:
            return loginPage(status: .unauthorized, code: .unauthorized, "that is not an API key this server knows")
        case .lacksScope(let key):
            context.accessLog.apiKeyName = key.name
            return loginPage(status: .forbidden, code: .forbidden, "API key \(key.name) lacks the analyst or admin scope")
        }
    }

    @Sendable func logout(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        Response(status: .seeOther, headers: [.location: "/console/login", .setCookie: authority.clearingCookie])
    }

    private func loginPage(status: HTTPResponse.Status, code: ErrorCode, _ message: String) -> Response {
        let view = LoginPage(minutes: Int(authority.lifetime / 60), problem: LoginPage.Problem(code: code.rawValue, message: message))
        return templates.page("login", view, status: status)
    }
}
