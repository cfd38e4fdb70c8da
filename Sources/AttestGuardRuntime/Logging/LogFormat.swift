/// How the server writes its log lines (`logFormat`): one record per line either way, so a log shipper reads them
/// without multi-line rules.
public enum LogFormat: String, Sendable, CaseIterable {
    /// logfmt: `ts=2026-11-26T07:12:56.123Z level=info msg=request method=GET status=200`, a value quoted when it
    /// holds a space, `=`, a quote, a control character or non-ASCII text.
    case text
    /// One JSON object per line: `ts`, `level`, `msg`, `source`, then the metadata as fields.
    case json
}
