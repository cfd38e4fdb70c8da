import HTTPTypes
import Hummingbird
import Mustache
import NIOCore

/// The console's Mustache templates (``EmbeddedConsole``), parsed once, and the HTML responses drawn with them.
/// Templates use double braces only, so every value is HTML-escaped (a test refuses `{{{` and `{{&`).
struct ConsoleTemplates: Sendable {
    private let library: MustacheLibrary

    /// - Throws: when a template does not parse (a test parses them all).
    init() throws {
        var library = MustacheLibrary()
        for (name, text) in EmbeddedConsole.templates {
            try library.register(text, named: name)
        }
        self.library = library
    }

    /// The template `name` drawn from `view`.
    func html(_ name: String, _ view: Any) -> String {
        library.render(view, withTemplate: name) ?? ""
    }

    /// The page `name` drawn from `view`, with `status`.
    func page(_ name: String, _ view: Any, status: HTTPResponse.Status = .ok, headers extra: HTTPFields = [:]) -> Response {
        let html = html(name, view)
        var headers = extra
        headers[.contentType] = "text/html; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }
}

/// The login page's view: how long a session lasts, and why the last attempt failed.
struct LoginPage: Sendable {
    struct Problem: Sendable {
        var code: String
        var message: String
    }

    var frame = ConsoleFrame.signedOut("Sign in")
    var minutes: Int
    var problem: Problem?
}

/// The error page's view.
struct ErrorPage: Sendable {
    var frame: ConsoleFrame
    var status: Int
    var code: String
    var message: String
}
