// appwarden-relay PATH MAX_SIZE KEEP: appends each line of standard input to PATH, stamped
// with its UTC time, rotating PATH past MAX_SIZE bytes and keeping KEEP rotated files, until
// end of file. The daemon's log relays exec this program once they have joined their groups
// and closed what they inherited, so that a relay holds a few pages of its own rather than a
// copy of every page of the daemon's memory that changes after the fork.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "warden_log_relay.h"

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: appwarden-relay PATH MAX_SIZE KEEP (started by appwarden serve)\n");
        return 2;
    }
    char *end = NULL;
    errno = 0;
    long long max_size = strtoll(argv[2], &end, 10);
    if (errno != 0 || end == argv[2] || *end != '\0' || max_size <= 0) {
        fprintf(stderr, "appwarden-relay: MAX_SIZE must be a positive number of bytes, not \"%s\".\n", argv[2]);
        return 2;
    }
    long keep = strtol(argv[3], &end, 10);
    if (end == argv[3] || *end != '\0' || keep < 1 || keep > 100) {
        fprintf(stderr, "appwarden-relay: KEEP must be a number from 1 to 100, not \"%s\".\n", argv[3]);
        return 2;
    }
    return warden_log_relay_run(0, argv[1], max_size, (int)keep) == 0 ? 0 : 1;
}
