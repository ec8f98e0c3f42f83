/// Accessory wakes (rule 14): a device an app declares in `accessories` was added, removed or
/// changed; the app is woken in background for a window like a push's.
extension Lifecycle {
    /// A device event: each app in the policy whose `accessories` match the device's
    /// properties gets the event, in policy order.
    mutating func accessoryEvent(
        _ action: String, properties: [String: String], at now: Instant, _ out: inout [LifecycleAction]
    ) {
        for index in records.indices where records[index].inPolicy {
            guard records[index].accessories.contains(where: { $0.matches(properties) }) else { continue }
            deliverAccessory(index, action: action, properties: properties, at: now, &out)
        }
    }

    /// Hands one device event to a matching app: a foreground app just gets it; an app with an
    /// accessory window open gets it in that window, which starts again (its stall counted anew);
    /// any other is woken — launched passively (`accessory`) or thawed — for `push.window`, under
    /// the push's rules: not after a force-quit or a system termination, not when memory cannot
    /// take the wake, at most `push.max_per_hour` wakes (pushes and accessories together). An
    /// event that may not wake the app is dropped: a device event is news of now, not worth a
    /// later wake. The window counts only the time the app could run (`startStallCount`), as a
    /// fetch or push window does.
    mutating func deliverAccessory(
        _ index: Int, action: String, properties: [String: String], at now: Instant, _ out: inout [LifecycleAction]
    ) {
        let name = records[index].name
        let device = Self.deviceName(properties)
        if records[index].isInForeground && records[index].terminating == nil {
            out.append(
                .deliver(app: name, message: .accessoryEvent(action: action, properties: properties, window: .zero)))
            return
        }
        if let block = records[index].wakeBlock {
            decide(index, "Accessory event \(action) of \(device) dropped: \(block.pushSentence).", at: now, &out)
            return
        }
        if records[index].terminating != nil {
            decide(index, "Accessory event \(action) of \(device) dropped: the app is being stopped.", at: now, &out)
            return
        }
        let window = BackgroundWindow.accessory.length(records[index].settings)
        let event = AppRecord.AccessoryEvent(action: action, device: Self.deviceDescription(properties))
        if records[index].accessoryWindowOpen {
            decide(
                index,
                "Accessory event \(action) of \(device) received in the open accessory window, which starts again (\(DurationFormat.string(window))).",
                at: now, &out)
            records[index].accessoryWindowEvent = event
            out.append(
                .deliver(app: name, message: .accessoryEvent(action: action, properties: properties, window: window)))
            arm(index, .accessoryWindow, at: now + window, &out)
            startStallCount(index, .accessory, &out)
            return
        }
        if let why = pushWakeRefused(index) {
            decide(index, "\(Self.accessoryDroppedPrefix)\(why).", at: now, &out)
            return
        }
        if let next = pushRouter.takeWakeSlot(app: name, now: now, settings: records[index].settings.push) {
            decide(
                index,
                "Accessory event \(action) of \(device) dropped: \(records[index].settings.push.maxPerHour) wakes this hour; the next slot frees in \(DurationFormat.roundedUp(next - now)).",
                at: now, &out)
            return
        }
        chargeWake(index)
        let what = "accessory event \(action) of \(device)"
        switch records[index].state {
        case .notRunning:
            launchPassively(index, reason: .accessory, because: "launched in the background for \(what)", at: now, &out)
        case .suspended:
            thaw(index, because: "woken for \(what)", at: now, &out)
        case .background:
            cancel(index, .backgroundGrace, &out)
            decide(
                index,
                "Kept awake in background for \(what), for an accessory window of \(DurationFormat.string(window)).",
                at: now, &out)
        case .inactive, .active:
            break
        }
        records[index].accessoryWindowOpen = true
        records[index].accessoryWindowEvent = event
        out.append(
            .deliver(app: name, message: .accessoryEvent(action: action, properties: properties, window: window)))
        arm(index, .accessoryWindow, at: now + window, &out)
        startStallCount(index, .accessory, &out)
        updateScore(index, force: false, &out)
    }

    /// How an accessory event dropped for the memory its wake would bring back is journaled,
    /// before the reason.
    static let accessoryDroppedPrefix = "Accessory event dropped for memory: "

    /// `complete-accessory`: closes the accessory window; the app is suspended at once if
    /// nothing else keeps it awake.
    mutating func completeAccessory(_ app: String, at now: Instant, _ out: inout [LifecycleAction])
        throws(LifecycleError)
    {
        let index = try runningAppIndex(app, for: "complete an accessory event")
        guard records[index].accessoryWindowOpen else {
            throw LifecycleError(
                .conflict, "App \"\(app)\" has no accessory window open, so it cannot complete an accessory event.")
        }
        records[index].accessoryWindowOpen = false
        cancel(index, .accessoryWindow, &out)
        closeWindow(index, because: "its accessory event completed", at: now, &out)
    }

    /// The accessory window reached its end: where the app's stall is counted, it is measured
    /// first (`countStall`), as in a fetch or push window; otherwise the window ends.
    mutating func accessoryWindowFired(_ index: Int, at now: Instant, _ out: inout [LifecycleAction]) {
        guard records[index].accessoryWindowOpen else { return }
        if awaitStall(index, .accessory, at: now, &out) { return }
        accessoryWindowEnded(index, at: now, &out)
    }

    /// The accessory window ended without `complete-accessory`: the app is terminated
    /// (`accessoryTimeout`); an app the user opened meanwhile only has its window closed.
    mutating func accessoryWindowEnded(_ index: Int, at now: Instant, _ out: inout [LifecycleAction]) {
        records[index].accessoryWindowOpen = false
        if records[index].isInForeground {
            decide(index, "Accessory window ended without completion while in the foreground.", at: now, &out)
        } else {
            terminate(
                index, reason: .accessoryTimeout, because: "accessory window ended without completion", at: now, &out)
        }
    }

    /// How a journal sentence names a device: "device " and its description, or "a device".
    static func deviceName(_ properties: [String: String]) -> String {
        deviceDescription(properties).map { "device " + $0 } ?? "a device"
    }

    /// A device in a few words, from what the event carries: its subsystem and ids where udev
    /// gave them (`usb 1234:5678`), else its path; nil when the event has none of them.
    static func deviceDescription(_ properties: [String: String]) -> String? {
        var parts: [String] = []
        if let subsystem = properties["SUBSYSTEM"] { parts.append(subsystem) }
        if let vendor = properties["ID_VENDOR_ID"], let product = properties["ID_MODEL_ID"] {
            parts.append("\(vendor):\(product)")
        } else if let path = properties["DEVPATH"] {
            parts.append(path)
        }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }
}
