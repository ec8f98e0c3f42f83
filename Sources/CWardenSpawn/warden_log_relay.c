// The log relay: timestamps an app's output lines and keeps its log file under a size.
//
// It runs in a process forked from a multi-threaded daemon, so it uses system calls and
// static buffers only: no malloc, no stdio, no locale-dependent time functions.

#define _GNU_SOURCE
#include "warden_log_relay.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef SYS_close_range
#define SYS_close_range 436
#endif

#define RELAY_LINE_MAX 16384
#define RELAY_PATH_MAX 4096
#define RELAY_STAMP_LENGTH 25  // "2026-11-23T00:56:19.042Z "

static char relay_line[RELAY_STAMP_LENGTH + RELAY_LINE_MAX + 1];
static char relay_input[65536];

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

static void put_digits(char *out, long value, int width) {
    for (int index = width - 1; index >= 0; index--) {
        out[index] = (char)('0' + value % 10);
        value /= 10;
    }
}

/// Writes "YYYY-MM-DDTHH:MM:SS.mmmZ " for now (CLOCK_REALTIME) into `out`.
static void format_stamp(char *out) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    long long seconds = now.tv_sec;
    long millis = now.tv_nsec / 1000000;
    long long days = seconds / 86400;
    long long rest = seconds % 86400;
    if (rest < 0) {
        rest += 86400;
        days -= 1;
    }
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    long long z = days + 719468;
    long long era = (z >= 0 ? z : z - 146096) / 146097;
    long long doe = z - era * 146097;
    long long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    long long year = yoe + era * 400;
    long long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    long long mp = (5 * doy + 2) / 153;
    long long day = doy - (153 * mp + 2) / 5 + 1;
    long long month = mp < 10 ? mp + 3 : mp - 9;
    if (month <= 2) year += 1;
    put_digits(out, (long)year, 4);
    out[4] = '-';
    put_digits(out + 5, (long)month, 2);
    out[7] = '-';
    put_digits(out + 8, (long)day, 2);
    out[10] = 'T';
    put_digits(out + 11, (long)(rest / 3600), 2);
    out[13] = ':';
    put_digits(out + 14, (long)(rest / 60 % 60), 2);
    out[16] = ':';
    put_digits(out + 17, (long)(rest % 60), 2);
    out[19] = '.';
    put_digits(out + 20, millis, 3);
    out[23] = 'Z';
    out[24] = ' ';
}

/// Builds "PATH.N" into `out`; returns 0, or -1 when it does not fit.
static int numbered_path(char *out, const char *path, int number) {
    size_t length = strlen(path);
    char digits[12];
    int count = 0;
    do {
        digits[count++] = (char)('0' + number % 10);
        number /= 10;
    } while (number > 0 && count < 11);
    if (length + 2 + (size_t)count >= RELAY_PATH_MAX) return -1;
    memcpy(out, path, length);
    out[length] = '.';
    for (int index = 0; index < count; index++) out[length + 1 + index] = digits[count - 1 - index];
    out[length + 1 + count] = '\0';
    return 0;
}

static int open_log(const char *path, long long *size) {
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
    if (fd < 0) return -1;
    struct stat status;
    *size = fstat(fd, &status) == 0 ? (long long)status.st_size : 0;
    return fd;
}

/// PATH.(keep-1) → PATH.keep … PATH → PATH.1, then a fresh PATH.
static int rotate(int fd, const char *path, int keep, long long *size) {
    static char from[RELAY_PATH_MAX];
    static char to[RELAY_PATH_MAX];
    close(fd);
    for (int number = keep - 1; number >= 1; number--) {
        if (numbered_path(from, path, number) == 0 && numbered_path(to, path, number + 1) == 0) {
            rename(from, to);  // a missing file is fine
        }
    }
    if (numbered_path(to, path, 1) == 0) rename(path, to);
    return open_log(path, size);
}

int warden_log_relay_run(int read_fd, const char *path, long long max_size, int keep) {
    if (keep < 1) keep = 1;
    long long size = 0;
    int fd = open_log(path, &size);
    if (fd < 0) return -1;
    size_t used = 0;  // bytes of the current line after the stamp
    int failed = 0;
    for (;;) {
        ssize_t count = read(read_fd, relay_input, sizeof relay_input);
        if (count < 0 && errno == EINTR) continue;
        int at_end = count <= 0;
        for (ssize_t index = 0; index < count || (at_end && used > 0); index++) {
            int finish;
            if (at_end) {
                relay_line[RELAY_STAMP_LENGTH + used++] = '\n';
                finish = 1;
            } else {
                char byte = relay_input[index];
                if (used == 0) format_stamp(relay_line);
                relay_line[RELAY_STAMP_LENGTH + used++] = byte;
                finish = byte == '\n';
                if (!finish && used == RELAY_LINE_MAX) {
                    relay_line[RELAY_STAMP_LENGTH + used++] = '\n';
                    finish = 1;
                }
            }
            if (!finish) continue;
            size_t length = RELAY_STAMP_LENGTH + used;
            if (size > 0 && size + (long long)length > max_size) {
                fd = rotate(fd, path, keep, &size);
                if (fd < 0) return -1;
            }
            if (write_all(fd, relay_line, length) != 0) failed = 1;
            size += (long long)length;
            used = 0;
            if (at_end) break;
        }
        if (at_end) break;
    }
    close(fd);
    return failed ? -1 : 0;
}

/// Names the relay "appwarden-relay" in /proc: its comm (`prctl(PR_SET_NAME)`) and its command
/// line, whose memory (arg_start to arg_end in /proc/self/stat) it overwrites. Forked without an
/// exec, it would otherwise show the daemon's command line, and `pidof appwarden` or
/// `pkill -x appwarden` would take it for the daemon.
static void name_relay(void) {
    static const char name[] = "appwarden-relay";
    static char stat_text[4096];
    prctl(PR_SET_NAME, name, 0, 0, 0);
    int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    ssize_t length;
    while ((length = read(fd, stat_text, sizeof stat_text - 1)) < 0 && errno == EINTR) {
    }
    close(fd);
    if (length <= 0) return;
    stat_text[length] = '\0';
    char *cursor = strrchr(stat_text, ')');
    if (cursor == NULL) return;
    // Fields are numbered from 1; the one after the comm's ')' is field 3. arg_start and
    // arg_end are fields 48 and 49.
    unsigned long long bounds[2] = {0, 0};
    int field = 2;
    for (cursor++; *cursor != '\0' && *cursor != '\n'; cursor++) {
        if (*cursor == ' ') {
            field++;
        } else if ((field == 48 || field == 49) && *cursor >= '0' && *cursor <= '9') {
            bounds[field - 48] = bounds[field - 48] * 10 + (unsigned long long)(*cursor - '0');
        }
    }
    if (bounds[0] == 0 || bounds[1] <= bounds[0]) return;
    char *arguments = (char *)(uintptr_t)bounds[0];
    size_t size = (size_t)(bounds[1] - bounds[0]);
    memset(arguments, 0, size);
    memcpy(arguments, name, size - 1 < sizeof name - 1 ? size - 1 : sizeof name - 1);
}

int warden_log_relay_start(const struct warden_log_relay_request *request, int *write_fd, int *error_number) {
    int pipe_fds[2];
    if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
        *error_number = errno;
        return -1;
    }
    pid_t middle = fork();
    if (middle < 0) {
        *error_number = errno;
        close(pipe_fds[0]);
        close(pipe_fds[1]);
        return -1;
    }
    if (middle == 0) {
        // The middle process waits until the relay has closed every descriptor it inherited
        // from the daemon (the daemon's locks among them) before it exits: the daemon reaps
        // it, so once this call returns no relay holds a copy of anything the daemon opened.
        int ready_fds[2];
        if (pipe2(ready_fds, O_CLOEXEC) != 0) _exit(1);
        pid_t relay = fork();
        if (relay != 0) {
            close(ready_fds[1]);
            char byte = 0;
            ssize_t got;
            while ((got = read(ready_fds[0], &byte, 1)) < 0 && errno == EINTR) {
            }
            _exit(relay < 0 || got != 1 ? 1 : 0);
        }
        close(ready_fds[0]);
        // The relay: join the app's groups, leave the daemon's session, keep only what it needs.
        for (size_t index = 0; index < request->v1_procs_count; index++) {
            (void)!write(request->v1_procs_fds[index], "0", 1);
        }
        if (request->unified_cgroup_fd >= 0) {
            int procs = openat(request->unified_cgroup_fd, "cgroup.procs", O_WRONLY | O_CLOEXEC);
            if (procs >= 0) {
                (void)!write(procs, "0", 1);
                close(procs);
            }
        }
        setsid();
        name_relay();
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        signal(SIGPIPE, SIG_DFL);
        signal(SIGTERM, SIG_IGN);  // the app's SIGTERM is for the app; the relay ends at EOF
        int null_fd = open("/dev/null", O_RDWR);
        dup2(pipe_fds[0], 0);
        if (null_fd >= 0) {
            dup2(null_fd, 1);
            dup2(null_fd, 2);
        }
        // Every descriptor but standard input, output and error, and the ready pipe moved to 3.
        if (dup2(ready_fds[1], 3) < 0) _exit(1);
        if (syscall(SYS_close_range, 4U, ~0U, 0U) != 0) {
            for (int fd = 4; fd < 4096; fd++) close(fd);
        }
        (void)!write(3, "r", 1);
        close(3);
        if (request->executable != NULL) {
            // A fork keeps every page of the daemon, and each page the daemon changes later is
            // copied for it: the relay program keeps only its own few.
            char max_size[32];
            char keep[16];
            snprintf(max_size, sizeof max_size, "%lld", request->max_size);
            snprintf(keep, sizeof keep, "%d", request->keep);
            char *const arguments[] = {"appwarden-relay", (char *)request->path, max_size, keep, NULL};
            char *const environment[] = {"TZ=UTC", NULL};
            execve(request->executable, arguments, environment);
        }
        _exit(warden_log_relay_run(0, request->path, request->max_size, request->keep) == 0 ? 0 : 1);
    }
    close(pipe_fds[0]);
    int status = 0;
    while (waitpid(middle, &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        close(pipe_fds[1]);
        *error_number = EAGAIN;
        return -1;
    }
    *write_fd = pipe_fds[1];
    return 0;
}
