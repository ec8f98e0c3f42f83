import Testing
import WardenCore

/// The memory watch's measurements as the core decides them, one call per measurement: which
/// apps a sample measures, which measurements are told, and the order of the events.
@Suite struct LifecycleMemorySampleTests {
    static let mib: Int64 = 1 << 20

    /// `mail` running in the foreground and `maps` suspended, on a 1 GiB device at a normal level.
    static func mailAndSuspendedMaps() throws -> Harness {
        var harness = Harness(Policy(apps: [AppPolicy(name: "mail"), AppPolicy(name: "maps")]))
        try harness.send(.open(app: "maps"), at: 1)
        try harness.send(.open(app: "mail"), at: 2)
        try harness.send(.memorySample(available: 900 * mib, total: 1024 * mib), at: 3)
        harness.advance(to: 60)
        return harness
    }

    /// A measurer that records the apps it was asked for and gives each `bytes`, none in swap.
    final class Measurer {
        var asked: [[String]] = []
        let bytes: Int64

        init(bytes: Int64) {
            self.bytes = bytes
        }

        func measure(_ apps: [String]) -> [String: AppMemoryMeasurement] {
            asked.append(apps)
            return Dictionary(
                uniqueKeysWithValues: apps.map { ($0, AppMemoryMeasurement(footprint: bytes, swapped: 0)) })
        }
    }

    /// A sample that makes or keeps the level critical measures the running apps (not the
    /// suspended ones) and puts their changed footprints before it; a sample that leaves the
    /// level normal measures nothing and is the only event.
    @Test func aCriticalSampleMeasuresTheRunningAppsFirst() throws {
        let harness = try Self.mailAndSuspendedMaps()
        #expect(harness.state("maps") == .suspended)
        let measurer = Measurer(bytes: 50 * Self.mib)
        let plenty = harness.core.sampleEvents(
            available: 800 * Self.mib, total: 1024 * Self.mib, swap: nil, measuring: measurer.measure)
        #expect(plenty == [.memorySample(available: 800 * Self.mib, total: 1024 * Self.mib)])
        #expect(measurer.asked.isEmpty)
        let short = harness.core.sampleEvents(
            available: 10 * Self.mib, total: 1024 * Self.mib, swap: nil, measuring: measurer.measure)
        #expect(
            short == [
                .footprint(app: "mail", bytes: 50 * Self.mib, swapped: 0, swappedInRAM: nil),
                .memorySample(available: 10 * Self.mib, total: 1024 * Self.mib),
            ])
        #expect(measurer.asked == [["mail"]])
    }

    /// The footprints of a sample come in the order of the apps' names, whatever order the
    /// measurer gives them in, and only the ones that changed.
    @Test func aSampleTellsTheChangedFootprintsByName() throws {
        var harness = Harness(Policy(apps: ["zoo", "mail", "atlas"].map { AppPolicy(name: $0) }))
        for (index, app) in ["zoo", "mail", "atlas"].enumerated() {
            try harness.send(.open(app: app), at: Double(index + 1))
            try harness.send(.footprint(app: app, bytes: 100 * Self.mib), at: Double(index + 1))
        }
        #expect(harness.core.runningApps(includingSuspended: false).count == 3)
        let events = harness.core.sampleEvents(available: 10 * Self.mib, total: 1024 * Self.mib, swap: nil) { apps in
            var measured: [String: AppMemoryMeasurement] = [:]
            for app in apps { measured[app] = AppMemoryMeasurement(footprint: 100 * Self.mib, swapped: 0) }
            measured["zoo"]?.footprint = 120 * Self.mib
            measured["atlas"]?.footprint = 90 * Self.mib
            return measured
        }
        #expect(
            events == [
                .footprint(app: "atlas", bytes: 90 * Self.mib, swapped: 0, swappedInRAM: nil),
                .footprint(app: "zoo", bytes: 120 * Self.mib, swapped: 0, swappedInRAM: nil),
                .memorySample(available: 10 * Self.mib, total: 1024 * Self.mib),
            ])
    }

    /// A measurement is told only when it changed enough: any change of the footprint, but a
    /// move of its part in swap, or of the RAM that part takes, only from a MiB on; an app the
    /// measurer passed over is not told.
    @Test func aMeasurementIsToldOnlyWhenItChangedEnough() throws {
        let mib = Self.mib
        var harness = Harness(Policy(apps: [AppPolicy(name: "mail")]))
        try harness.send(.open(app: "mail"), at: 1)
        try harness.send(.footprint(app: "mail", bytes: 100 * mib, swapped: 10 * mib, swappedInRAM: 5 * mib), at: 2)
        let core = harness.core
        func told(bytes: Int64 = 100 * mib, swapped: Int64 = 10 * mib, inRAM: Int64? = 5 * mib) -> [LifecycleEvent] {
            core.footprintEvents(of: ["mail"]) { _ in
                ["mail": AppMemoryMeasurement(footprint: bytes, swapped: swapped, swappedInRAM: inRAM)]
            }
        }
        #expect(Lifecycle.swappedChange == mib)
        #expect(told().isEmpty)
        #expect(told(swapped: 11 * mib - 1).isEmpty)
        #expect(told(swapped: 9 * mib + 1).isEmpty)
        #expect(told(inRAM: 6 * mib - 1).isEmpty)
        #expect(told(inRAM: nil).isEmpty)
        #expect(
            told(swapped: 11 * mib)
                == [.footprint(app: "mail", bytes: 100 * mib, swapped: 11 * mib, swappedInRAM: 5 * mib)])
        #expect(
            told(inRAM: 4 * mib) == [
                .footprint(app: "mail", bytes: 100 * mib, swapped: 10 * mib, swappedInRAM: 4 * mib)
            ])
        #expect(
            told(bytes: 100 * mib + 1)
                == [.footprint(app: "mail", bytes: 100 * mib + 1, swapped: 10 * mib, swappedInRAM: 5 * mib)])
        #expect(core.footprintEvents(of: ["mail"]) { _ in [:] }.isEmpty)
    }

    /// After a kill for memory the running apps are measured again, then the device, and the
    /// sample follows their changed footprints; when the device cannot be measured there is
    /// no sample. A sweep measures the running apps alone.
    @Test func theMeasurementAfterAKillMeasuresTheAppsThenTheDevice() throws {
        let harness = try Self.mailAndSuspendedMaps()
        var order: [String] = []
        let measurer = Measurer(bytes: 70 * Self.mib)
        let events = harness.core.eventsMeasuredAgain(
            measuring: { apps in
                order.append("apps")
                return measurer.measure(apps)
            },
            device: {
                order.append("device")
                return (available: 20 * Self.mib, total: 1024 * Self.mib, swap: nil)
            })
        #expect(order == ["apps", "device"])
        #expect(measurer.asked == [["mail"]])
        #expect(
            events == [
                .footprint(app: "mail", bytes: 70 * Self.mib, swapped: 0, swappedInRAM: nil),
                .memorySample(available: 20 * Self.mib, total: 1024 * Self.mib),
            ])
        let unmeasured = harness.core.eventsMeasuredAgain(measuring: measurer.measure, device: { nil })
        #expect(unmeasured == [.footprint(app: "mail", bytes: 70 * Self.mib, swapped: 0, swappedInRAM: nil)])
        #expect(
            harness.core.sweepEvents(measuring: measurer.measure) == [
                .footprint(app: "mail", bytes: 70 * Self.mib, swapped: 0, swappedInRAM: nil)
            ])
        #expect(measurer.asked == [["mail"], ["mail"], ["mail"]])
    }
}
