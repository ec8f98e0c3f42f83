import Hummingbird
import NIOCore

/// The request context of the control server: Hummingbird's core context plus the connection's
/// channel, from which the caller's `SO_PEERCRED` credentials are read.
struct ControlServerContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The accepted Unix-socket connection the request arrived on.
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.channel = source.channel
    }

    var maxUploadSize: Int { ControlServer.maximumBodyBytes }
}
