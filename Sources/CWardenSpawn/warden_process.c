// Small process and descriptor helpers whose libc forms are macros or unions that Swift
// cannot use directly.

#define _GNU_SOURCE
#include "warden_process.h"

#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_process_madvise
#define SYS_process_madvise 440
#endif
#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif
#ifndef SYS_process_mrelease
#define SYS_process_mrelease 448
#endif
#ifndef P_PIDFD
#define P_PIDFD 3
#endif

int warden_reap(pid_t pid, int pidfd, int no_hang, int peek, struct warden_exit *exit_info) {
    siginfo_t info;
    int options = WEXITED | (no_hang ? WNOHANG : 0) | (peek ? WNOWAIT : 0);
    int result;
    do {
        memset(&info, 0, sizeof info);
        if (pidfd >= 0) {
            result = waitid((idtype_t)P_PIDFD, (id_t)pidfd, &info, options);
        } else {
            result = waitid(P_PID, (id_t)pid, &info, options);
        }
    } while (result < 0 && errno == EINTR);
    if (result < 0 && pidfd >= 0 && errno == EINVAL) {
        // Kernels before 5.4 know pidfds but not P_PIDFD.
        do {
            memset(&info, 0, sizeof info);
            result = waitid(P_PID, (id_t)pid, &info, options);
        } while (result < 0 && errno == EINTR);
    }
    if (result < 0) return -1;
    if (info.si_pid == 0) return 0;
    exit_info->exited = info.si_code == CLD_EXITED;
    exit_info->code = info.si_status;
    return 1;
}

int warden_send_signal(pid_t pid, int pidfd, int signal_number) {
    if (pidfd >= 0) {
        long result = syscall(SYS_pidfd_send_signal, pidfd, signal_number, NULL, 0);
        if (result == 0 || errno != ENOSYS) return result == 0 ? 0 : -1;
    }
    return kill(pid, signal_number);
}

int warden_pidfd_open(pid_t pid) { return (int)syscall(SYS_pidfd_open, pid, 0); }

int warden_process_mrelease(int pidfd) { return (int)syscall(SYS_process_mrelease, pidfd, 0); }

long warden_page_out(int pidfd, const unsigned long *starts, const unsigned long *lengths, size_t count) {
    struct iovec vectors[256];
    long total = 0;
    size_t done = 0;
    while (done < count) {
        size_t batch = count - done < 256 ? count - done : 256;
        for (size_t index = 0; index < batch; index++) {
            vectors[index].iov_base = (void *)starts[done + index];
            vectors[index].iov_len = lengths[done + index];
        }
        long advised;
        do {
            advised = syscall(SYS_process_madvise, pidfd, vectors, batch, MADV_PAGEOUT, 0);
        } while (advised < 0 && errno == EINTR);
        if (advised < 0) return total > 0 ? total : -1;
        total += advised;
        done += batch;
    }
    return total;
}

int warden_eventfd(void) { return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK); }

int warden_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int warden_epoll_add(int epfd, int fd, unsigned int events, unsigned long long key) {
    struct epoll_event event;
    memset(&event, 0, sizeof(event));
    event.events = events;
    event.data.u64 = key;
    return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &event);
}

int warden_epoll_remove(int epfd, int fd) { return epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL); }

int warden_epoll_wait(int epfd, unsigned long long *keys, unsigned int *events, int capacity, int timeout_ms) {
    struct epoll_event ready[64];
    if (capacity > 64) capacity = 64;
    int count = epoll_wait(epfd, ready, capacity, timeout_ms);
    for (int index = 0; index < count; index++) {
        keys[index] = ready[index].data.u64;
        events[index] = ready[index].events;
    }
    return count;
}

unsigned int warden_dev_major(dev_t device) { return major(device); }

unsigned int warden_dev_minor(dev_t device) { return minor(device); }

int warden_malloc_trim(void) {
#ifdef __GLIBC__
    return malloc_trim(0);
#else
    return 0;
#endif
}

int warden_spawn_close_from(posix_spawn_file_actions_t *actions, int from) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
#else
    (void)actions;
    (void)from;
    return ENOSYS;
#endif
}

int warden_mlock_on_fault(void *address, size_t length) {
#ifndef SYS_mlock2
#define SYS_mlock2 325
#endif
#ifndef MLOCK_ONFAULT
#define MLOCK_ONFAULT 0x01
#endif
    if (syscall(SYS_mlock2, address, length, MLOCK_ONFAULT) == 0) return 0;
    return errno;
}
