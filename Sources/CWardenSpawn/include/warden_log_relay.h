#ifndef APPWARDEN_LOG_RELAY_H
#define APPWARDEN_LOG_RELAY_H

#include <stddef.h>

/// Where an app's output goes and how it is bounded. Every pointer is borrowed for the call.
struct warden_log_relay_request {
    /// The log file, such as <state>/logs/APP.log; rotated files are PATH.1 (newest) to PATH.KEEP.
    const char *path;
    /// The size past which PATH is rotated before the next line is written.
    long long max_size;
    /// How many rotated files stay (at least 1).
    int keep;
    /// O_DIRECTORY descriptor of a cgroup v2 leaf for the relay to join, or -1.
    int unified_cgroup_fd;
    /// Descriptors opened for writing on v1 cgroup.procs files the relay joins (may be none).
    const int *v1_procs_fds;
    size_t v1_procs_count;
    /// The appwarden-relay program to exec once the relay has joined its groups and closed what
    /// it inherited, or NULL (or a program that cannot be run) to relay in the forked process.
    const char *executable;
};

/// Starts a log relay and returns, in `write_fd`, the write end of a pipe to connect to an
/// app's standard output and error.
///
/// The relay is a grandchild (fork, fork, the middle one exits at once and is reaped), so
/// it outlives the daemon and is never its child. Before reading it joins the groups given
/// (appwarden gives none, so that the relay never counts as one of the app's processes),
/// starts a session, names itself "appwarden-relay" (its comm and command line), ignores SIGTERM, keeps no descriptor but
/// the pipe's read end, execs `executable` (so that it keeps no copy of the daemon's memory)
/// or, without one, stays in the forked process, and then appends every line it reads to `path`,
/// prefixed with an RFC 3339 UTC time with milliseconds ("2026-11-23T00:56:19.042Z ").
/// A line that would take the file past `max_size` first rotates PATH to PATH.1, PATH.1
/// to PATH.2 … up to PATH.KEEP. Lines longer than 16 KiB are split. At end of file (every
/// writer closed the pipe) it writes any unfinished line and exits.
///
/// Returns 0 on success, or -1 with `error_number` set (pipe, open or fork failed).
int warden_log_relay_start(const struct warden_log_relay_request *request, int *write_fd, int *error_number);

/// Runs the relay loop on `read_fd` in the calling process until end of file (what the
/// relay process runs after it has joined its groups). Returns 0, or -1 with errno set
/// when the log file cannot be opened or written.
int warden_log_relay_run(int read_fd, const char *path, long long max_size, int keep);

#endif
