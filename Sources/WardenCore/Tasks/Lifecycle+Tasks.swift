/// Background tasks and their budget (rules 2 and 3).
extension Lifecycle {
    /// `begin-task NAME`: allowed in the foreground and in background while budget is left.
    mutating func beginTask(
        _ app: String, name: String, at now: Instant, _ out: inout [LifecycleAction]
    ) throws(LifecycleError) {
        let index = try runningAppIndex(app, for: "begin a background task")
        // Fields are read one by one: a copy of the whole record would make the append below copy `tasks`.
        let state = records[index].state
        if state == .suspended {
            throw LifecycleError(.conflict, "App \"\(app)\" is suspended, so it cannot begin a background task.")
        }
        let remaining =
            state == .inactive || state == .active || records[index].holdsActivity ? nil : budgetLeft(index, at: now)
        if let remaining, remaining <= .zero {
            throw LifecycleError(
                .conflict, "App \"\(app)\" has spent its background-task budget, so it cannot begin task \"\(name)\".")
        }
        let id = records[index].nextTaskID
        records[index].nextTaskID += 1
        records[index].tasks.append(AppRecord.OpenTask(id: id, name: name))
        out.append(.reply(.taskBegun(id: id, remaining: remaining)))
        if state == .background {
            settleBackground(index, at: now, &out)
            updateScore(index, force: false, &out)
        }
    }

    /// `end-task ID`: the last task ended in background suspends the app at once.
    mutating func endTask(_ app: String, taskID: Int, at now: Instant, _ out: inout [LifecycleAction])
        throws(LifecycleError)
    {
        let index = try runningAppIndex(app, for: "end a background task")
        guard let position = records[index].tasks.firstIndex(where: { $0.id == taskID }) else {
            throw LifecycleError(.notFound, "App \"\(app)\" has no open background task with id \(taskID).")
        }
        records[index].tasks.remove(at: position)
        guard records[index].tasks.isEmpty else { return }
        cancel(index, .taskExpirationWarning, &out)
        cancel(index, .taskBudget, &out)
        if records[index].state == .background {
            updateScore(index, force: false, &out)
            if records[index].hasOpenWindow {
                settleBackground(index, at: now, &out)
            } else {
                suspendIfIdle(index, because: "its last background task ended", at: now, &out)
            }
        }
    }

    /// `time-remaining`: nil in the foreground and while an activity is held (no budget runs
    /// then, rule 14), otherwise what is left of the budget.
    mutating func timeRemaining(_ app: String, at now: Instant, _ out: inout [LifecycleAction]) throws(LifecycleError) {
        let index = try runningAppIndex(app, for: "ask for its remaining background time")
        let record = records[index]
        if record.state == .suspended {
            throw LifecycleError(.conflict, "App \"\(app)\" is suspended, so it cannot ask for its remaining time.")
        }
        out.append(
            .reply(.timeRemaining(record.isInForeground || record.holdsActivity ? nil : record.budgetLeft(at: now))))
    }

    /// What is left of the app's task budget at `now` (`AppRecord.budgetLeft`), read field by field.
    func budgetLeft(_ index: Int, at now: Instant) -> Duration? {
        AppRecord.budgetLeft(
            session: records[index].budgetSession, remaining: records[index].budgetRemaining,
            mark: records[index].budgetMark, at: now)
    }

    /// Arms the expiration call and the end of the budget, if the clock is running, no activity
    /// is held (rule 14) and they are not armed yet.
    mutating func armBudgetTimers(_ index: Int, at now: Instant, _ out: inout [LifecycleAction]) {
        guard records[index].budgetSession, let mark = records[index].budgetMark, !records[index].holdsActivity
        else { return }
        let end = mark + records[index].budgetRemaining
        if !isArmed(index, .taskExpirationWarning) {
            let warning = end - records[index].settings.background.expirationWarning
            arm(index, .taskExpirationWarning, at: max(warning, now), &out)
        }
        if !isArmed(index, .taskBudget) {
            arm(index, .taskBudget, at: max(end, now), &out)
        }
    }

    /// The expiration call: every open task is told the budget is about to end.
    mutating func expirationWarningFired(_ index: Int, at now: Instant, _ out: inout [LifecycleAction]) {
        let record = records[index]
        guard record.state == .background, !record.tasks.isEmpty, !record.holdsActivity else { return }
        let remaining = record.budgetLeft(at: now) ?? .zero
        out.append(
            .deliver(
                app: record.name, message: .expirationWarning(taskIDs: record.tasks.map(\.id), remaining: remaining)))
    }

    /// The budget is spent: an app with a task still open is terminated.
    mutating func taskBudgetFired(_ index: Int, at now: Instant, _ out: inout [LifecycleAction]) {
        let record = records[index]
        guard record.state == .background, !record.tasks.isEmpty, !record.holdsActivity else { return }
        let names = record.tasks.map { "\($0.id) (\($0.name))" }.joined(separator: ", ")
        decide(index, "Background-task budget spent with tasks still open: \(names).", at: now, &out)
        terminate(index, reason: .backgroundTaskExpired, because: "background-task budget spent", at: now, &out)
    }
}
