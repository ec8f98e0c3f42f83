extension MemoryStatistics {
    /// Builds statistics from the text of cgroup2 memory files.
    ///
    /// - Parameters:
    ///   - stat: `memory.stat` (keys `anon`, `file`, `shmem`, and `kernel` or its parts).
    ///   - current: `memory.current`.
    ///   - swapCurrent: `memory.swap.current`, absent without swap accounting.
    ///   - peak: `memory.peak`, absent before Linux 5.19.
    ///   - directory: The group's directory, named in errors.
    public static func unified(
        stat: String, current: String, swapCurrent: String? = nil, peak: String? = nil,
        directory: String = "memory"
    ) throws(CgroupError) -> MemoryStatistics {
        let values = try CgroupFileParser.keyedValues(stat, path: directory + "/memory.stat")
        func value(_ key: String) throws(CgroupError) -> UInt64 {
            guard let value = values[key] else {
                throw .malformed(
                    "memory statistics", path: directory + "/memory.stat", detail: "the key \"\(key)\" is missing")
            }
            return value
        }
        let kernel =
            values["kernel"]
            ?? ["kernel_stack", "pagetables", "percpu", "sock", "slab"].reduce(0) { $0 + (values[$1] ?? 0) }
        return MemoryStatistics(
            current: try CgroupFileParser.integer(current, path: directory + "/memory.current"),
            anon: try value("anon"),
            file: try value("file"),
            shmem: try value("shmem"),
            swap: try swapCurrent.map { (text) throws(CgroupError) in
                try CgroupFileParser.integer(text, path: directory + "/memory.swap.current")
            } ?? 0,
            kernel: kernel,
            peak: try peak.map { (text) throws(CgroupError) in
                try CgroupFileParser.integer(text, path: directory + "/memory.peak")
            })
    }

    /// Builds statistics from the text of cgroup v1 memory files.
    ///
    /// The `total_*` keys of `memory.stat` are used, so subgroups count. `total_rss` is anonymous
    /// memory; v1 counts shmem inside `total_cache`, so `file` is `total_cache - total_shmem`.
    ///
    /// - Parameters:
    ///   - stat: `memory.stat`.
    ///   - usage: `memory.usage_in_bytes`.
    ///   - maxUsage: `memory.max_usage_in_bytes`.
    ///   - kernelUsage: `memory.kmem.usage_in_bytes`, absent on kernels without it.
    ///   - directory: The group's directory, named in errors.
    public static func v1(
        stat: String, usage: String, maxUsage: String? = nil, kernelUsage: String? = nil,
        directory: String = "memory"
    ) throws(CgroupError) -> MemoryStatistics {
        try v1(
            values: CgroupFileParser.keyedValues(stat, path: directory + "/memory.stat"), usage: usage,
            maxUsage: maxUsage, kernelUsage: kernelUsage, directory: directory)
    }

    /// Builds statistics from already parsed v1 `memory.stat` values (libcgroup enumerates them).
    static func v1(
        values: [String: UInt64], usage: String, maxUsage: String?, kernelUsage: String?, directory: String
    ) throws(CgroupError) -> MemoryStatistics {
        func value(_ key: String) throws(CgroupError) -> UInt64 {
            guard let value = values[key] else {
                throw .malformed(
                    "memory statistics", path: directory + "/memory.stat", detail: "the key \"\(key)\" is missing")
            }
            return value
        }
        let cache = try value("total_cache")
        let shmem = values["total_shmem"] ?? 0
        return MemoryStatistics(
            current: try CgroupFileParser.integer(usage, path: directory + "/memory.usage_in_bytes"),
            anon: try value("total_rss"),
            file: cache >= shmem ? cache - shmem : 0,
            shmem: shmem,
            swap: values["total_swap"] ?? 0,
            kernel: try kernelUsage.map { (text) throws(CgroupError) in
                try CgroupFileParser.integer(text, path: directory + "/memory.kmem.usage_in_bytes")
            } ?? 0,
            peak: try maxUsage.map { (text) throws(CgroupError) in
                try CgroupFileParser.integer(text, path: directory + "/memory.max_usage_in_bytes")
            })
    }

    /// Builds statistics for a process without a memory cgroup from `/proc/PID/statm`.
    ///
    /// statm counts pages: resident memory minus its shared part is taken as anonymous, the
    /// shared part (file-backed and shmem together) as file. Swap is not visible there.
    ///
    /// - Parameters:
    ///   - statm: The text of `/proc/PID/statm`.
    ///   - pageSize: The page size in bytes.
    ///   - path: The file, named in errors.
    public static func statm(_ statm: String, pageSize: UInt64, path: String = "statm") throws(CgroupError)
        -> MemoryStatistics
    {
        let fields = statm.split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard fields.count >= 3, let resident = UInt64(fields[1]), let shared = UInt64(fields[2]) else {
            throw .malformed(
                "process memory figures", path: path,
                detail: "expected at least three page counts (size resident shared)")
        }
        let anon = resident >= shared ? resident - shared : 0
        return MemoryStatistics(
            current: resident * pageSize, anon: anon * pageSize, file: shared * pageSize, shmem: 0, swap: 0,
            kernel: 0)
    }
}
