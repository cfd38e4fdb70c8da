import AttestGuardEngine
import Foundation

/// What every console page shows around its content: the title, the navigation, the app and range pickers, who is
/// signed in. The header and footer templates draw it.
struct ConsoleFrame: Sendable {
    /// A link of the navigation.
    struct NavItem: Sendable {
        var href: String
        var label: String
        var current: Bool
    }

    /// An app of the picker.
    struct AppOption: Sendable {
        var id: String
        var selected: Bool
    }

    /// A range of the picker.
    struct RangeOption: Sendable {
        var value: String
        var selected: Bool
    }

    /// The pages of the navigation: path under `/console` and label.
    static let pages: [(path: String, label: String)] = [
        ("", "Verdicts"), ("/rules", "Rule hits"), ("/shadow", "Shadow"), ("/rollout", "Rollout"), ("/risk", "Risk metric"), ("/search", "Search"),
        ("/lists", "Lists"), ("/review-queue", "Review"),
    ]

    var title: String
    var signedIn: Bool
    var keyName = ""
    /// The page's own path (the pickers' form submits to it).
    var path = ""
    var nav: [NavItem] = []
    var apps: [AppOption] = []
    var ranges: [RangeOption] = []
    /// The end of the range shown, for the footer.
    var to: String?

    /// The frame of a page that needs no session (login, errors before one).
    static func signedOut(_ title: String) -> ConsoleFrame {
        ConsoleFrame(title: title, signedIn: false)
    }

    /// The frame of a signed-in page at `path` (`/console/rules`) for `scope`.
    init(title: String, path: String, scope: ConsoleScope, to: Date? = nil) {
        self.title = title
        self.signedIn = true
        self.keyName = scope.key.name
        self.path = path
        let query = "?app=\(Self.encoded(scope.appId))&range=\(scope.range.rawValue)"
        nav = Self.pages.map { page in
            NavItem(href: "/console\(page.path)\(query)", label: page.label, current: "/console\(page.path)" == path || (!page.path.isEmpty && path.hasPrefix("/console\(page.path)/")))
        }
        apps = scope.apps.map { AppOption(id: $0, selected: $0 == scope.appId) }
        ranges = ConsoleRange.allCases.map { RangeOption(value: $0.rawValue, selected: $0 == scope.range) }
        self.to = to.map(ConsoleText.minute)
    }

    private init(title: String, signedIn: Bool) {
        self.title = title
        self.signedIn = signedIn
    }

    /// A query value percent-encoded (app ids are ASCII; anything but letters, digits and `.-_` is escaped).
    static func encoded(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: ".-_")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
