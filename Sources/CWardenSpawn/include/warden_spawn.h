#ifndef APPWARDEN_SPAWN_H
#define APPWARDEN_SPAWN_H

#include <stddef.h>
#include <sys/types.h>

#include "warden_log_relay.h"

/// Where a spawn failed; reported with the errno of the failing call.
enum warden_spawn_stage {
    WARDEN_SPAWN_STAGE_NONE = 0,
    /// Creating the error pipe in the parent (pipe2).
    WARDEN_SPAWN_STAGE_PIPE = 1,
    /// Creating the child (clone3, or fork in the fallback).
    WARDEN_SPAWN_STAGE_CLONE = 2,
    /// Opening cgroup.procs of the v2 leaf for the fallback join (openat).
    WARDEN_SPAWN_STAGE_OPEN_UNIFIED_PROCS = 3,
    /// Writing "0" to a cgroup.procs file in the child.
    WARDEN_SPAWN_STAGE_JOIN_GROUP = 4,
    /// Writing /proc/self/oom_score_adj in the child.
    WARDEN_SPAWN_STAGE_OOM_SCORE_ADJ = 5,
    /// Starting a new session (setsid) in the child.
    WARDEN_SPAWN_STAGE_SETSID = 6,
    /// Setting the supplementary groups (setgroups) in the child.
    WARDEN_SPAWN_STAGE_SETGROUPS = 7,
    /// Setting the group id (setresgid) in the child.
    WARDEN_SPAWN_STAGE_SETGID = 8,
    /// Setting the user id (setresuid) in the child.
    WARDEN_SPAWN_STAGE_SETUID = 9,
    /// Changing to the working directory (chdir) in the child.
    WARDEN_SPAWN_STAGE_CHDIR = 10,
    /// Connecting standard input, output or error (dup2) in the child.
    WARDEN_SPAWN_STAGE_STDIO = 11,
    /// Resetting the signal mask and dispositions in the child.
    WARDEN_SPAWN_STAGE_SIGNALS = 12,
    /// Executing the program (execve) in the child.
    WARDEN_SPAWN_STAGE_EXEC = 13,
    /// Reading the child's report from the error pipe in the parent.
    WARDEN_SPAWN_STAGE_REPORT = 14,
};

/// How the child was created.
enum warden_spawn_method {
    /// clone3(CLONE_INTO_CGROUP | CLONE_PIDFD): the child starts inside the v2 leaf.
    WARDEN_SPAWN_METHOD_CLONE3_INTO_CGROUP = 1,
    /// clone3(CLONE_PIDFD) with every join written by the child before execve.
    WARDEN_SPAWN_METHOD_CLONE3 = 2,
    /// fork() with every join written by the child before execve, then pidfd_open.
    WARDEN_SPAWN_METHOD_FORK = 3,
};

/// What to start and where. Every pointer is borrowed for the duration of the call.
struct warden_spawn_request {
    /// Absolute path of the program.
    const char *path;
    /// NULL-terminated argument vector (argv[0] included).
    char *const *argv;
    /// NULL-terminated environment.
    char *const *envp;
    /// Working directory, or NULL to keep the parent's.
    const char *working_directory;
    /// O_DIRECTORY descriptor of the cgroup v2 leaf, or -1 when there is none.
    int unified_cgroup_fd;
    /// Descriptors opened for writing on v1 cgroup.procs files; the child writes "0" to each.
    const int *v1_procs_fds;
    size_t v1_procs_count;
    /// Non-zero to write oom_score_adj in the child.
    int set_oom_score_adj;
    int oom_score_adj;
    /// Non-zero to start a new session.
    int new_session;
    /// Non-zero to change credentials: setgroups, setresgid, setresuid in that order.
    int set_credentials;
    uid_t uid;
    gid_t gid;
    const gid_t *supplementary_groups;
    size_t supplementary_group_count;
    /// Descriptors for standard input, output and error, or -1 to inherit the parent's.
    int stdin_fd;
    int stdout_fd;
    int stderr_fd;
    /// Non-zero to skip clone3 and take the fork fallback (for tests and old kernels).
    int force_fallback;
    /// How long to wait for the child to reach execve, in milliseconds; 0 waits for ever. A child
    /// that takes longer (frozen in its group, stuck on a stalled device) is killed, reaped on a
    /// thread of its own, and the spawn fails at WARDEN_SPAWN_STAGE_REPORT with ETIMEDOUT.
    int report_timeout_ms;
};

/// The outcome of a spawn.
struct warden_spawn_result {
    /// The child's pid, or -1 on failure.
    pid_t pid;
    /// A pidfd for the child, or -1 when the kernel has none (before Linux 5.3).
    int pidfd;
    /// An `enum warden_spawn_method` value on success.
    int method;
    /// On failure: an `enum warden_spawn_stage` value and the errno of the failing call.
    int failed_stage;
    int error_number;
    /// On failure: the index of the cgroup.procs descriptor that could not be written, or -1.
    int failed_group_index;
};

/// Starts a program inside its cgroups before it runs any of its own code.
///
/// Tries clone3(CLONE_INTO_CGROUP | CLONE_PIDFD) into the v2 leaf; the child writes "0"
/// to each v1 cgroup.procs descriptor, sets oom_score_adj, starts a session, changes
/// credentials and directory, connects stdio, resets signals and calls execve, using
/// raw system calls only. When clone3 or CLONE_INTO_CGROUP is missing (ENOSYS, EINVAL,
/// E2BIG) the child is created with fork() and also joins the v2 leaf by writing "0" to
/// its cgroup.procs before execve, so it still runs no program code outside its groups.
/// Failures in the child come back through a close-on-exec pipe as (stage, errno); the
/// child is then reaped before this returns. A child that does not reach execve within
/// `report_timeout_ms` is killed and the spawn fails (ETIMEDOUT), without waiting for its end.
///
/// Returns 0 on success and -1 on failure, with the details in `result`.
int warden_spawn(const struct warden_spawn_request *request, struct warden_spawn_result *result);

#endif
