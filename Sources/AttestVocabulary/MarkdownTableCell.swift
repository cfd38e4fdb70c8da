/// Text placed in one cell of a generated Markdown table (the reference pages under `docs/reference/`): a `|` written
/// out would end the cell, so it is escaped.
package enum MarkdownTableCell {
    package static func escaping(_ text: String) -> String {
        text.replacing("|", with: "\\|")
    }
}
