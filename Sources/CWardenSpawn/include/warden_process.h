#ifndef APPWARDEN_PROCESS_H
#define APPWARDEN_PROCESS_H

#include <spawn.h>
#include <stddef.h>
#include <sys/types.h>

/// How a reaped child ended.
struct warden_exit {
    /// Non-zero when the child exited normally; zero when a signal ended it.
    int exited;
    /// The exit status, or the number of the signal that ended the child.
    int code;
};

/// Reaps a child with waitid(P_PIDFD) when `pidfd` is not negative, else waitid(P_PID).
///
/// With `no_hang` it does not wait (WNOHANG); with `peek` it leaves the child reapable
/// (WNOWAIT). Returns 1 when the child has ended, 0 when `no_hang` is set and it is still
/// running, -1 with errno on failure. Retries on EINTR.
int warden_reap(pid_t pid, int pidfd, int no_hang, int peek, struct warden_exit *exit_info);

/// Sends `signal_number` through pidfd_send_signal, or kill() when `pidfd` is negative.
///
/// Returns 0 or -1 with errno.
int warden_send_signal(pid_t pid, int pidfd, int signal_number);

/// Opens a pidfd for any process, child or not, with pidfd_open(2) (close-on-exec).
///
/// Returns it, or -1 with errno (ESRCH: no such process; ENOSYS: the kernel has no pidfds).
int warden_pidfd_open(pid_t pid);

/// Reaps the memory of the dying process `pidfd` refers to (process_mrelease(2), flags 0).
///
/// Returns 0 or -1 with errno: ENOSYS before Linux 5.15, ESRCH once the process is reaped,
/// EINVAL while it has no pending SIGKILL.
int warden_process_mrelease(int pidfd);

/// Asks the kernel to page out the ranges `starts[i]`..`starts[i] + lengths[i]` of the process
/// `pidfd` refers to (process_madvise(2) with MADV_PAGEOUT, Linux 5.10+), 256 ranges a call.
///
/// Returns the bytes advised, or -1 with errno (ENOSYS before Linux 5.10, EPERM without
/// CAP_SYS_NICE, ESRCH once the process is gone).
long warden_page_out(int pidfd, const unsigned long *starts, const unsigned long *lengths, size_t count);

/// Creates a close-on-exec, non-blocking eventfd (eventfd(2)); returns it or -1 with errno.
int warden_eventfd(void);

/// Creates a close-on-exec epoll instance (epoll_create1(2)); returns it or -1 with errno.
int warden_epoll_create(void);

/// Adds `fd` to `epfd` waiting for `events` (the poll(2) bits: POLLIN, POLLPRI); `key` comes
/// back with its readiness events (epoll_ctl(2)). Returns 0 or -1 with errno.
int warden_epoll_add(int epfd, int fd, unsigned int events, unsigned long long key);

/// Removes `fd` from `epfd` (epoll_ctl(2)); returns 0 or -1 with errno.
int warden_epoll_remove(int epfd, int fd);

/// Waits for readiness on `epfd` (epoll_wait(2)), at most `timeout_ms` milliseconds (-1: no
/// timeout), and writes, for each ready descriptor, its key and events into `keys` and `events`
/// (`capacity` each). Returns how many (0 on timeout), or -1 with errno.
int warden_epoll_wait(int epfd, unsigned long long *keys, unsigned int *events, int capacity, int timeout_ms);

/// The major number of a device id (major(3)).
unsigned int warden_dev_major(dev_t device);

/// The minor number of a device id (minor(3)).
unsigned int warden_dev_minor(dev_t device);

/// Returns free heap memory to the kernel with glibc's malloc_trim(0); 0 where the C library
/// has no such call.
int warden_malloc_trim(void);

/// Locks the pages of [address, address + length) that are resident and every page faulted in
/// there later (mlock2 with MLOCK_ONFAULT, Linux 4.4+); returns 0, or an error number.
int warden_mlock_on_fault(void *address, size_t length);

/// Adds to `actions` the closing of every descriptor from `from` up (glibc's
/// posix_spawn_file_actions_addclosefrom_np, 2.34 and later); returns 0, or an error number
/// (ENOSYS where the C library has no such action).
int warden_spawn_close_from(posix_spawn_file_actions_t *actions, int from);

#endif
