#include "warden_uevent.h"

#include <errno.h>
#include <linux/netlink.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int warden_uevent_open(unsigned int groups) {
    int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_KOBJECT_UEVENT);
    if (fd < 0) return -1;
    int size = 1 << 20;
    (void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
    struct sockaddr_nl address;
    memset(&address, 0, sizeof(address));
    address.nl_family = AF_NETLINK;
    address.nl_groups = groups;
    if (bind(fd, (struct sockaddr *)&address, sizeof(address)) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

long warden_uevent_receive(int fd, char *buffer, size_t capacity, unsigned int *sender) {
    struct sockaddr_nl address;
    socklen_t length = sizeof(address);
    memset(&address, 0, sizeof(address));
    ssize_t received;
    do {
        received = recvfrom(fd, buffer, capacity, 0, (struct sockaddr *)&address, &length);
    } while (received < 0 && errno == EINTR);
    if (received < 0) return -1;
    *sender = address.nl_pid;
    return (long)received;
}
