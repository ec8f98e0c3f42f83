import Hummingbird
import WardenAPI
import WardenCore

extension ControlServer {
    /// App list and detail, `explain`, the journal, the live stream and health.
    func addReads(to router: Router<ControlServerContext>) {
        route(router, .get, "/v1/apps") { _, _, caller in
            try caller.requireKnown()
            let apps = await self.control.apps()
            if case .app(let own) = caller.identity {
                return Self.json(apps.filter { $0.name == own })
            }
            return Self.json(apps)
        }
        route(router, .get, "/v1/apps/:app") { _, context, caller in
            let app = try context.parameters.require("app")
            try caller.requireApp(app, toDo: "read the state")
            guard let info = await self.control.app(named: app) else {
                throw ControlServerFailure(.notFound, "notFound", "No app named \"\(app)\" is declared in the policy.")
            }
            return Self.json(info)
        }
        route(router, .get, "/v1/apps/:app/explain") { _, context, caller in
            let app = try context.parameters.require("app")
            try caller.requireApp(app, toDo: "read the explanation")
            let explanation: Explanation
            do {
                explanation = try await self.control.explain(app: app)
            } catch let error as LifecycleError {
                throw ControlServerFailure(error)
            }
            return Self.json(explanation)
        }
        route(router, .get, "/v1/events") { request, _, caller in
            let query = try Self.journalQuery(request, caller: caller)
            return Self.json(try await self.control.journal(query))
        }
        route(router, .get, "/v1/events/stream") { request, _, caller in
            let query = try Self.resuming(Self.journalQuery(request, caller: caller), from: request)
            return await self.eventStream(query)
        }
        route(router, .get, "/v1/device") { _, _, caller in
            try caller.requireKnown()
            return Self.json(await self.control.device())
        }
        route(router, .get, "/v1/health") { _, _, caller in
            try caller.requireKnown()
            return Self.json(await self.control.health())
        }
    }

    /// The journal query of `GET /v1/events` and `/v1/events/stream`: `app`, `since` (an entry
    /// id), `sinceTime` (ms since the epoch) and `limit`. An app's process reads only its own
    /// app's entries; asking for none selects its own.
    static func journalQuery(_ request: Request, caller: ControlServerCaller) throws(ControlServerFailure)
        -> JournalQuery
    {
        let parameters = request.uri.queryParameters
        var query = JournalQuery(app: parameters["app"].map(String.init))
        switch caller.identity {
        case .operator:
            break
        case .app(let own):
            if query.app == nil { query.app = own }
            try caller.requireApp(query.app ?? own, toDo: "read the events")
        case .denied(let sentence):
            throw .forbidden(sentence)
        }
        query.sinceID = try integer(parameters["since"], named: "since", atLeast: 0)
        query.sinceMillis = try integer(parameters["sinceTime"], named: "sinceTime", atLeast: 0)
        if let limit = try integer(parameters["limit"], named: "limit", atLeast: 1) {
            query.limit = Int(min(limit, 100_000))
        }
        return query
    }

    private static func integer(_ text: Substring?, named name: String, atLeast minimum: Int64)
        throws(ControlServerFailure) -> Int64?
    {
        guard let text else { return nil }
        guard let value = Int64(text), value >= minimum else {
            throw .invalid(
                "The query parameter \"\(name)\" must be an integer of at least \(minimum), not \"\(text)\".")
        }
        return value
    }
}
