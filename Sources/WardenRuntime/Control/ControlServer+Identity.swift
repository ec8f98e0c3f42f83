import NIOCore
import WardenCore

#if canImport(Glibc)
    import Glibc
#endif

extension ControlServer {
    /// Reads the caller's `SO_PEERCRED` credentials from the connection and asks the daemon who
    /// that is.
    func identifyCaller(of context: ControlServerContext) async -> ControlServerCaller {
        guard let peer = await Self.peerCredentials(of: context.channel) else {
            return ControlServerCaller(
                peer: nil,
                identity: .denied(
                    "The caller's identity could not be read from the connection (SO_PEERCRED), so nothing is allowed."
                )
            )
        }
        return ControlServerCaller(peer: peer, identity: await control.identify(peer))
    }

    /// `getsockopt(SOL_SOCKET, SO_PEERCRED)` on the connection's socket, through NIO's
    /// `SocketOptionProvider`; nil when the channel is not a Unix socket.
    static func peerCredentials(of channel: any Channel) async -> PeerCredentials? {
        guard let provider = channel as? any SocketOptionProvider else { return nil }
        do {
            let credentials: SocketCredentials = try await provider.unsafeGetSocketOption(
                level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED)
            ).get()
            return PeerCredentials(pid: credentials.pid, uid: credentials.uid, gid: credentials.gid)
        } catch {
            return nil
        }
    }

    /// The layout of Linux's `struct ucred` (`<sys/socket.h>`, hidden from Swift's Glibc module
    /// behind `_GNU_SOURCE`): three 32-bit fields, pid, uid and gid.
    struct SocketCredentials: Sendable {
        var pid: Int32 = 0
        var uid: UInt32 = 0
        var gid: UInt32 = 0
    }
}
