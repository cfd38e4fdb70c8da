import AttestVocabulary
import Testing

/// The generated reference pages under `docs/reference/` that this target can print: each is exactly what its
/// catalog prints now (the configuration keys are held by `ConfigurationReferenceTests`, the signals by
/// `SignalSchemaDocumentationTests`).
struct GeneratedReferenceTests {
    @Test func metricsPageIsTheCatalog() throws {
        let page = try RepositoryFiles.text("docs/reference/metrics.md")
        #expect(page == MetricFamily.referenceMarkdown(), "write it again with `attestguard reference metrics > docs/reference/metrics.md`")
    }

    @Test func metricsPageNamesEveryFamilyOnce() {
        let page = MetricFamily.referenceMarkdown()
        for family in MetricFamily.all {
            #expect(page.components(separatedBy: "| `\(family.name)` |").count == 2, "\(family.name)")
        }
        #expect(!page.contains("||"), "a HELP text's | ends its cell")
    }
}
