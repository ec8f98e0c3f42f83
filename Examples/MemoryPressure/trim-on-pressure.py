#!/usr/bin/env python3
"""An app that gives memory back when it is told of memory pressure, the way systemd's services
are told: through the path in $MEMORY_PRESSURE_WATCH (sd-event's sd_event_add_memory_pressure
follows the same convention). It runs unchanged under systemd and under appwarden.

The path may be:
  - a PSI file (a cgroup's memory.pressure, /proc/pressure/memory): write the trigger that
    $MEMORY_PRESSURE_WRITE holds (base64) to it, then every POLLPRI is an event;
  - a Unix socket (what appwarden gives each app): connect to it, then whatever arrives is an event;
    when the other end hangs up (the daemon stopped, or was killed and restarted) connect to the
    same path again, with backoff from 50 ms doubling to 2 s, until a daemon listens there again;
  - a FIFO: read it, whatever arrives is an event; when its writer closes it (a daemon that
    stopped), open it again and go on reading, for the next writer;
  - /dev/null, or nothing: pressure is not watched.

Each event here drops the app's cache and prints a line; the app holds CACHE_MIB MiB (default 8)
of cache, rebuilt 10 s after it was dropped.
"""
import base64
import os
import random
import select
import socket
import stat
import sys
import time

CACHE_MIB = int(os.environ.get("CACHE_MIB", "8"))
FIRST_RETRY = 0.05
LAST_RETRY = 2.0


class SocketWatch:
    """A Unix socket that is connected again, with backoff, whenever the other end hangs up."""

    def __init__(self, path):
        self.path = path
        self.connection = None
        self.delay = FIRST_RETRY
        self.next_attempt = time.monotonic()

    def connect(self):
        """Tries to connect once when an attempt is due; True when it is connected now."""
        if self.connection is not None:
            return True
        if time.monotonic() < self.next_attempt:
            return False
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            connection.connect(self.path)
        except OSError:
            connection.close()
            # Jitter keeps the processes of several apps from knocking at the same moment.
            self.next_attempt = time.monotonic() + self.delay * random.uniform(0.5, 1.0)
            self.delay = min(self.delay * 2, LAST_RETRY)
            return False
        self.connection = connection
        self.delay = FIRST_RETRY
        return True

    def hang_up(self):
        """Closes the connection and tries the path again at once, then with backoff."""
        self.connection.close()
        self.connection = None
        self.next_attempt = time.monotonic()

    def wait(self):
        """How long, in milliseconds, the poll may wait before the next attempt is due."""
        if self.connection is not None:
            return 1000
        return max(0, min(1000, int((self.next_attempt - time.monotonic()) * 1000)))


def watch():
    """What to watch: a SocketWatch, or a descriptor and the poll flag that means an event; None
    when nothing is watched."""
    path = os.environ.get("MEMORY_PRESSURE_WATCH", "")
    if not path or path == "/dev/null":
        return None
    mode = os.stat(path).st_mode
    if stat.S_ISSOCK(mode):
        return SocketWatch(path)
    if stat.S_ISFIFO(mode):
        return os.open(path, os.O_RDONLY | os.O_NONBLOCK), select.POLLIN
    trigger = base64.b64decode(os.environ.get("MEMORY_PRESSURE_WRITE", ""))
    descriptor = os.open(path, os.O_RDWR | os.O_NONBLOCK)
    if trigger:
        os.write(descriptor, trigger)
    return descriptor, select.POLLPRI


def drain(source):
    """Reads what a socket or FIFO event carries; False when the other end went away."""
    try:
        data = source.recv(4096) if isinstance(source, socket.socket) else os.read(source, 4096)
    except BlockingIOError:
        return True
    except OSError:
        return False
    return bool(data)


def main():
    path = os.environ.get("MEMORY_PRESSURE_WATCH", "")
    watched = watch()
    if watched is None:
        print("memory pressure is not watched: MEMORY_PRESSURE_WATCH is not set", flush=True)
    cache = bytearray(CACHE_MIB << 20)
    dropped_at = None
    poller = select.poll()
    sockets = watched if isinstance(watched, SocketWatch) else None
    source, flag = None, select.POLLIN
    if sockets is None and watched is not None:
        source, flag = watched
        poller.register(source, flag)
        print(f"watching memory pressure through {path}", flush=True)
    while True:
        if sockets is not None and source is None and sockets.connect():
            source = sockets.connection
            poller.register(source, flag)
            print(f"watching memory pressure through {path}", flush=True)
        for _, events in poller.poll(sockets.wait() if sockets is not None else 1000):
            gone = events & (select.POLLHUP | select.POLLERR) and not events & select.POLLIN
            if gone or (flag == select.POLLIN and not drain(source)):
                poller.unregister(source)
                if sockets is not None:
                    print("the memory-pressure endpoint closed; connecting to it again", flush=True)
                    sockets.hang_up()
                    source = None
                elif stat.S_ISFIFO(os.fstat(source).st_mode):
                    # Opened again, the FIFO reports no hang-up until a new writer comes and goes.
                    os.close(source)
                    source = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
                    poller.register(source, flag)
                    print("the memory-pressure FIFO's writer closed it; reading it again", flush=True)
                else:
                    print("the memory-pressure endpoint closed; no longer watching", flush=True)
                break
            print(f"memory pressure: dropped {len(cache) >> 20} MiB of cache", flush=True)
            cache = bytearray()
            dropped_at = time.monotonic()
        if dropped_at is not None and time.monotonic() - dropped_at > 10:
            cache = bytearray(CACHE_MIB << 20)
            dropped_at = None


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit(0)
