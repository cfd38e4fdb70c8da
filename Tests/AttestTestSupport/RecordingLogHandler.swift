public import Logging
import Synchronization

/// A log handler for tests: keeps every event it is given, with the handler's own metadata at that moment, in a
/// ``Recording`` shared by the logger and its copies.
public struct RecordingLogHandler: LogHandler {
    /// Everything one logger (and its copies) logged.
    public final class Recording: Sendable {
        /// One event, and the metadata the handler itself held when it was logged.
        public struct Line: Sendable {
            public let event: LogEvent
            public let handlerMetadata: Logger.Metadata
        }

        private let store = Mutex<[Line]>([])

        public init() {}

        public var lines: [Line] { store.withLock { $0 } }
        public var events: [LogEvent] { lines.map(\.event) }

        func append(_ line: Line) { store.withLock { $0.append(line) } }
    }

    public let recording: Recording
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]

    public init(recording: Recording, level: Logger.Level = .trace) {
        self.recording = recording
        self.logLevel = level
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        recording.append(Recording.Line(event: event, handlerMetadata: metadata))
    }
}
