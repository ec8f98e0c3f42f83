/// Continuous background work (rule 14): an app with a continuous background mode (`audio`,
/// `location`, `long-work`) may hold an activity. While it holds one in background it runs with
/// no task budget, is never suspended, sits in a kill band of its own after background tasks
/// and before the foreground (rule 9), and runs in the activity CPU class (rule 13).
///
/// An activity is begun in the foreground, or in background while the app holds another one
/// (as Android allows a foreground service to start only from a visible app, and iOS keeps
/// playing only the audio that was playing when the app left the screen): a suspended app, or
/// one that a fetch or push woke, cannot begin one. It ends when the app ends it, when the app
/// stops running (exit, crash, any termination), when the person force-quits the app, and when
/// it has run unattended for the policy's `activity_limit`.
extension Lifecycle {
    /// `begin-activity MODE`: refused without the mode in `background_modes`, in background
    /// without an activity held, and while `max_activities` other apps hold one.
    mutating func beginActivity(
        _ app: String, mode name: String, at now: Instant, _ out: inout [LifecycleAction]
    ) throws(LifecycleError) {
        let index = try runningAppIndex(app, for: "begin an activity")
        let continuous = BackgroundMode.allCases.filter(\.isContinuous).map(\.rawValue)
        guard let mode = BackgroundMode(rawValue: name), mode.isContinuous else {
            throw LifecycleError(
                .invalid,
                "\"\(name)\" is not a kind of activity; an activity is one of \(continuous.map { "\"\($0)\"" }.joined(separator: ", "))."
            )
        }
        guard records[index].continuousModes.contains(mode) else {
            throw LifecycleError(
                .conflict,
                "App \"\(app)\" does not declare the background mode \"\(name)\" in background_modes, so it cannot begin an activity of that mode."
            )
        }
        switch records[index].state {
        case .suspended:
            throw LifecycleError(.conflict, "App \"\(app)\" is suspended, so it cannot begin an activity.")
        case .background where !records[index].holdsActivity:
            throw LifecycleError(
                .conflict,
                "App \"\(app)\" is in background without an activity, so it cannot begin one; an activity begins in the foreground, or while the app holds another."
            )
        default: break
        }
        if !records[index].holdsActivity, let cap = records[index].settings.background.maxActivities {
            let holders = records.indices.filter {
                $0 != index && records[$0].inPolicy && records[$0].isRunning && records[$0].terminating == nil
                    && records[$0].holdsActivity
            }
            if holders.count >= cap {
                let names = holders.map { "\"\(records[$0].name)\"" }.joined(separator: ", ")
                throw LifecycleError(
                    .conflict,
                    "App \"\(app)\" cannot begin an activity: \(names) already \(holders.count == 1 ? "holds" : "hold") one, the most the policy allows at once (max_activities = \(cap))."
                )
            }
        }
        let id = records[index].nextActivityNumber ?? 1
        records[index].nextActivityNumber = id + 1
        records[index].activities.append(AppRecord.OpenActivity(id: id, mode: mode))
        decide(index, "Began activity \(id) (\(mode.rawValue)).", at: now, &out)
        out.append(.reply(.activityBegun(id: id)))
    }

    /// `end-activity ID`: the last activity ended in background gives the app a fresh
    /// background session, as if it had just left the foreground: a task budget for its open
    /// tasks, or the background grace.
    mutating func endActivity(
        _ app: String, activityID: Int, at now: Instant, _ out: inout [LifecycleAction]
    ) throws(LifecycleError) {
        let index = try runningAppIndex(app, for: "end an activity")
        guard let position = records[index].activities.firstIndex(where: { $0.id == activityID }) else {
            throw LifecycleError(.notFound, "App \"\(app)\" holds no activity with id \(activityID).")
        }
        let ended = records[index].activities.remove(at: position)
        decide(index, "Ended activity \(ended.id) (\(ended.mode.rawValue)).", at: now, &out)
        guard !records[index].holdsActivity, records[index].state == .background else { return }
        activitiesEndedInBackground(index, at: now, &out)
    }

    /// The app's activities ran unattended — in background, the person not opening the app — for
    /// the policy's `activity_limit`: they are ended, the app is told, and it is in background
    /// without an activity, which it cannot begin again until the person opens it.
    mutating func activityLimitFired(_ index: Int, at now: Instant, _ out: inout [LifecycleAction]) {
        guard records[index].state == .background, records[index].terminating == nil, records[index].holdsActivity,
            let limit = records[index].settings.background.activityLimit
        else { return }
        let ended = records[index].activities
        records[index].activities = []
        let names = ended.map { "\($0.id) (\($0.mode.rawValue))" }.joined(separator: ", ")
        decide(
            index,
            "Ended \(ended.count == 1 ? "activity" : "activities") \(names): unattended in background for \(DurationFormat.string(limit)), the policy's activity_limit.",
            at: now, &out)
        out.append(
            .deliver(app: records[index].name, message: .activitiesEnded(activityIDs: ended.map(\.id), after: limit)))
        activitiesEndedInBackground(index, at: now, &out)
    }

    /// A reloaded policy no longer declares the mode of some of the app's activities: they end,
    /// as if the app had ended them.
    mutating func endUndeclaredActivities(_ index: Int, at now: Instant, _ out: inout [LifecycleAction]) {
        guard records[index].holdsActivity, records[index].terminating == nil else { return }
        let modes = records[index].continuousModes
        let undeclared = records[index].activities.filter { !modes.contains($0.mode) }
        guard !undeclared.isEmpty else { return }
        records[index].activities.removeAll { !modes.contains($0.mode) }
        let names = undeclared.map { "\($0.id) (\($0.mode.rawValue))" }.joined(separator: ", ")
        decide(
            index, "Ended activity \(names): the reloaded policy no longer declares its background mode.", at: now,
            &out)
        if !records[index].holdsActivity && records[index].state == .background {
            activitiesEndedInBackground(index, at: now, &out)
        }
    }

    /// The app holds no more activity in background: the background class, its band, a fresh
    /// task budget and whatever keeps it awake next, or the grace.
    mutating func activitiesEndedInBackground(_ index: Int, at now: Instant, _ out: inout [LifecycleAction]) {
        cancel(index, .activityLimit, &out)
        setCPUClass(index, .background, &out)
        updateScore(index, force: false, &out)
        startBudget(index, at: now)
        settleBackground(index, at: now, &out)
    }
}
