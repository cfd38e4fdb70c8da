import Foundation
import Testing
@testable import AttestGuardCLI

/// How the demo's analyst reads an item page's decision form and writes a form body, as a browser does.
struct DemoConsoleAnalystTests {
    @Test("the decision form's action and token come out of the page unescaped; the claim form is not taken for it")
    func decisionForm() throws {
        let page = """
            <form class="change" method="post" action="/console/review-queue/7/claim?app=TEAM.app&amp;range=24h">
            <input type="hidden" name="csrf" value="claim-token">
            </form>
            <form class="change" method="post" action="/console/review-queue/7/decide?app=TEAM.app&amp;range=24h">
            <input type="hidden" name="csrf" value="a&#39;b&amp;c">
            """
        let form = try #require(DemoConsoleAnalyst.decisionForm(in: page))
        #expect(form.action == "/console/review-queue/7/decide?app=TEAM.app&range=24h")
        #expect(form.csrf == "a'b&c")
        #expect(DemoConsoleAnalyst.decisionForm(in: "<p>decided</p>") == nil)
    }

    @Test("the console's own item template, filled as the server fills it, gives its decision form")
    func decisionFormOfTheTemplate() throws {
        let template = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Console/templates/review-item.mustache")
        var page = try String(contentsOf: template, encoding: .utf8)
        // The values as Mustache writes them, escaped; every other tag (sections, other fields) left out.
        for (tag, value) in [("formAction", "/console/review-queue/42"), ("formQuery", "?app=TEAM.app&amp;range=24h"), ("csrf", "tok&amp;en")] {
            page = page.replacingOccurrences(of: "{{" + tag + "}}", with: value)
        }
        page = page.replacing(/\{\{[^}]*\}\}/, with: "")
        let form = try #require(DemoConsoleAnalyst.decisionForm(in: page), "\(page)")
        #expect(form.action == "/console/review-queue/42/decide?app=TEAM.app&range=24h")
        #expect(form.csrf == "tok&en")
    }

    @Test("form fields are URL-encoded: a space as +, reserved and non-ASCII bytes percent-encoded")
    func formEncoding() {
        #expect(DemoConsoleAnalyst.formEncoded("a b&c=d+e/é") == "a+b%26c%3Dd%2Be%2F%C3%A9")
        #expect(DemoConsoleAnalyst.formEncoded("demo-Key_1.x*") == "demo-Key_1.x*")
    }
}
