public import Logging

/// Wraps a log handler so that setting a metadata key costs one dictionary write: the wrapped handler gets the
/// metadata only when a line is logged, merged under the line's own (which wins). swift-log's `StreamLogHandler`
/// renders all of its metadata as text on every change, and the server sets two keys per request (`request_id`,
/// `api_key`) while a successful request logs nothing above `debug`.
///
/// The wrapped handler's own metadata stays empty; its level and metadata provider are this handler's.
public struct DeferredMetadataLogHandler<Wrapped: LogHandler>: LogHandler {
    private var wrapped: Wrapped
    public var metadata: Logger.Metadata = [:]

    public init(_ wrapped: Wrapped) {
        self.wrapped = wrapped
    }

    public var logLevel: Logger.Level {
        get { wrapped.logLevel }
        set { wrapped.logLevel = newValue }
    }

    public var metadataProvider: Logger.MetadataProvider? {
        get { wrapped.metadataProvider }
        set { wrapped.metadataProvider = newValue }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        guard !metadata.isEmpty else { return wrapped.log(event: event) }
        var event = event
        event.metadata = metadata.merging(event.metadata ?? [:]) { _, explicit in explicit }
        wrapped.log(event: event)
    }
}
