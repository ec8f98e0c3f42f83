import Foundation
import Testing
import WardenPolicy
import WardenScenario
import WardenSimulator
import WardenTesting

#if canImport(Glibc)
    import Glibc
#endif

/// `appwarden simulate` over one file and over many, as CI jobs and scripts run it.
@Suite(.requiresAppwardenExecutable)
struct SimulateCommandLineTests {
    /// A folder of scenario files written for one test, removed by `remove()`.
    struct Folder {
        let path = NSTemporaryDirectory() + "appwarden-simulate-\(getpid())-\(UUID().uuidString.prefix(8))"

        init() throws {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }

        /// Writes `text` to `name` in the folder; returns its path.
        func write(_ name: String, _ text: String) throws -> String {
            try text.write(toFile: path + "/" + name, atomically: true, encoding: .utf8)
            return path + "/" + name
        }

        func remove() {
            try? FileManager.default.removeItem(atPath: path)
        }
    }

    /// Mail then maps, both sent to background, then one critical event: maps, the larger, goes.
    static func killScenario(name: String, expecting killOrder: String) -> String {
        """
        [scenario]
        name = "\(name)"
        steps = ["0s open mail", "1s open maps", "10s home", "20s pressure critical"]

        [apps.mail]
        footprint = "150MiB"

        [apps.maps]
        footprint = "900MiB"

        [expect]
        kill_order = [\(killOrder)]
        """
    }

    static let invalidScenario = """
        [scenario]
        name = "misspelt"
        steps = ["0s opne mail"]

        [apps.mail]
        """

    /// A single file prints what it always printed: the verdict (and the diff) with `--quiet`,
    /// exit 0 or 1; an invalid file's problems on standard error, exit 2.
    @Test func aSingleFileKeepsItsOutputAndExitCodes() async throws {
        let folder = try Folder()
        defer { folder.remove() }
        let passing = try folder.write("pass.toml", Self.killScenario(name: "maps goes", expecting: #""maps""#))
        let failing = try folder.write("fail.toml", Self.killScenario(name: "mail goes", expecting: #""mail""#))
        let invalid = try folder.write("bad.toml", Self.invalidScenario)

        let pass = try await AppwardenCommandLine.run(["simulate", "--quiet", passing])
        #expect(pass.code == 0)
        #expect(pass.output == "PASS maps goes (1 expectation holds)\n")
        let fail = try await AppwardenCommandLine.run(["simulate", "--quiet", failing])
        #expect(fail.code == 1)
        #expect(
            fail.output == """
                FAIL mail goes: 1 of 1 expectations do not hold
                kill_order differs at index 0: expected "mail", got "maps".
                  expected: ["mail"]
                  actual:   ["maps"]

                """)
        let bad = try await AppwardenCommandLine.run(["simulate", invalid])
        #expect(bad.code == 2)
        #expect(bad.output.isEmpty)
        #expect(
            bad.error.hasPrefix("Scenario \"\(invalid)\", line 3: step 1 (\"0s opne mail\"): unknown verb \"opne\""))
    }

    /// Many files print a line for each in the order given — even when the first takes longest —
    /// with the diff of a failure under its line, then the counts, and exit 1 when one fails.
    @Test func manyFilesPrintALineEachInOrderAndTheCounts() async throws {
        let folder = try Folder()
        defer { folder.remove() }
        let steps = (0..<2000).map { #""\#($0 * 2)s open mail", "\#($0 * 2 + 1)s home""# }
        let long = try folder.write(
            "long.toml",
            """
            [scenario]
            name = "a long day"
            steps = [\(steps.joined(separator: ", "))]

            [apps.mail]
            footprint = "10MiB"
            """)
        let passing = try folder.write("pass.toml", Self.killScenario(name: "maps goes", expecting: #""maps""#))
        let failing = try folder.write("fail.toml", Self.killScenario(name: "mail goes", expecting: #""mail""#))

        let result = try await AppwardenCommandLine.run(["simulate", long, failing, passing])
        #expect(result.code == 1, "\(result.error)")
        #expect(
            result.output == """
                PASS \(long): a long day (no expectations)
                FAIL \(failing): mail goes (1 of 1 expectations do not hold)
                  kill_order differs at index 0: expected "mail", got "maps".
                    expected: ["mail"]
                    actual:   ["maps"]
                PASS \(passing): maps goes (1 expectation holds)
                3 scenarios: 2 passed, 1 failed.

                """)
        let allPass = try await AppwardenCommandLine.run(["simulate", passing, passing])
        #expect(allPass.code == 0)
        #expect(allPass.output.hasSuffix("\n2 scenarios: 2 passed, 0 failed.\n"))
    }

    /// An invalid file among many is named with its step, the others still run, and the exit
    /// status is 2 even when another file fails.
    @Test func anInvalidFileAmongManyExitsTwoNamingItsStep() async throws {
        let folder = try Folder()
        defer { folder.remove() }
        let invalid = try folder.write("bad.toml", Self.invalidScenario)
        let failing = try folder.write("fail.toml", Self.killScenario(name: "mail goes", expecting: #""mail""#))
        let missing = folder.path + "/absent.toml"

        let result = try await AppwardenCommandLine.run(["simulate", invalid, failing, missing])
        #expect(result.code == 2)
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.first == "INVALID \(invalid): 1 problem")
        #expect(
            lines.dropFirst().first?.hasPrefix("  Scenario \"\(invalid)\", line 3: step 1 (\"0s opne mail\")") == true)
        #expect(lines.contains("FAIL \(failing): mail goes (1 of 1 expectations do not hold)"))
        #expect(lines.contains("INVALID \(missing): 1 problem"))
        #expect(lines.last == "3 scenarios: 0 passed, 1 failed, 2 invalid.")
    }

    /// `--junit FILE` writes a report that an XML parser reads whole: a test case per scenario in
    /// the order given, with the class name, the file, a time, the diff as a failure's message
    /// (line breaks kept, quotes and angle brackets escaped) and an invalid file as an error.
    @Test func junitReportHasACasePerScenarioAndParses() async throws {
        let folder = try Folder()
        defer { folder.remove() }
        let passing = try folder.write("pass.toml", Self.killScenario(name: "maps goes", expecting: #""maps""#))
        let failing = try folder.write(
            "fail <&>.toml", Self.killScenario(name: #"mail <goes> & \"stays\""#, expecting: #""mail""#))
        let invalid = try folder.write("bad.toml", Self.invalidScenario)
        let report = folder.path + "/report.xml"

        let result = try await AppwardenCommandLine.run(["simulate", "--junit", report, passing, failing, invalid])
        #expect(result.code == 2)
        let parsed = try #require(JUnitReader.read(try Data(contentsOf: URL(fileURLWithPath: report))))
        #expect(parsed.suites == [["tests": "3", "failures": "1", "errors": "1"]])
        #expect(parsed.cases.map { $0["classname"] } == Array(repeating: "appwarden.simulate", count: 3))
        #expect(parsed.cases.map { $0["name"] } == [passing, failing, invalid])
        #expect(parsed.cases.allSatisfy { Double($0["time"] ?? "") != nil })
        let diff = """
            kill_order differs at index 0: expected "mail", got "maps".
              expected: ["mail"]
              actual:   ["maps"]
            """
        #expect(parsed.failures == [JUnitReader.Finding(testCase: 1, message: diff, text: diff)])
        #expect(parsed.errors.count == 1)
        #expect(parsed.errors.first?.testCase == 2)
        #expect(
            parsed.errors.first?.message.hasPrefix(#"Scenario "\#(invalid)", line 3: step 1 ("0s opne mail")"#) == true)
        #expect(parsed.output[1] == #"FAIL \#(failing): mail <goes> & "stays" (1 of 1 expectations do not hold)"#)

        let single = try await AppwardenCommandLine.run(["simulate", "--quiet", "--junit", report, passing])
        #expect(single.output == "PASS maps goes (1 expectation holds)\n")
        #expect(try #require(JUnitReader.read(try Data(contentsOf: URL(fileURLWithPath: report)))).cases.count == 1)
    }

    /// `--junit` with `--compare` is a usage error: a comparison checks no expectations.
    @Test func junitWithCompareIsRefused() async throws {
        let result = try await AppwardenCommandLine.run([
            "simulate", "--compare", "candidate.toml", "--junit", "report.xml", "day.toml",
        ])
        #expect(result.code == 2)
        #expect(result.error.contains("--junit reports the scenarios' expectations, which --compare does not check"))
    }

    /// `--compare` says how many cold launches (opens of an app the device had killed) each run
    /// had, in words, in JSON, and on a file's line among many when they differ.
    @Test func compareCountsTheColdLaunchesOfEachRun() async throws {
        let folder = try Folder()
        defer { folder.remove() }
        let day = try folder.write(
            "back.toml",
            """
            [scenario]
            name = "maps back after a kill"
            steps = ["0s open mail", "1s open maps", "10s home", "20s pressure critical", "30s open maps"]

            [apps.mail]
            footprint = "150MiB"

            [apps.maps]
            footprint = "900MiB"
            """)
        let candidate = try folder.write(
            "candidate.toml",
            "[apps.mail]\ncommand = \"/usr/bin/mail\"\n[apps.maps]\ncommand = \"/usr/bin/maps\"\nprotected = true\n")

        let text = try await AppwardenCommandLine.run(["simulate", "--compare", candidate, day])
        #expect(text.code == 0, "\(text.error)")
        #expect(
            text.output.contains(
                "Cold launches (opens of apps the device had killed): 1 under its own policy (maps), 0 under the candidate (none).\n"
            ))
        let json = try await AppwardenCommandLine.run(["simulate", "--compare", candidate, "--json", day])
        #expect(json.code == 0, "\(json.error)")
        #expect(json.output.contains(#""coldLaunches":["maps"]"#) || json.output.contains(#""coldLaunches": ["maps"]"#))
        #expect(
            json.output.contains(#""candidateColdLaunches":[]"#)
                || json.output.contains(#""candidateColdLaunches": []"#))
        let many = try await AppwardenCommandLine.run(["simulate", "--compare", candidate, day, day])
        #expect(many.output.contains("0 windows lost; cold launches 1 → 0.\n"))
    }

    /// `--compare` over many days prints a line per day and the totals of apps spared, apps killed
    /// instead and windows gained and lost, each the sum of the days' own comparisons.
    @Test func compareOverManyDaysPrintsALineEachAndTheTotals() async throws {
        let folder = try Folder()
        defer { folder.remove() }
        let killDay = try folder.write("kill.toml", Self.killScenario(name: "kill day", expecting: #""maps""#))
        let fetchDay = try folder.write(
            "fetch.toml",
            """
            [scenario]
            name = "fetch day"
            until = "1h"
            steps = ["0s open mail", "1s home"]

            [apps.mail]
            footprint = "150MiB"
            background_modes = ["fetch"]
            fetch_interval = "15m"

            [apps.maps]
            footprint = "900MiB"
            """)
        // Maps protected, and mail without background fetch.
        let candidate = try folder.write(
            "candidate.toml",
            """
            [apps.mail]
            command = "/usr/bin/mail"

            [apps.maps]
            command = "/usr/bin/maps"
            protected = true
            """)
        let policy = try PolicyLoader.load(path: candidate)
        let killComparison = ScenarioComparison(scenario: try ScenarioLoader.load(path: killDay), candidate: policy)
        let fetchComparison = ScenarioComparison(scenario: try ScenarioLoader.load(path: fetchDay), candidate: policy)
        let lost = fetchComparison.windowsLost
        #expect(lost > 0)
        #expect(killComparison.windowsLost == 0 && fetchComparison.windowsGained == 0)

        let result = try await AppwardenCommandLine.run([
            "simulate", "--compare", candidate, killDay, fetchDay, killDay,
        ])
        #expect(result.code == 0, "\(result.error)")
        #expect(
            result.output == """
                \(killDay): 1 app spared (maps), 1 app killed instead (mail), 0 windows gained, 0 windows lost.
                \(fetchDay): 0 apps spared, 0 apps killed instead, 0 windows gained, \(lost) windows lost.
                \(killDay): 1 app spared (maps), 1 app killed instead (mail), 0 windows gained, 0 windows lost.
                Over 3 files under "\(candidate)": 2 apps spared, 2 apps killed instead, 0 windows gained, \(lost) windows lost.

                """)

        let invalid = try folder.write("bad.toml", Self.invalidScenario)
        let withInvalid = try await AppwardenCommandLine.run(["simulate", "--compare", candidate, killDay, invalid])
        #expect(withInvalid.code == 2)
        #expect(withInvalid.output.contains("INVALID \(invalid): 1 problem\n  Scenario \"\(invalid)\", line 3"))
        #expect(
            withInvalid.output.hasSuffix("1 app killed instead, 0 windows gained, 0 windows lost; 1 file invalid.\n"))
    }
}
