/// Polls `condition` every 50 ms on the continuous clock until it holds or `timeout` passes;
/// returns whether it held.
///
/// For tests of real processes and real cgroups, which take real time; it checks once more at
/// the deadline, so a condition met late still counts. Tests in virtual time advance the test
/// bed's clock instead. Polling faster ends a test's control server sooner after the condition,
/// while a client it has just answered may still be connecting.
public func eventually(
    within timeout: Duration = .seconds(10), _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while clock.now < deadline {
        if try await condition() { return true }
        try? await clock.sleep(for: .milliseconds(50))
    }
    return try await condition()
}
