import WardenCgroup

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension CallerIdentity {
    /// Who a caller that is none of the apps is: root, this daemon's user and the members of the
    /// socket's group (its primary group, or one of its supplementary groups) are operators.
    static func operatorIdentity(of peer: PeerCredentials, socketPath: String, procRoot: String = "/proc")
        -> CallerIdentity
    {
        if peer.uid == 0 || peer.uid == geteuid() {
            return .operator
        }
        var socketStatus = stat()
        if stat(socketPath, &socketStatus) == 0, case let owner = socketStatus.st_gid,
            owner == peer.gid || ProcessGroups.supplementary(of: peer.pid, procRoot: procRoot).contains(owner)
        {
            return .operator
        }
        return .denied(
            "Process \(peer.pid) (user \(peer.uid)) is neither root, nor in the socket's group, nor one of the apps.")
    }
}
