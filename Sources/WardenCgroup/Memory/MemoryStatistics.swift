/// Memory charged to one app, in bytes.
///
/// Filled from cgroup2 files (`memory.current`, `memory.stat`, `memory.swap.current`,
/// `memory.peak`), from v1 files (`memory.usage_in_bytes`, `memory.stat` `total_*`,
/// `memory.memsw.usage_in_bytes`, `memory.max_usage_in_bytes`), or, for processes without a
/// memory cgroup, from `/proc/PID/statm`.
public struct MemoryStatistics: Sendable, Hashable {
    /// Everything charged to the group, page cache included.
    public var current: UInt64
    /// Anonymous memory (heap, stacks, private mappings).
    public var anon: UInt64
    /// Page cache (file-backed memory), which the kernel can drop without killing anyone.
    public var file: UInt64
    /// Shared memory (tmpfs, shm segments).
    public var shmem: UInt64
    /// Memory swapped out.
    public var swap: UInt64
    /// Kernel memory charged to the group (stacks, page tables, slab), where known.
    public var kernel: UInt64
    /// The highest `current` seen, where the kernel reports it.
    public var peak: UInt64?

    /// Makes statistics from their parts.
    public init(
        current: UInt64, anon: UInt64, file: UInt64, shmem: UInt64, swap: UInt64, kernel: UInt64,
        peak: UInt64? = nil
    ) {
        self.current = current
        self.anon = anon
        self.file = file
        self.shmem = shmem
        self.swap = swap
        self.kernel = kernel
        self.peak = peak
    }

    /// What killing the app gives back: anonymous memory, swap and shmem, not page cache.
    ///
    /// This is the figure the kill order ranks by (DESIGN rule 9).
    public var footprint: UInt64 {
        anon &+ swap &+ shmem
    }
}
