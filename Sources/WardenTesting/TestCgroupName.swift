import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Names for the cgroups (and cgroup roots) that real-kernel tests create.
///
/// Every name is `appwarden-test-PID-N`, with `-PURPOSE` after it when one is given: the pid keeps
/// runs apart, one counter for all the tests of the run keeps tests apart, and the prefix is what
/// the check for groups left behind (`scripts/test.sh`) looks for.
public enum TestCgroupName {
    private static let counter = Atomic<Int>(0)

    /// A name no other test or run uses: `appwarden-test-PID-N`, or `appwarden-test-PID-N-PURPOSE`.
    public static func unique(_ purpose: String? = nil) -> String {
        let number = counter.add(1, ordering: .relaxed).newValue
        let name = "appwarden-test-\(getpid())-\(number)"
        return purpose.map { name + "-" + $0 } ?? name
    }
}
