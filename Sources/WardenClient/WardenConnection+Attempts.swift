import WardenAPI

extension WardenConnection {
    /// A change of an event stream's connection, as `events(path:since:onConnectionChange:)`
    /// reports it.
    public enum ConnectionChange: Sendable, Equatable {
        /// The connection dropped, the daemon ended the stream or the socket is missing; the
        /// stream is trying to connect again. Reported once per outage.
        case lost(WardenClientError)
        /// The daemon accepted the stream again, resuming after the entry with this id (nil
        /// when no entry was delivered yet).
        case restored(resumingAfter: Int64?)
    }

    /// What one connection of an event stream delivers.
    enum StreamItem: Sendable {
        /// The daemon accepted the stream (its answer's head arrived).
        case connected
        case entry(JournalEntry)
    }

    /// Why one connection of an event stream ended, and whether connecting again may help.
    struct StreamFailure: Error {
        var cause: WardenClientError
        var mayRetry: Bool
    }

    /// Why one attempt of a call failed, and how far it got.
    struct CallFailure: Error {
        enum Stage {
            /// The socket is missing or refused the connection: the daemon never saw the request.
            case notSent
            /// The request was sent (or partly sent) and the connection ended before a whole answer.
            case sentNoAnswer
            /// The connection stayed open but nothing moved on it for the answer's time limit: a
            /// daemon that is stuck, which another attempt would not get an answer from either.
            case unanswered
            /// Trying again cannot help: an unusable socket path, or a malformed answer.
            case unusable
        }

        var stage: Stage
        var cause: WardenClientError

        /// Whether another attempt is safe and may succeed.
        func mayRetry(repeatable: Bool) -> Bool {
            switch stage {
            case .notSent: true
            case .sentNoAnswer: repeatable
            case .unanswered, .unusable: false
            }
        }

        /// The error the caller sees once no attempt is left.
        func error(method: String, path: String, repeatable: Bool, window: Duration) -> WardenClientError {
            switch stage {
            case .notSent where window > .zero:
                WardenClientError(
                    cause.code, cause.message.dropLastPeriod + " (tried for \(window.secondsText)).",
                    status: cause.status)
            case .sentNoAnswer where !repeatable:
                WardenClientError(
                    .connection,
                    "The daemon went away after \(method) \(path) was sent and before it answered (\(cause.message.dropLastPeriod)), "
                        + "so the call may or may not have taken effect; it is not sent again because it is not idempotent."
                )
            case .sentNoAnswer where window > .zero:
                WardenClientError(
                    cause.code,
                    "The daemon did not answer \(method) \(path) within \(window.secondsText): \(cause.message)")
            case .unanswered:
                WardenClientError(
                    .connection,
                    "The daemon did not answer \(method) \(path): \(cause.message)"
                        + (repeatable ? "" : " The call may or may not have taken effect; it is not sent again."))
            default:
                cause
            }
        }
    }
}

extension String {
    /// The sentence without its final period, to continue it.
    var dropLastPeriod: String {
        hasSuffix(".") ? String(dropLast()) : self
    }
}

extension Duration {
    /// Whole or fractional seconds: `10s`, `0.5s`.
    var secondsText: String {
        let (seconds, attoseconds) = components
        if attoseconds == 0 { return "\(seconds)s" }
        return "\(Double(seconds) + Double(attoseconds) / 1e18)s"
    }
}
