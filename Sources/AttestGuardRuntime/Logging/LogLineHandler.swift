#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
package import Darwin
#endif
import Foundation
public import Logging
import Synchronization

/// The server's swift-log handler: each record as one line of logfmt or JSON (``LogFormat``, rendered by
/// ``LogLineFormatter``) written to standard error in one piece, so that lines from concurrent requests never mix.
public struct LogLineHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let formatter: LogLineFormatter
    private let output: LogLineOutput

    /// A handler writing to standard error.
    public init(format: LogFormat, level: Logger.Level, metadataProvider: Logger.MetadataProvider? = nil) {
        self.init(format: format, level: level, metadataProvider: metadataProvider, output: .standardError)
    }

    package init(format: LogFormat, level: Logger.Level, metadataProvider: Logger.MetadataProvider? = nil, output: LogLineOutput) {
        self.logLevel = level
        self.formatter = LogLineFormatter(format: format)
        self.metadataProvider = metadataProvider
        self.output = output
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, provided in provided } }
        if let own = event.metadata { merged.merge(own) { _, own in own } }
        let line = formatter.line(time: Date(), level: event.level, message: "\(event.message)", source: event.source, metadata: merged)
        output.write(line + "\n")
    }
}

/// Where log lines go: standard error, or (in tests) a collected list.
package final class LogLineOutput: Sendable {
    private let collecting: Bool
    private let collected = Mutex<[String]>([])
    private let writing = Mutex(())

    package static let standardError = LogLineOutput(collecting: false)

    package init(collecting: Bool) {
        self.collecting = collecting
    }

    /// The lines written so far, when collecting.
    package var lines: [String] { collected.withLock { $0 } }

    package func write(_ line: String) {
        if collecting { return collected.withLock { $0.append(line) } }
        var bytes = Array(line.utf8)
        writing.withLock { _ in
            var offset = 0
            while offset < bytes.count {
                let written = bytes.withUnsafeMutableBytes { buffer in
                    writeToStandardError(buffer.baseAddress! + offset, buffer.count - offset)
                }
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
    }
}

/// write(2) to descriptor 2 (a file-scope function, so that `write` is the C one).
private func writeToStandardError(_ bytes: UnsafeMutableRawPointer, _ count: Int) -> Int {
    write(2, bytes, count)
}
