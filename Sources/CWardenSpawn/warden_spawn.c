// Race-free spawn into cgroups.
//
// The parent prepares everything that needs memory allocation or formatting; the child
// only makes async-signal-safe calls (credentials through raw system calls, because the
// libc wrappers of setuid and friends broadcast to threads that do not exist in a child
// created by a raw clone3).
//
// Fallback choice: where clone3 or CLONE_INTO_CGROUP is missing, the child is created
// with fork() and joins the v2 leaf and every v1 group by writing "0" to their
// cgroup.procs before execve. That is as race-free as re-executing a helper binary (the
// child runs no program code before it has joined) and costs one exec less.

#define _GNU_SOURCE
#include "warden_spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef SYS_clone3
#define SYS_clone3 435
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif

#define WARDEN_CLONE_PIDFD 0x00001000ULL
#define WARDEN_CLONE_INTO_CGROUP 0x200000000ULL
#define WARDEN_CLOSE_RANGE_CLOEXEC (1U << 2)
#define WARDEN_MAX_JOINS 16

// The layout of struct clone_args (CLONE_ARGS_SIZE_VER2), declared here so the build
// does not depend on the kernel headers' version.
struct warden_clone_args {
    uint64_t flags;
    uint64_t pidfd;
    uint64_t child_tid;
    uint64_t parent_tid;
    uint64_t exit_signal;
    uint64_t stack;
    uint64_t stack_size;
    uint64_t tls;
    uint64_t set_tid;
    uint64_t set_tid_size;
    uint64_t cgroup;
};

struct warden_child_report {
    int32_t stage;
    int32_t error_number;
    int32_t group_index;
};

// Everything the child needs, prepared by the parent.
struct warden_child_plan {
    const struct warden_spawn_request *request;
    int join_fds[WARDEN_MAX_JOINS];
    size_t join_count;
    char oom_text[16];
    size_t oom_length;
    int report_fd;
};

static void child_fail(const struct warden_child_plan *plan, int stage, int error_number, int group_index) {
    struct warden_child_report report = {stage, error_number, group_index};
    ssize_t written;
    do {
        written = write(plan->report_fd, &report, sizeof report);
    } while (written < 0 && errno == EINTR);
    syscall(SYS_exit_group, 127);
    _exit(127);
}

static int write_all(int fd, const char *bytes, size_t length) {
    while (length > 0) {
        ssize_t written = write(fd, bytes, length);
        if (written < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        bytes += written;
        length -= (size_t)written;
    }
    return 0;
}

// Moves a stdio source descriptor above 2 so that dup2 onto 0, 1 and 2 cannot clobber it.
static int lift_fd(int fd) {
    if (fd < 0 || fd > 2) return fd;
    return fcntl(fd, F_DUPFD_CLOEXEC, 3);
}

static int connect_stdio(int source, int target) {
    if (source < 0) return 0;
    int result;
    do {
        result = dup2(source, target);
    } while (result < 0 && errno == EINTR);
    return result < 0 ? -1 : 0;
}

static void child_run(const struct warden_child_plan *plan) {
    const struct warden_spawn_request *request = plan->request;

    for (size_t index = 0; index < plan->join_count; index++) {
        if (write_all(plan->join_fds[index], "0", 1) != 0) {
            child_fail(plan, WARDEN_SPAWN_STAGE_JOIN_GROUP, errno, (int)index);
        }
    }

    if (request->set_oom_score_adj) {
        int fd;
        do {
            fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
        } while (fd < 0 && errno == EINTR);
        if (fd < 0) child_fail(plan, WARDEN_SPAWN_STAGE_OOM_SCORE_ADJ, errno, -1);
        if (write_all(fd, plan->oom_text, plan->oom_length) != 0) {
            child_fail(plan, WARDEN_SPAWN_STAGE_OOM_SCORE_ADJ, errno, -1);
        }
        close(fd);
    }

    if (request->new_session && setsid() < 0) {
        child_fail(plan, WARDEN_SPAWN_STAGE_SETSID, errno, -1);
    }

    if (request->set_credentials) {
        if (syscall(SYS_setgroups, request->supplementary_group_count, request->supplementary_groups) < 0) {
            child_fail(plan, WARDEN_SPAWN_STAGE_SETGROUPS, errno, -1);
        }
        if (syscall(SYS_setresgid, request->gid, request->gid, request->gid) < 0) {
            child_fail(plan, WARDEN_SPAWN_STAGE_SETGID, errno, -1);
        }
        if (syscall(SYS_setresuid, request->uid, request->uid, request->uid) < 0) {
            child_fail(plan, WARDEN_SPAWN_STAGE_SETUID, errno, -1);
        }
    }

    if (request->working_directory != NULL && chdir(request->working_directory) < 0) {
        child_fail(plan, WARDEN_SPAWN_STAGE_CHDIR, errno, -1);
    }

    int in_fd = lift_fd(request->stdin_fd);
    int out_fd = lift_fd(request->stdout_fd);
    int err_fd = lift_fd(request->stderr_fd);
    if ((request->stdin_fd >= 0 && in_fd < 0) || (request->stdout_fd >= 0 && out_fd < 0)
        || (request->stderr_fd >= 0 && err_fd < 0)) {
        child_fail(plan, WARDEN_SPAWN_STAGE_STDIO, errno, -1);
    }
    if (connect_stdio(in_fd, 0) != 0 || connect_stdio(out_fd, 1) != 0 || connect_stdio(err_fd, 2) != 0) {
        child_fail(plan, WARDEN_SPAWN_STAGE_STDIO, errno, -1);
    }

    // Every other descriptor closes at execve (Linux 5.11+; older kernels keep relying on
    // the descriptors' own close-on-exec flags).
    syscall(SYS_close_range, 3U, ~0U, WARDEN_CLOSE_RANGE_CLOEXEC);

    struct sigaction default_action;
    memset(&default_action, 0, sizeof default_action);
    default_action.sa_handler = SIG_DFL;
    for (int signal_number = 1; signal_number < NSIG; signal_number++) {
        if (signal_number == SIGKILL || signal_number == SIGSTOP) continue;
        sigaction(signal_number, &default_action, NULL);  // EINVAL for reserved numbers is fine.
    }
    sigset_t empty;
    sigemptyset(&empty);
    if (sigprocmask(SIG_SETMASK, &empty, NULL) < 0) {
        child_fail(plan, WARDEN_SPAWN_STAGE_SIGNALS, errno, -1);
    }

    execve(request->path, request->argv, request->envp);
    child_fail(plan, WARDEN_SPAWN_STAGE_EXEC, errno, -1);
}

static void fail(struct warden_spawn_result *result, int stage, int error_number, int group_index) {
    result->pid = -1;
    result->pidfd = -1;
    result->method = 0;
    result->failed_stage = stage;
    result->error_number = error_number;
    result->failed_group_index = group_index;
}

static pid_t raw_clone3(uint64_t flags, int unified_cgroup_fd, int *pidfd) {
    struct warden_clone_args args;
    memset(&args, 0, sizeof args);
    args.flags = flags;
    args.pidfd = (uint64_t)(uintptr_t)pidfd;
    args.exit_signal = SIGCHLD;
    if (flags & WARDEN_CLONE_INTO_CGROUP) args.cgroup = (uint64_t)unified_cgroup_fd;
    return (pid_t)syscall(SYS_clone3, &args, sizeof args);
}

/// A child given up on: reaped on a detached thread whenever it ends (a child frozen in its
/// group ends only once the group is thawed or killed), so that no zombie is left.
struct warden_abandoned_child {
    pid_t pid;
    int pidfd;
};

static void *reap_abandoned_child(void *argument) {
    struct warden_abandoned_child *child = argument;
    int status;
    while (waitpid(child->pid, &status, 0) < 0 && errno == EINTR) {}
    if (child->pidfd >= 0) close(child->pidfd);
    free(child);
    return NULL;
}

/// Kills a child that did not reach execve in time and leaves its reaping to a thread.
static void abandon_child(pid_t pid, int pidfd) {
    if (pidfd < 0 || syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0) < 0) kill(pid, SIGKILL);
    struct warden_abandoned_child *child = malloc(sizeof *child);
    pthread_attr_t attributes;
    pthread_t thread;
    if (child != NULL && pthread_attr_init(&attributes) == 0) {
        child->pid = pid;
        child->pidfd = pidfd;
        pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
        int created = pthread_create(&thread, &attributes, reap_abandoned_child, child);
        pthread_attr_destroy(&attributes);
        if (created == 0) return;
    }
    free(child);
    // No thread to wait with: reap it if it is gone already (SIGKILL usually ends it at once).
    int status;
    for (int attempt = 0; attempt < 100; attempt++) {
        if (waitpid(pid, &status, WNOHANG) != 0) break;
        usleep(1000);
    }
    if (pidfd >= 0) close(pidfd);
}

/// Milliseconds on the monotonic clock.
static long long monotonic_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

/// Waits until the report pipe can be read or `deadline_ms` passes (none when negative);
/// returns 1 when readable (data or end of file), 0 at the deadline or when poll fails.
static int wait_for_report(int fd, long long deadline_ms) {
    if (deadline_ms < 0) return 1;
    for (;;) {
        long long left = deadline_ms - monotonic_ms();
        if (left <= 0) return 0;
        struct pollfd entry = {.fd = fd, .events = POLLIN};
        int ready = poll(&entry, 1, left > 60000 ? 60000 : (int)left);
        if (ready > 0) return 1;
        if (ready < 0 && errno != EINTR) return 0;  // cannot wait: give up as at the deadline
    }
}

int warden_spawn(const struct warden_spawn_request *request, struct warden_spawn_result *result) {
    fail(result, WARDEN_SPAWN_STAGE_NONE, 0, -1);
    if (request == NULL || request->path == NULL || request->argv == NULL || request->envp == NULL) {
        fail(result, WARDEN_SPAWN_STAGE_EXEC, EINVAL, -1);
        return -1;
    }
    if (request->v1_procs_count + 1 > WARDEN_MAX_JOINS) {
        fail(result, WARDEN_SPAWN_STAGE_JOIN_GROUP, E2BIG, -1);
        return -1;
    }

    struct warden_child_plan plan;
    memset(&plan, 0, sizeof plan);
    plan.request = request;
    for (size_t index = 0; index < request->v1_procs_count; index++) {
        plan.join_fds[plan.join_count++] = request->v1_procs_fds[index];
    }
    if (request->set_oom_score_adj) {
        int length = snprintf(plan.oom_text, sizeof plan.oom_text, "%d", request->oom_score_adj);
        plan.oom_length = length > 0 ? (size_t)length : 0;
    }

    int report_pipe[2];
    if (pipe2(report_pipe, O_CLOEXEC) < 0) {
        fail(result, WARDEN_SPAWN_STAGE_PIPE, errno, -1);
        return -1;
    }
    plan.report_fd = report_pipe[1];

    // The child starts with every signal blocked so that no handler inherited from the
    // parent can run before the dispositions are reset.
    sigset_t all_signals, previous_mask;
    sigfillset(&all_signals);
    pthread_sigmask(SIG_SETMASK, &all_signals, &previous_mask);

    int pidfd = -1;
    int unified_procs_fd = -1;
    int method = 0;
    pid_t pid = -1;
    int clone_errno = 0;
    int clone3_missing = request->force_fallback;

    if (!clone3_missing && request->unified_cgroup_fd >= 0) {
        pid = raw_clone3(WARDEN_CLONE_PIDFD | WARDEN_CLONE_INTO_CGROUP, request->unified_cgroup_fd, &pidfd);
        if (pid == 0) child_run(&plan);
        if (pid > 0) {
            method = WARDEN_SPAWN_METHOD_CLONE3_INTO_CGROUP;
        } else {
            clone_errno = errno;
            if (clone_errno == ENOSYS) clone3_missing = 1;
        }
    }

    if (pid < 0 && (clone_errno == 0 || clone_errno == ENOSYS || clone_errno == EINVAL || clone_errno == E2BIG)) {
        clone_errno = 0;
        if (request->unified_cgroup_fd >= 0) {
            do {
                unified_procs_fd = openat(request->unified_cgroup_fd, "cgroup.procs", O_WRONLY | O_CLOEXEC);
            } while (unified_procs_fd < 0 && errno == EINTR);
            if (unified_procs_fd < 0) {
                clone_errno = errno;
                pthread_sigmask(SIG_SETMASK, &previous_mask, NULL);
                close(report_pipe[0]);
                close(report_pipe[1]);
                fail(result, WARDEN_SPAWN_STAGE_OPEN_UNIFIED_PROCS, clone_errno, -1);
                return -1;
            }
            plan.join_fds[plan.join_count++] = unified_procs_fd;
        }
        if (!clone3_missing) {
            pid = raw_clone3(WARDEN_CLONE_PIDFD, -1, &pidfd);
            if (pid == 0) child_run(&plan);
            if (pid > 0) {
                method = WARDEN_SPAWN_METHOD_CLONE3;
            } else {
                clone_errno = errno;
                if (clone_errno == ENOSYS || clone_errno == EINVAL || clone_errno == E2BIG) clone3_missing = 1;
            }
        }
        if (pid < 0 && clone3_missing) {
            clone_errno = 0;
            pid = fork();
            if (pid == 0) child_run(&plan);
            if (pid > 0) {
                method = WARDEN_SPAWN_METHOD_FORK;
                pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
                if (pidfd < 0) pidfd = -1;
            } else {
                clone_errno = errno;
            }
        }
    }

    int saved_errno = clone_errno;
    pthread_sigmask(SIG_SETMASK, &previous_mask, NULL);
    close(report_pipe[1]);
    if (unified_procs_fd >= 0) close(unified_procs_fd);

    if (pid < 0) {
        close(report_pipe[0]);
        fail(result, WARDEN_SPAWN_STAGE_CLONE, saved_errno, -1);
        return -1;
    }

    struct warden_child_report report;
    size_t received = 0;
    long long deadline_ms = request->report_timeout_ms > 0 ? monotonic_ms() + request->report_timeout_ms : -1;
    while (received < sizeof report) {
        if (!wait_for_report(report_pipe[0], deadline_ms)) {
            close(report_pipe[0]);
            abandon_child(pid, pidfd);
            fail(result, WARDEN_SPAWN_STAGE_REPORT, ETIMEDOUT, -1);
            return -1;
        }
        ssize_t count = read(report_pipe[0], (char *)&report + received, sizeof report - received);
        if (count < 0) {
            if (errno == EINTR) continue;
            report.stage = WARDEN_SPAWN_STAGE_REPORT;
            report.error_number = errno;
            report.group_index = -1;
            received = sizeof report;
            break;
        }
        if (count == 0) break;
        received += (size_t)count;
    }
    close(report_pipe[0]);

    if (received == 0) {
        result->pid = pid;
        result->pidfd = pidfd;
        result->method = method;
        return 0;
    }

    if (received < sizeof report) {
        report.stage = WARDEN_SPAWN_STAGE_REPORT;
        report.error_number = EPIPE;
        report.group_index = -1;
    }
    // The child exits right after reporting: reap it so no zombie is left behind.
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (pidfd >= 0) close(pidfd);
    fail(result, report.stage, report.error_number, report.group_index);
    return -1;
}
