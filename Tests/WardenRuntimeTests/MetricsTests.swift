import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing
import WardenAPI
import WardenCore
import WardenPolicy
import WardenRuntime
import WardenTesting

/// The daemon's Prometheus metrics, scraped with a real HTTP client over TCP and over the control
/// socket from a daemon in virtual time, and checked to move when apps do.
@Suite struct MetricsTests {
    static let mib: Int64 = 1 << 20

    static let policy = """
        [apps.mail]
        command = "/bin/mail"
        [apps.maps]
        command = "/bin/maps"
        protected = true
        """

    /// One scrape, parsed: each sample by its name and labels, as `name{key="value",…}` with the
    /// labels sorted; and the `# TYPE` of each family.
    struct Scrape {
        var samples: [String: Double] = [:]
        var types: [String: String] = [:]

        init(parsing text: String) throws {
            for line in text.split(separator: "\n") {
                if line.hasPrefix("# TYPE ") {
                    let parts = line.split(separator: " ")
                    if parts.count == 4 { types[String(parts[2])] = String(parts[3]) }
                    continue
                }
                if line.hasPrefix("#") { continue }
                guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...])
                else {
                    throw HarnessError(message: "Not a sample line: \(line)")
                }
                let series = line[..<space]
                guard let brace = series.firstIndex(of: "{") else {
                    samples[String(series)] = value
                    continue
                }
                let name = series[..<brace]
                let inner = series[series.index(after: brace)..<series.index(before: series.endIndex)]
                let labels = try Self.labels(String(inner)).sorted { $0.0 < $1.0 }
                samples["\(name){\(labels.map { "\($0.0)=\"\($0.1)\"" }.joined(separator: ","))}"] = value
            }
        }

        /// `key="value"` pairs separated by commas; values may hold commas and escaped quotes.
        static func labels(_ text: String) throws -> [(String, String)] {
            var result: [(String, String)] = []
            var rest = Substring(text)
            while !rest.isEmpty {
                guard let equals = rest.firstIndex(of: "="), rest[rest.index(after: equals)] == "\"" else {
                    throw HarnessError(message: "Malformed labels: \(text)")
                }
                let key = String(rest[..<equals])
                var index = rest.index(equals, offsetBy: 2)
                var value = ""
                while index < rest.endIndex && rest[index] != "\"" {
                    if rest[index] == "\\" { index = rest.index(after: index) }
                    value.append(rest[index])
                    index = rest.index(after: index)
                }
                result.append((key, value))
                rest = rest[rest.index(after: index)...]
                if rest.first == "," { rest = rest.dropFirst() }
            }
            return result
        }

        subscript(_ series: String) -> Double? { samples[series] }
    }

    /// Runs a TCP metrics listener for `daemon` on a free loopback port while `body` runs.
    static func withListener(
        for daemon: WardenDaemon, _ body: (_ port: Int) async throws -> Void
    ) async throws {
        let (ports, signal) = AsyncStream.makeStream(of: Int.self)
        let server = MetricsServer(
            host: "127.0.0.1", port: 0, logger: quietLogger,
            exposition: { try await daemon.control.metricsExposition() },
            onListening: { signal.yield($0) })
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run() }
            var port = 0
            for await bound in ports {
                port = bound
                break
            }
            do {
                try await body(port)
            } catch {
                group.cancelAll()
                throw error
            }
            group.cancelAll()
        }
    }

    static func get(_ url: String) async throws -> (status: Int, contentType: String?, body: String) {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 22)
        return (Int(response.status.code), response.headers.first(name: "Content-Type"), String(buffer: body))
    }

    /// Over TCP: the state gauge follows a launch, and a memory kill in virtual time moves the
    /// kill and termination counters and the pressure→death latency histogram; the pressure
    /// level, memory and thresholds are those of the device; other paths are not served.
    @Test func metricsOverTCPFollowALaunchAndAMemoryKill() async throws {
        let bed = await WardenTestBed.start(policy: try PolicyLoader.parse(Self.policy, file: "metrics.toml"))
        defer { bed.removeStateDirectory() }
        bed.driver.setDeviceMemory(1024 * Self.mib)
        try await Self.withListener(for: bed.daemon) { port in
            let url = "http://127.0.0.1:\(port)/metrics"
            let first = try await Self.get(url)
            #expect(first.status == 200)
            #expect(first.contentType?.hasPrefix("text/plain; version=0.0.4") == true)
            var scrape = try Scrape(parsing: first.body)
            #expect(scrape.types["appwarden_apps"] == "gauge")
            #expect(scrape.types["appwarden_memory_kills_total"] == "counter")
            #expect(scrape.types["appwarden_memory_kill_latency_seconds"] == "histogram")
            #expect(scrape[#"appwarden_apps{state="notRunning"}"#] == 2)
            #expect(scrape[#"appwarden_apps{state="active"}"#] == 0)
            #expect(scrape["appwarden_memory_kills_total"] == 0)
            #expect(scrape["appwarden_memory_kill_latency_seconds_count"] == 0)
            #expect(scrape[#"appwarden_terminations_total{reason="memoryPressure"}"#] == 0)

            _ = try await bed.daemon.perform(.open(app: "mail"))
            bed.driver.setFootprint(300 * Self.mib, of: "mail")
            _ = try await bed.daemon.perform(.footprint(app: "mail", bytes: 300 * Self.mib))
            await bed.settle()
            scrape = try Scrape(parsing: try await Self.get(url).body)
            #expect(scrape[#"appwarden_apps{state="active"}"#] == 1)
            #expect(scrape[#"appwarden_apps{state="notRunning"}"#] == 1)
            #expect(scrape[#"appwarden_app_footprint_bytes{app="mail"}"#] == Double(300 * Self.mib))
            #expect(scrape[#"appwarden_app_band{app="mail"}"#] == Double(KillBand.foreground.rawValue))
            #expect(scrape[#"appwarden_app_cpu_class{app="mail"}"#] == 0)
            #expect(scrape[#"appwarden_terminations_total{reason="cpuLimit"}"#] == 0)
            #expect(scrape[#"appwarden_app_band{app="maps"}"#] == nil)
            #expect(scrape[#"appwarden_app_footprint_bytes{app="maps"}"#] == nil)
            #expect(scrape["appwarden_memory_available_bytes"] == Double(724 * Self.mib))
            #expect(scrape["appwarden_memory_total_bytes"] == Double(1024 * Self.mib))
            #expect(scrape[#"appwarden_memory_threshold_bytes{threshold="critical_enter"}"#] == 53_687_091)

            _ = try await bed.daemon.perform(.open(app: "maps"))
            await bed.advance(by: .seconds(6))
            #expect(await bed.control.app(named: "mail")?.state == .suspended)
            scrape = try Scrape(parsing: try await Self.get(url).body)
            #expect(scrape[#"appwarden_app_cpu_class{app="mail"}"#] == 1)
            #expect(scrape[#"appwarden_app_cpu_class{app="maps"}"#] == 0)
            // The device fills up: mail (suspended) is the victim, maps is protected.
            // After the kill the device still has only 24 MiB free, so the level stays critical.
            bed.driver.setDeviceMemory(1024 * Self.mib, reserved: 1000 * Self.mib)
            _ = try await bed.daemon.perform(.memorySample(available: 24 * Self.mib, total: 1024 * Self.mib))
            await bed.settle()
            #expect(try await bed.daemon.terminationReasons(of: "mail") == ["memoryPressure"])
            scrape = try Scrape(parsing: try await Self.get(url).body)
            #expect(scrape["appwarden_memory_kills_total"] == 1)
            #expect(scrape["appwarden_memory_kill_latency_seconds_count"] == 1)
            #expect(scrape[#"appwarden_memory_kill_latency_seconds_bucket{le="+Inf"}"#] == 1)
            #expect(scrape[#"appwarden_terminations_total{reason="memoryPressure"}"#] == 1)
            #expect(scrape["appwarden_memory_pressure_level"] == 2)
            #expect(scrape[#"appwarden_apps{state="notRunning"}"#] == 1)
            #expect(scrape[#"appwarden_app_band{app="mail"}"#] == nil)
            #expect(scrape[#"appwarden_app_footprint_bytes{app="mail"}"#] == nil)

            let other = try await Self.get("http://127.0.0.1:\(port)/v1/apps")
            #expect(other.status == 404)
        }
        await bed.stop()
    }

    /// Over the control socket: GET /metrics answers the operator, fetch outcomes and push
    /// dispositions are counted, and API requests are counted by route and status.
    @Test func metricsOverTheSocketCountWakesPushesAndRequests() async throws {
        let policy = """
            [apps.news]
            command = "/bin/news"
            background_modes = ["fetch", "remote-notification"]
            """
        let bed = await WardenTestBed.start(policy: try PolicyLoader.parse(policy, file: "metrics.toml"))
        defer { bed.removeStateDirectory() }
        try FileManager.default.createDirectory(atPath: bed.stateDirectory, withIntermediateDirectories: true)
        let socket = bed.stateDirectory + "/metrics.sock"
        try await ControlServerHarness.serve(bed.control, on: socket) {
            let payload = #"{"aps":{"content-available":1},"id":"m1"}"#
            _ = try await bed.daemon.perform(.push(target: .app("news"), payload: payload, id: "m1"))
            _ = try await bed.daemon.perform(.push(target: .app("news"), payload: payload, id: "m1"))
            await bed.settle()
            _ = try await bed.daemon.perform(.completePush(app: "news", result: .newData))
            _ = try await ControlServerHarness.request(socketPath: socket, .GET, "/v1/apps")
            _ = try await ControlServerHarness.request(socketPath: socket, .GET, "/v1/apps/nobody")
            _ = try await ControlServerHarness.request(socketPath: socket, .GET, "/v1/nothing")
            let answer = try await ControlServerHarness.request(socketPath: socket, .GET, "/metrics")
            #expect(answer.status == 200)
            let scrape = try Scrape(parsing: answer.body)
            #expect(scrape[#"appwarden_push_dispositions_total{disposition="delivered"}"#] == 1)
            #expect(scrape[#"appwarden_push_dispositions_total{disposition="duplicate"}"#] == 1)
            #expect(scrape[#"appwarden_push_wakes_total{outcome="newData"}"#] == 1)
            #expect(scrape[#"appwarden_push_wakes_total{outcome="timeout"}"#] == 0)
            #expect(scrape[#"appwarden_api_requests_total{route="GET /v1/apps",status="200"}"#] == 1)
            #expect(scrape[#"appwarden_api_requests_total{route="GET /v1/apps/{app}",status="404"}"#] == 1)
            #expect(scrape[#"appwarden_api_requests_total{route="unmatched",status="404"}"#] == 1)
        }
        await bed.stop()
    }

    /// Accessory windows are counted by outcome: one completed, one that timed out.
    @Test func accessoryWindowsAreCountedByOutcome() async throws {
        let bed = try await DaemonVirtualTimeTests.bed(
            """
            [apps.till]
            command = "/bin/till"
            accessories = [{ subsystem = "usb" }]
            [apps.remote]
            command = "/bin/remote"
            accessories = [{ tag = "remote" }]
            """)
        defer { bed.removeStateDirectory() }
        let before = try Scrape(parsing: try #require(try await bed.control.metricsExposition()))
        #expect(before[#"appwarden_accessory_wakes_total{outcome="completed"}"#] == 0)
        #expect(before[#"appwarden_accessory_wakes_total{outcome="timeout"}"#] == 0)
        _ = try await bed.daemon.perform(.accessory(action: "add", properties: ["SUBSYSTEM": "usb"]))
        _ = try await bed.daemon.perform(.accessory(action: "add", properties: ["TAGS": ":remote:"]))
        await bed.settle()
        _ = try await bed.daemon.perform(.completeAccessory(app: "remote"))
        await bed.advance(by: .seconds(31))
        let after = try Scrape(parsing: try #require(try await bed.control.metricsExposition()))
        #expect(after[#"appwarden_accessory_wakes_total{outcome="completed"}"#] == 1)
        #expect(after[#"appwarden_accessory_wakes_total{outcome="timeout"}"#] == 1)
        #expect(after[#"appwarden_terminations_total{reason="accessoryTimeout"}"#] == 1)
        await bed.stop()
    }

    /// Every metric of the exposition has a `# HELP` line, right before its `# TYPE` line.
    @Test func everyMetricHasAHelpLine() async throws {
        let bed = await WardenTestBed.start(policy: try PolicyLoader.parse(Self.policy, file: "metrics.toml"))
        defer { bed.removeStateDirectory() }
        _ = try await bed.daemon.perform(.open(app: "mail"))
        await bed.settle()
        let text = try #require(try await bed.control.metricsExposition())
        let lines = text.split(separator: "\n").map(String.init)
        let typed = lines.indices.filter { lines[$0].hasPrefix("# TYPE ") }
        #expect(typed.count >= 10)
        for index in typed {
            let name = lines[index].split(separator: " ")[2]
            #expect(index > 0 && lines[index - 1].hasPrefix("# HELP \(name) "), "no help for \(name)")
        }
        await bed.stop()
    }

    /// Per-app series exist while the app runs: an app that is not running has none, and an app
    /// removed from the policy loses its series at the next scrape; the others keep theirs.
    @Test func onlyRunningAppsHavePerAppGauges() async throws {
        let bed = await WardenTestBed.start(policy: try PolicyLoader.parse(Self.policy, file: "metrics.toml"))
        defer { bed.removeStateDirectory() }
        var scrape = try Scrape(parsing: try #require(try await bed.control.metricsExposition()))
        #expect(scrape[#"appwarden_app_band{app="maps"}"#] == nil)
        #expect(scrape[#"appwarden_app_footprint_bytes{app="maps"}"#] == nil)
        _ = try await bed.daemon.perform(.open(app: "mail"))
        _ = try await bed.daemon.perform(.open(app: "maps"))
        await bed.settle()
        scrape = try Scrape(parsing: try #require(try await bed.control.metricsExposition()))
        #expect(scrape[#"appwarden_app_band{app="maps"}"#] == Double(KillBand.foreground.rawValue))
        #expect(scrape[#"appwarden_app_band{app="mail"}"#] == Double(KillBand.idleBackground.rawValue))
        let smaller = try PolicyLoader.parse("[apps.mail]\ncommand = \"/bin/mail\"\n", file: "metrics.toml")
        _ = try await bed.daemon.perform(.policyChanged(smaller))
        await bed.settle()
        scrape = try Scrape(parsing: try #require(try await bed.control.metricsExposition()))
        #expect(scrape[#"appwarden_app_band{app="maps"}"#] == nil)
        #expect(scrape[#"appwarden_app_footprint_bytes{app="maps"}"#] == nil)
        #expect(scrape[#"appwarden_app_band{app="mail"}"#] != nil)
        #expect(scrape[#"appwarden_apps{state="notRunning"}"#] == 0)
        await bed.stop()
    }

    /// An app holding an activity in background shows it: one activity, the activity band and the
    /// activity CPU class; once it ends, none, and the background class.
    @Test func anActivityShowsInTheAppGauges() async throws {
        let text = """
            [apps.music]
            command = "/bin/music"
            background_modes = ["audio"]
            [apps.mail]
            command = "/bin/mail"
            """
        let bed = await WardenTestBed.start(policy: try PolicyLoader.parse(text, file: "metrics.toml"))
        defer { bed.removeStateDirectory() }
        _ = try await bed.daemon.perform(.open(app: "music"))
        _ = try await bed.daemon.perform(.beginActivity(app: "music", mode: "audio"))
        _ = try await bed.daemon.perform(.open(app: "mail"))
        await bed.settle()
        var scrape = try Scrape(parsing: try #require(try await bed.control.metricsExposition()))
        #expect(scrape[#"appwarden_app_activities{app="music"}"#] == 1)
        #expect(scrape[#"appwarden_app_band{app="music"}"#] == Double(KillBand.activity.rawValue))
        #expect(scrape[#"appwarden_app_cpu_class{app="music"}"#] == 2)
        #expect(scrape[#"appwarden_app_activities{app="mail"}"#] == 0)
        _ = try await bed.daemon.perform(.endActivity(app: "music", activityID: 1))
        await bed.settle()
        scrape = try Scrape(parsing: try #require(try await bed.control.metricsExposition()))
        #expect(scrape[#"appwarden_app_activities{app="music"}"#] == 0)
        #expect(scrape[#"appwarden_app_cpu_class{app="music"}"#] == 1)
        await bed.stop()
    }

    /// `serve --metrics-address` without a port is a usage error (status 2) before anything starts, naming the
    /// option and an example.
    @Test(.requiresAppwardenExecutable)
    func serveRefusesAMetricsAddressWithoutAPort() async throws {
        let result = try await AppwardenCommandLine.run([
            "serve", "--policy", "/nonexistent/policy.toml", "--metrics-address", "localhost",
        ])
        #expect(result.code == 2)
        #expect(result.error.contains("--metrics-address: The metrics address \"localhost\" needs a port"))
    }

    /// A metrics address must be HOST:PORT; each mistake gets its own sentence.
    @Test func aMetricsAddressIsHostAndPort() throws {
        let plain = try MetricsServer.address("127.0.0.1:9464")
        #expect(plain.host == "127.0.0.1" && plain.port == 9464)
        let bracketed = try MetricsServer.address("[::1]:9464")
        #expect(bracketed.host == "::1" && bracketed.port == 9464)
        #expect(throws: MetricsAddressError.self) { try MetricsServer.address("127.0.0.1") }
        do {
            _ = try MetricsServer.address("localhost:99999")
            Issue.record("A port above 65535 was accepted.")
        } catch {
            #expect(error.message.contains("needs a port from 0 to 65535"))
        }
        do {
            _ = try MetricsServer.address(":9464")
            Issue.record("An address without a host was accepted.")
        } catch {
            #expect(error.message.contains("needs a host"))
        }
    }
}
