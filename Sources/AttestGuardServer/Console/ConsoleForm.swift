import Hummingbird

/// Reads a console form that changes state: posted from this console's own page for this session
/// (``ConsoleAuthority/checkForm(_:token:)``), by a key that may change things, as
/// `application/x-www-form-urlencoded` of at most `maximumBytes`.
enum ConsoleForm {
    /// - Parameters:
    ///   - canChange: Whether the key may make the change; `what` names it in the refusal.
    /// - Throws: 403 `forbidden` (no right, another site, no token), 415 for another media type, 413 past the bound,
    ///   400 `invalid_field` for a broken form.
    static func read(
        _ request: Request, authority: ConsoleAuthority, canChange: Bool, what: String, maximumBytes: Int
    ) async throws -> FormFields {
        guard canChange else {
            throw APIError(.forbidden, code: .forbidden, "\(what) takes a key with the analyst:write or admin scope")
        }
        guard let type = request.headers[.contentType], type.lowercased().hasPrefix("application/x-www-form-urlencoded") else {
            throw APIError(.unsupportedMediaType, code: .unsupportedMediaType, "send the form as application/x-www-form-urlencoded")
        }
        var request = request
        let body = try await request.collectBody(upTo: maximumBytes)
        let form = try FormFields(String(buffer: body))
        try authority.checkForm(request, token: form["csrf"])
        return form
    }
}
