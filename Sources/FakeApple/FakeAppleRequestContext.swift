import Hummingbird
import NIOCore

/// The fake Apple's request context: Hummingbird's core storage plus the connection, so a handler can drop it.
struct FakeAppleRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The client's connection.
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        self.coreContext = CoreRequestContextStorage(source: source)
        self.channel = source.channel
    }
}
