import Foundation
import PackagePlugin

/// Embeds repository files into the target it is applied to, at build time: each dialect's migrations (`SQL/`) into
/// its store backend,
/// the default rule set (`Rules/`) into the rule language, the VERSION into the runtime, the OpenAPI document and the
/// console's templates into the server. The files are the source of truth and the generated Swift lives in the build folder only.
///
/// Each command lists every file it reads and the folders that hold them as inputs: editing, adding or removing a
/// file (a folder's modification time changes when an entry comes or goes) runs it again at the next build, and the
/// tool rewrites its output only when the text changes.
@main
struct EmbedResourcesPlugin: BuildToolPlugin {
    /// One generated file: the tool's kind, the output's name, and the files and folders it reads (relative to the
    /// package).
    struct Embedding {
        var kind: String
        var output: String
        var files: [String]
        var folders: [String]
    }

    /// What each target embeds, by target name.
    static let embeddings: [String: [Embedding]] = [
        "AttestGuardPostgres": [Embedding(kind: "migrations-postgres", output: "EmbeddedMigrations.swift", files: [], folders: ["SQL/postgres"])],
        "AttestGuardSQLite": [Embedding(kind: "migrations-sqlite", output: "EmbeddedMigrations.swift", files: [], folders: ["SQL/sqlite"])],
        "RiskRules": [Embedding(kind: "rules", output: "EmbeddedDefaultRules.swift", files: [], folders: ["Rules"])],
        "AttestGuardRuntime": [Embedding(kind: "version", output: "EmbeddedVersion.swift", files: ["VERSION"], folders: [])],
        "AttestGuardServer": [
            Embedding(kind: "openapi", output: "EmbeddedOpenAPI.swift", files: ["OpenAPI/openapi.yaml"], folders: []),
            Embedding(kind: "console", output: "EmbeddedConsole.swift", files: ["Console/console.css"], folders: ["Console/templates"]),
        ],
    ]

    struct UnknownTarget: Error, CustomStringConvertible {
        var description: String
    }

    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let embeddings = Self.embeddings[target.name] else {
            throw UnknownTarget(description: "EmbedResources knows nothing to embed into \(target.name): add it to EmbedResourcesPlugin.embeddings")
        }
        let tool = try context.tool(named: "EmbedResourcesTool")
        let package = context.package.directoryURL
        return embeddings.map { embedding in
            let output = context.pluginWorkDirectoryURL.appending(path: embedding.output)
            var inputs = embedding.files.map { package.appending(path: $0) }
            for folder in embedding.folders {
                inputs += Self.tree(package.appending(path: folder))
            }
            return .buildCommand(
                displayName: "Embedding \(embedding.kind) into \(target.name)",
                executable: tool.url,
                arguments: [embedding.kind, package.path, output.path],
                inputFiles: inputs,
                outputFiles: [output]
            )
        }
    }

    /// `folder`, every folder below it and every file below it.
    static func tree(_ folder: URL) -> [URL] {
        var found = [folder]
        guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { return found }
        for case let url as URL in walker { found.append(url) }
        return found
    }
}
