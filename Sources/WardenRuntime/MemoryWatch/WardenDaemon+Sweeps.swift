import Logging
import WardenCgroup
import WardenCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The sweeps of the running apps: their footprints and the part of them in swap (which the core
/// holds against their limits, their `memory_high` and their fair share, and weighs wakes by),
/// groups frozen or thawed behind appwarden's back, and re-adopted processes the launcher could
/// not watch.
extension WardenDaemon {
    /// One sweep of the running apps, every `sampleInterval` while the device is not quiet;
    /// every `freezerCheckSweeps`th also looks for running apps frozen behind appwarden's back.
    func sweepApps(checkingFreezer: Bool) async {
        guard phase.isRunning else { return }
        for exit in await processes.unwatchedProcessesEnded() { await processEnded(exit) }
        if checkingFreezer {
            // Names read off the core's records in place, none looked up: the sweep runs every
            // second while an app runs, beside a thousand suspended ones.
            await reconcileFreezer(of: lifecycle.runningApps(includingSuspended: false))
        }
        for event in lifecycle.sweepEvents(measuring: { parts.memory.measurements(of: $0) }) {
            _ = await process(event)
        }
    }

    /// Looks at the next `options.suspendedChecksPerRound` suspended apps: their groups' freezer
    /// state if `checkingFreezer` (with the running apps'), and, where the device has swap, their
    /// footprints. Not in a dry run, where suspended apps are never frozen.
    func checkSuspended(checkingFreezer: Bool) async {
        guard driver != nil, !options.dryRun else { return }
        let suspended = memoryWatch.suspendedRound(
            of: lifecycle.apps(in: .suspended), perRound: options.suspendedChecksPerRound)
        if checkingFreezer {
            await reconcileFreezer(of: lifecycle.runningApps(includingSuspended: false) + suspended)
        }
        // Where the device has swap, the kernel may push a frozen app out further than its
        // compression did: the suspended apps looked at are measured too, so that a wake's
        // cost (rule 4) counts what is in swap now.
        if !suspended.isEmpty, parts.memory.swapFigures() != nil {
            for event in lifecycle.footprintEvents(of: suspended, measuring: { parts.memory.measurements(of: $0) }) {
                _ = await process(event)
            }
        }
    }

    /// Finds which of `apps`' groups were frozen or thawed behind appwarden's back (a suspended
    /// app that runs, or a running app that is frozen) and tells the core, which freezes or thaws
    /// them again. Also what a notice of the kernel's (`FreezeNotices`) that a group was frozen
    /// or thawed, by appwarden or behind its back, runs: the state is read when the job runs, so
    /// that a notice late behind a change made since is weighed against what is true now.
    func reconcileFreezer(of apps: [String]) async {
        guard phase.isRunning, let driver, !options.dryRun else { return }
        for app in apps.sorted() {
            guard let group = processes.table.groups[app], let state = lifecycle.state(of: app), state != .notRunning,
                let frozen = try? await driver.isFrozen(group), frozen != (state == .suspended)
            else { continue }
            logger.warning("App \"\(app)\" was found \(frozen ? "frozen" : "thawed") while \(state.rawValue).")
            _ = await process(.observedFrozen(app: app, frozen: frozen))
        }
    }
}
