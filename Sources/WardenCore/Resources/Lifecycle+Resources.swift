/// Shared resources an app acquires and releases through the API (rule 7); holding one when
/// the app would be suspended terminates it instead (`Lifecycle.suspend`).
extension Lifecycle {
    /// `acquire RESOURCE`: only resources the app's policy lists.
    mutating func acquire(_ app: String, resource: String, _ out: inout [LifecycleAction]) throws(LifecycleError) {
        let index = try runningAppIndex(app, for: "acquire a shared resource")
        guard appPolicies[index].resources.contains(resource) else {
            throw LifecycleError(
                .notFound, "App \"\(app)\" may not acquire \"\(resource)\": its policy does not list that resource.")
        }
        if records[index].state == .suspended {
            throw LifecycleError(.conflict, "App \"\(app)\" is suspended, so it cannot acquire \"\(resource)\".")
        }
        if !records[index].heldResources.contains(resource) {
            records[index].heldResources.append(resource)
        }
    }

    /// `release RESOURCE`.
    mutating func release(
        _ app: String, resource: String, at now: Instant, _ out: inout [LifecycleAction]
    ) throws(LifecycleError) {
        let index = try runningAppIndex(app, for: "release a shared resource")
        guard let position = records[index].heldResources.firstIndex(of: resource) else {
            throw LifecycleError(.notFound, "App \"\(app)\" does not hold \"\(resource)\".")
        }
        records[index].heldResources.remove(at: position)
    }
}
