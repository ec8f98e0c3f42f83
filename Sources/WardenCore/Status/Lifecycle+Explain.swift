/// What `explain` says about an app's future: when it runs next and what keeps it from
/// running, from the same facts the rules read (rules 4, 5 and 9).
extension Lifecycle {
    /// Sentences on the app's next opportunities to run and its open tasks at `now`; nil for
    /// an app the policy does not declare.
    public func outlook(of app: String, at now: Instant) -> [String]? {
        guard let index = indexByName[app] else { return nil }
        let record = records[index]
        var sentences: [String] = []
        if !record.inPolicy {
            sentences.append("It is no longer declared in the policy.")
            return sentences
        }
        for activity in record.activities {
            let keeps =
                record.state == .background
                ? ": it runs in background with no task budget and is not suspended until it ends"
                : ": in background it will run with no task budget and not be suspended until it ends"
            sentences.append("It holds activity \(activity.id) (\(activity.mode.rawValue))\(keeps).")
        }
        if let end = record.timers[.activityLimit], let limit = record.settings.background.activityLimit {
            sentences.append(
                "Its activities end in \(DurationFormat.roundedUp(max(end - now, .zero))) unless the person opens it (activity_limit = \(DurationFormat.string(limit)) unattended)."
            )
        }
        for task in record.tasks {
            let left = record.budgetLeft(at: now).map { "\(DurationFormat.roundedUp($0)) of budget left" }
            sentences.append(
                "Background task \(task.id) (\"\(task.name)\") is open"
                    + (left.map { ", \($0)." } ?? ", no budget runs in the foreground."))
        }
        sentences += windowOutlook(record, at: now)
        sentences += cpuOutlook(index)
        sentences += fetchOutlook(record, at: now)
        sentences += pushOutlook(record, at: now)
        sentences += accessoryOutlook(record)
        return sentences
    }

    /// The windows open (rules 4, 5 and 14): what each is for and how long the app has left to
    /// complete it.
    private func windowOutlook(_ record: AppRecord, at now: Instant) -> [String] {
        guard record.hasOpenWindow else { return [] }
        return BackgroundWindow.allCases.filter { $0.isOpen(in: record) }.map { window in
            var what = "\(window == .accessory ? "An" : "A") \(window.rawValue) window is open"
            if window == .accessory, let event = record.accessoryWindowEvent {
                what += " for accessory event \(event.action) of \(event.device.map { "device " + $0 } ?? "a device")"
            }
            guard let end = record.timers[window.timer] else { return what + "." }
            return
                "\(what): the app has \(DurationFormat.roundedUp(max(.zero, end - now))) left to call \(window.completion)."
        }
    }

    /// The app's CPU class and, in background, where it stands against its CPU budget (rule 13).
    private func cpuOutlook(_ index: Int) -> [String] {
        let record = records[index]
        guard let cpuClass = cpuClass(of: index), record.state != .suspended else { return [] }
        let settings = cpuSettings(of: index)
        let control = settings.control(for: cpuClass)
        let cap = control.maxPercent.map { ", capped at \($0)% of a CPU" } ?? ""
        let io = control.ioWeight.map { ", I/O weight \($0)" } ?? ""
        var sentences = ["It runs in the \(cpuClass) CPU class (weight \(control.weight)\(cap)\(io))."]
        guard cpuClass != .foreground, let limit = settings.backgroundLimitPercent else { return sentences }
        let window = DurationFormat.string(settings.backgroundLimitWindow)
        if let percent = record.cpuPercent {
            let warned = record.cpuStrikes > 0 ? ", and was warned: another such window terminates it" : ""
            sentences.append(
                "It used \(percent)% of a CPU over its last \(window) in background, against a budget of \(limit)%\(warned)."
            )
        } else {
            sentences.append(
                "Its CPU use is weighed against a budget of \(limit)% of a CPU over each \(window) in background.")
        }
        return sentences
    }

    private func fetchOutlook(_ record: AppRecord, at now: Instant) -> [String] {
        guard record.hasFetchMode else {
            return ["It gets no background fetches: its policy does not list the \"fetch\" background mode."]
        }
        guard record.backgroundRefresh else {
            return ["It gets no background fetches: background refresh is off for it (background_refresh = false)."]
        }
        if let block = record.wakeBlock {
            return [Self.wakeBlockSentence(block)]
        }
        guard
            let interval = fetchScheduler.effectiveInterval(
                app: record.name, requested: record.requestedFetchInterval, settings: record.settings.fetch)
        else {
            return ["It gets no background fetches: its fetch interval is \"never\"."]
        }
        let factor = fetchScheduler.stretchFactor(app: record.name)
        let requested =
            switch record.requestedFetchInterval {
            case .every(let duration): DurationFormat.string(duration)
            case .minimum, .never: "\(DurationFormat.string(record.settings.fetch.minimumInterval)) (minimum)"
            }
        let stretch =
            factor == 1
            ? "its interval of \(requested)"
            : "its interval of \(requested) stretched ×\(Self.factorText(factor)) by the adaptive scheduler to \(DurationFormat.string(interval))"
        guard let wake = record.timers[.fetchWake] else {
            return ["No background fetch is planned yet (\(stretch))."]
        }
        return ["Next background fetch in \(DurationFormat.roundedUp(wake - now)), after \(stretch)."]
    }

    private func pushOutlook(_ record: AppRecord, at now: Instant) -> [String] {
        var sentences: [String] = []
        if !record.hasRemoteNotificationMode {
            sentences.append(
                "Silent pushes do not wake it: its policy does not list the \"remote-notification\" background mode.")
        } else if let block = record.wakeBlock, !(record.hasFetchMode && record.backgroundRefresh) {
            // The fetch outlook already says it when the app would otherwise get fetches.
            sentences.append(Self.wakeBlockSentence(block))
        }
        if let held = pushRouter.coalescedPush(app: record.name) {
            let push = "A push\(held.id.map { " (\"\($0)\")" } ?? "")"
            let slot = pushRouter.nextSlot(app: record.name, now: now, settings: record.settings.push)
            let retry = record.timers[.pushSlot].map { "in \(DurationFormat.roundedUp(max(.zero, $0 - now)))" }
            if record.wakeBlock != nil || record.terminating != nil {
                sentences.append("\(push) is kept for the app's next launch.")
            } else if let index = indexByName[record.name], let why = pushWakeRefused(index) {
                sentences.append("\(push) is held for memory: \(why); it is tried again \(retry ?? "at the next try").")
            } else if let slot, slot > now {
                sentences.append(
                    "\(push) is held by the push throttle (\(record.settings.push.maxPerHour) wakes an hour); its next slot is in \(DurationFormat.roundedUp(slot - now))."
                )
            } else {
                sentences.append(
                    "\(push) is held; a slot is free and memory can take its wake, so it is delivered \(retry ?? "at the next try")."
                )
            }
        }
        if let kept = pushRouter.pendingLaunchPush(app: record.name) {
            sentences.append("A push\(kept.id.map { " (\"\($0)\")" } ?? "") is kept for the app's next launch.")
        }
        return sentences
    }

    /// For an app that accessories wake, the block that keeps them from waking it, where the
    /// fetch and push sentences do not already say it.
    private func accessoryOutlook(_ record: AppRecord) -> [String] {
        guard !record.accessories.isEmpty, let block = record.wakeBlock,
            !(record.hasFetchMode && record.backgroundRefresh), !record.hasRemoteNotificationMode
        else { return [] }
        return [Self.wakeBlockSentence(block)]
    }

    private static func wakeBlockSentence(_ block: WakeBlock) -> String {
        switch block {
        case .forceQuit:
            "Fetch, push and accessory wakes leave it alone until the user opens it: the app was force-quit."
        case .systemTermination(let reason):
            "Fetch, push and accessory wakes leave it alone until the user opens it: the system terminated it (\(reason.rawValue)); [background] wake_after_system_termination = true would wake it."
        }
    }

    private static func factorText(_ factor: Double) -> String {
        let hundredths = Int((factor * 100).rounded())
        let fraction = hundredths % 100
        guard fraction != 0 else { return "\(hundredths / 100)" }
        if fraction % 10 == 0 { return "\(hundredths / 100).\(fraction / 10)" }
        return "\(hundredths / 100)." + (fraction < 10 ? "0\(fraction)" : "\(fraction)")
    }
}
