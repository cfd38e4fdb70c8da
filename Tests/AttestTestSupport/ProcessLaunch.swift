public import Foundation

extension Process {
    /// The open descriptors past which a launch waits. swift-corelibs-foundation's `run()` lists `/proc/self/fd` and
    /// copies 256 bytes of every entry's name, reading past the end of glibc's 32 KB directory buffer when it is full
    /// (about 1,365 entries): the test process crashed so once, while the suite's first minute held 1,400 sockets
    /// (swift-corelibs-foundation pull request 5472 fixes it). Below this bound the buffer is never full.
    static let descriptorBound = 1_000

    /// Starts the process once this process holds fewer than ``descriptorBound`` open descriptors (waiting at most a
    /// minute); for code on a thread of its own.
    public func runWhenDescriptorsAllow() throws {
        let deadline = Date().addingTimeInterval(60)
        while Self.openDescriptors() >= Self.descriptorBound, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        try run()
    }

    /// ``runWhenDescriptorsAllow()`` for async code: it waits without holding a thread of the cooperative pool, so
    /// that the tests whose sockets it waits for can close them.
    public func runWhenDescriptorsAllowAsync() async throws {
        let deadline = Date().addingTimeInterval(60)
        while Self.openDescriptors() >= Self.descriptorBound, Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        try run()
    }

    /// This process's open descriptors (0 where `/proc` is absent: nothing to wait for). FileManager lists the
    /// directory with the bounded name accessors, unlike `run()`.
    static func openDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
    }
}
