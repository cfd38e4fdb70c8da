extension AttestGuardVersion {
    /// The short hash of the git commit this build was made from (the BuildCommit plugin runs `git rev-parse`
    /// whenever the checkout's HEAD moves); `nil` when built outside a git checkout, such as from a release tarball.
    public static let commit: String? = BuildCommit.hash

    /// What `attestguard --version` prints: the release, then the commit when there is one (`0.9.0 (commit 5dd82eb)`).
    public static var full: String {
        commit.map { "\(version) (commit \($0))" } ?? version
    }
}
