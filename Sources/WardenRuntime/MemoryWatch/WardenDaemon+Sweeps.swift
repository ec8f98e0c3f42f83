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
            await reconcileFreezer(includingSuspended: false)
        }
        for event in lifecycle.sweepEvents(measuring: { parts.memory.measurements(of: $0) }) {
            _ = await process(event)
        }
    }

    /// Finds groups frozen or thawed behind appwarden's back (a suspended app that runs, or a
    /// running app that is frozen) and tells the core, which freezes or thaws them again.
    /// Suspended apps are looked at only if `includingSuspended`, and then the next
    /// `options.suspendedChecksPerRound` of them. Not in a dry run, where suspended apps are never frozen.
    func reconcileFreezer(includingSuspended: Bool) async {
        guard let driver, !options.dryRun else { return }
        // Names read off the core's records in place, none looked up: the sweep runs every
        // second while an app runs, beside a thousand suspended ones.
        var checked = lifecycle.runningApps(includingSuspended: false)
        var suspended: [String] = []
        if includingSuspended {
            suspended = memoryWatch.suspendedRound(
                of: lifecycle.apps(in: .suspended), perRound: options.suspendedChecksPerRound)
            checked += suspended
        }
        for app in checked.sorted() {
            guard let group = processes.table.groups[app], let state = lifecycle.state(of: app),
                let frozen = try? await driver.isFrozen(group), frozen != (state == .suspended)
            else { continue }
            logger.warning("App \"\(app)\" was found \(frozen ? "frozen" : "thawed") while \(state.rawValue).")
            _ = await process(.observedFrozen(app: app, frozen: frozen))
        }
        // Where the device has swap, the kernel may push a frozen app out further than its
        // compression did: the suspended apps looked at are measured too, so that a wake's
        // cost (rule 4) counts what is in swap now.
        if includingSuspended, !suspended.isEmpty, parts.memory.swapFigures() != nil {
            for event in lifecycle.footprintEvents(of: suspended, measuring: { parts.memory.measurements(of: $0) }) {
                _ = await process(event)
            }
        }
    }
}
