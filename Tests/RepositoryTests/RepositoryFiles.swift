import AttestTestSupport
import Foundation
import Testing

/// The repository's own files, as git tracks them, for tests that check the tree's shape rather than code.
enum RepositoryFiles {
    /// The repository's root folder (this file is `Tests/RepositoryTests/RepositoryFiles.swift`).
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Every path `git ls-files` lists, relative to the root.
    static func tracked() throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git", "-C", root.path, "ls-files", "-z"]
        let output = Pipe()
        process.standardOutput = output
        try process.runWhenDescriptorsAllow()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "git ls-files failed in \(root.path)")
        return String(decoding: data, as: UTF8.self).split(separator: "\0").map(String.init)
    }

    /// The text of a file below the root.
    static func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }
}
