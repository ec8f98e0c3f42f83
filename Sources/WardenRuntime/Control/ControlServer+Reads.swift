import Hummingbird
import WardenAPI
import WardenCore

extension ControlServer {
    /// App list and detail, `explain`, the journal, the live stream and health.
    func addReads(to router: Router<ControlServerContext>) {
        route(router, ControlAPI.apps) { _, _, caller in
            try caller.requireKnown()
            let apps = try await self.control.apps()
            if case .app(let own) = caller.identity {
                return Self.json(apps.filter { $0.name == own })
            }
            // With a thousand apps, encoding only the entries that changed since the last list
            // takes a fraction of the time.
            let fragments = try self.appListEncodings.fragments(of: apps, key: { $0.name })
            return Self.json(fragments)
        }
        route(router, ControlAPI.app) { _, context, caller in
            let app = try context.parameters.require("app")
            try caller.requireApp(app, toDo: "read the state")
            guard let info = try await self.control.appInfo(named: app) else {
                throw ControlServerFailure(LifecycleError.unknownApp(app))
            }
            return Self.json(info)
        }
        route(router, ControlAPI.explain) { _, context, caller in
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
        route(router, ControlAPI.events) { request, _, caller in
            let query = try await self.knownApp(Self.journalQuery(request, caller: caller))
            return Self.json(try await self.control.journal(query))
        }
        route(router, ControlAPI.eventStream) { request, _, caller in
            var query = try await self.knownApp(
                Self.resuming(Self.journalQuery(request, caller: caller), from: request))
            // The replay pages through the stored entries oldest first.
            query.newest = false
            return try await self.eventStream(query)
        }
        route(router, ControlAPI.device) { _, _, caller in
            try caller.requireKnown()
            return Self.json(try await self.control.device())
        }
        route(router, ControlAPI.health) { _, _, caller in
            try caller.requireKnown()
            return Self.json(await self.control.health())
        }
    }

    /// The journal query of `GET /v1/events` and `/v1/events/stream`: `app`, `kind`, `since` (an
    /// entry id), `sinceTime` (ms since the epoch), `limit` and `newest`. An app's process reads only its own
    /// app's entries; asking for none selects its own.
    static func journalQuery(_ request: Request, caller: ControlServerCaller) throws(ControlServerFailure)
        -> JournalQuery
    {
        let parameters = request.uri.queryParameters
        var query = JournalQuery(app: parameters[Substring(JournalQuery.Parameter.app.rawValue)].map(String.init))
        switch caller.identity {
        case .operator:
            break
        case .app(let own):
            if query.app == nil { query.app = own }
            try caller.requireApp(query.app ?? own, toDo: "read the events")
        case .denied(let sentence):
            throw .forbidden(sentence)
        }
        if let text = parameters[Substring(JournalQuery.Parameter.kind.rawValue)] {
            guard let kind = EventKind(rawValue: String(text)) else {
                let kinds = EventKind.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
                throw .invalid("The query parameter \"kind\" must be one of \(kinds), not \"\(text)\".")
            }
            query.kind = kind
        }
        query.sinceID = try integer(
            parameters[Substring(JournalQuery.Parameter.since.rawValue)], named: "since", atLeast: 0)
        query.sinceMillis = try integer(
            parameters[Substring(JournalQuery.Parameter.sinceTime.rawValue)], named: "sinceTime", atLeast: 0)
        if let limit = try integer(
            parameters[Substring(JournalQuery.Parameter.limit.rawValue)], named: "limit", atLeast: 1)
        {
            query.limit = Int(min(limit, 100_000))
        }
        switch parameters[Substring(JournalQuery.Parameter.newest.rawValue)] {
        case nil, "false": query.newest = false
        case "true": query.newest = true
        case let text?:
            throw .invalid("The query parameter \"newest\" must be \"true\" or \"false\", not \"\(text)\".")
        }
        return query
    }

    /// Refuses a query for an app the policy does not declare, as every verb does; the
    /// daemon's own records (`appwarden`) may always be read.
    func knownApp(_ query: JournalQuery) async throws -> JournalQuery {
        if let app = query.app, app != JournalEntry.systemApp, try await control.appInfo(named: app) == nil {
            throw ControlServerFailure(LifecycleError.unknownApp(app))
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
