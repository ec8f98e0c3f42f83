import WardenCore

/// The process at the other end of a request's connection and what it may do.
struct ControlServerCaller: Sendable, Equatable {
    /// `SO_PEERCRED` of the connection; nil when it could not be read.
    var peer: PeerCredentials?
    var identity: CallerIdentity

    /// Names the calling process in refusals: `Process 1234 (uid 1000)`.
    var processName: String {
        guard let peer else { return "The calling process" }
        return "Process \(peer.pid) (uid \(peer.uid))"
    }

    /// Refuses anyone but an operator.
    func requireOperator(toDo action: String) throws(ControlServerFailure) {
        switch identity {
        case .operator:
            return
        case .app(let name):
            throw .forbidden(
                "\(processName) belongs to app \"\(name)\" and may not \(action): that needs root or the control socket's group."
            )
        case .denied(let sentence):
            throw .forbidden(sentence)
        }
    }

    /// Refuses anyone but an operator or a process of `app`.
    func requireApp(_ app: String, toDo action: String) throws(ControlServerFailure) {
        switch identity {
        case .operator:
            return
        case .app(let name) where name == app:
            return
        case .app(let name):
            throw .forbidden(
                "\(processName) belongs to app \"\(name)\" and may not \(action) of app \"\(app)\"; an app acts only for itself."
            )
        case .denied(let sentence):
            throw .forbidden(sentence)
        }
    }

    /// Refuses a caller that is denied everything.
    func requireKnown() throws(ControlServerFailure) {
        if case .denied(let sentence) = identity {
            throw .forbidden(sentence)
        }
    }
}
