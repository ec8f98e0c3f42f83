#ifndef WARDEN_UEVENT_H
#define WARDEN_UEVENT_H

#include <stddef.h>

/// Opens a close-on-exec, non-blocking socket on the kernel's device events
/// (socket(2) AF_NETLINK, NETLINK_KOBJECT_UEVENT) joined to the multicast `groups` (1: the
/// kernel's own events; 2: udevd's, after its rules), with a 1 MiB receive buffer so that a
/// burst of hot-plugs is not lost. Returns it, or -1 with errno.
int warden_uevent_open(unsigned int groups);

/// Receives one event into `buffer` (recvfrom(2), non-blocking) and writes the sender's netlink
/// port id into `sender` (0: the kernel). Returns its length, or -1 with errno (EAGAIN when none
/// is waiting).
long warden_uevent_receive(int fd, char *buffer, size_t capacity, unsigned int *sender);

#endif
