import Foundation
import Testing
import WardenAPI
import WardenCore

/// The typed state, status and band of `AppInfo`: the core's names on the wire, and names from
/// a newer daemon kept rather than refused.
@Suite struct AppInfoVocabularyTests {
    /// Every state, status and band of the core has its typed value, spelled on the wire as the
    /// core spells it, and reads back to the same core value.
    @Test func everyCoreNameHasATypedValueWithTheSameSpelling() {
        for state in AppState.allCases {
            #expect(AppInfo.State(rawValue: state.rawValue) == AppInfo.State(state))
            #expect(AppInfo.State(state).appState == state)
        }
        for status in AppStatus.allCases {
            #expect(AppInfo.Status(status).rawValue == status.description)
            #expect(AppInfo.Status(rawValue: status.description).appStatus == status)
        }
        for band in KillBand.allCases {
            #expect(AppInfo.Band(band).rawValue == band.description)
            #expect(AppInfo.Band(rawValue: band.description).killBand == band)
        }
    }

    /// An app from a newer daemon, with a state, status and band this version does not know,
    /// decodes with those names kept, and encodes back with them unchanged.
    @Test func namesFromANewerDaemonDecodeAndEncodeBackUnchanged() throws {
        let json = """
            {"name":"mail","state":"hibernating","status":"dozing","pids":[],"footprintBytes":0,\
            "band":"deep-sleep","openTasks":[],"heldResources":[],"forceQuit":false,"hasPreservedState":false}
            """
        let app = try JSONDecoder().decode(AppInfo.self, from: Data(json.utf8))
        #expect(app.state == .other("hibernating"))
        #expect(app.status == .other("dozing"))
        #expect(app.band == .other("deep-sleep"))
        #expect(app.state.appState == nil)
        let again = try JSONDecoder().decode(AppInfo.self, from: JSONEncoder().encode(app))
        #expect(again == app)
    }

    /// An app from a daemon before the windows were shown has none; the windows of a newer one
    /// decode, and encode back unchanged.
    @Test func windowsAreNoneFromAnEarlierDaemonAndDecodeFromANewerOne() throws {
        let earlier = """
            {"name":"till","state":"background","status":"background","pids":[3],"footprintBytes":0,\
            "openTasks":[],"heldResources":[],"forceQuit":false,"hasPreservedState":false}
            """
        #expect(try JSONDecoder().decode(AppInfo.self, from: Data(earlier.utf8)).windows == [])
        let newer = """
            {"name":"till","state":"background","status":"background","pids":[3],"footprintBytes":0,\
            "openTasks":[],"heldResources":[],"forceQuit":false,"hasPreservedState":false,\
            "windows":[{"kind":"accessory","endMillis":1800000030000,"action":"add","device":"usb 1234:5678"},\
            {"kind":"fetch"}]}
            """
        let app = try JSONDecoder().decode(AppInfo.self, from: Data(newer.utf8))
        #expect(
            app.windows == [
                WindowInfo(kind: "accessory", endMillis: 1_800_000_030_000, action: "add", device: "usb 1234:5678"),
                WindowInfo(kind: "fetch", endMillis: nil),
            ])
        #expect(try JSONDecoder().decode(AppInfo.self, from: JSONEncoder().encode(app)) == app)
    }

    /// Known names on the wire decode to the typed values (`idle-background` is `.idleBackground`).
    @Test func knownNamesOnTheWireDecodeToTheirTypedValues() throws {
        let json = """
            {"name":"mail","state":"suspended","status":"background","pids":[4],"footprintBytes":9,\
            "band":"idle-background","openTasks":[],"heldResources":[],"forceQuit":false,"hasPreservedState":true}
            """
        let app = try JSONDecoder().decode(AppInfo.self, from: Data(json.utf8))
        #expect(app.state == .suspended)
        #expect(app.status == .background)
        #expect(app.band == .idleBackground)
        let encoded = String(decoding: try JSONEncoder().encode(app), as: UTF8.self)
        #expect(encoded.contains(#""band":"idle-background""#))
    }
}
