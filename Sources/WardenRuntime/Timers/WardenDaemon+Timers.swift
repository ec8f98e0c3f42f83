import WardenCore

/// The core's timers and the alarm: one deadline queue, and one alarm set to the earliest of its
/// deadlines and the memory watch's.
extension WardenDaemon {
    /// The alarm went off: every timer due by now fires, one event at a time in (deadline,
    /// arming) order, timers armed meanwhile and due by now included; then the memory watch
    /// runs if it is due.
    func wake() async {
        guard phase.isRunning else { return }
        while let timer = timers.popFirstDue(through: clock.now()) {
            _ = await process(.timerFired(timer))
        }
        await memoryWatchIfDue()
    }

    /// Sets the alarm to the earliest deadline: the next timer's or the memory watch's.
    func rearmAlarm() {
        let next = [timers.nextDeadline, memoryWatch.plan.due].compactMap { $0?.sinceOrigin }.min()
        parts.alarm.set(next)
    }
}
