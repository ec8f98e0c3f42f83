/// The answer to the call that produced a batch of actions.
public enum Reply: Sendable, Equatable {
    /// `begin-task`: the new task's id and the time remaining (nil: unlimited while in the foreground).
    case taskBegun(id: Int, remaining: Duration?)
    /// `begin-activity`: the new activity's id (rule 14).
    case activityBegun(id: Int)
    /// `time-remaining`: nil while in the foreground (no budget is running).
    case timeRemaining(Duration?)
    /// `register-push`: the app's current device token.
    case deviceToken(String)
    /// `push`: what became of it.
    case push(PushDisposition)
    /// `policy reload`: the apps added, removed and changed, and what became of them.
    case policyChanged(PolicyDiff)
}
