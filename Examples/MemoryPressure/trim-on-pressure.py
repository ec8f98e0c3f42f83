#!/usr/bin/env python3
"""An app that gives memory back when it is told of memory pressure, the way systemd's services
are told: through the path in $MEMORY_PRESSURE_WATCH (sd-event's sd_event_add_memory_pressure
follows the same convention). It runs unchanged under systemd and under appwarden.

The path may be:
  - a PSI file (a cgroup's memory.pressure, /proc/pressure/memory): write the trigger that
    $MEMORY_PRESSURE_WRITE holds (base64) to it, then every POLLPRI is an event;
  - a Unix socket (what appwarden gives each app): connect to it, then whatever arrives is an event;
  - a FIFO: read it, whatever arrives is an event;
  - /dev/null, or nothing: pressure is not watched.

Each event here drops the app's cache and prints a line; the app holds CACHE_MIB MiB (default 8)
of cache, rebuilt 10 s after it was dropped.
"""
import base64
import os
import select
import socket
import stat
import sys
import time

CACHE_MIB = int(os.environ.get("CACHE_MIB", "8"))


def watch():
    """The object to poll and the poll flag that means an event; None when nothing is watched."""
    path = os.environ.get("MEMORY_PRESSURE_WATCH", "")
    if not path or path == "/dev/null":
        return None
    mode = os.stat(path).st_mode
    if stat.S_ISSOCK(mode):
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        connection.connect(path)
        return connection, select.POLLIN
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
    return bool(data)


def main():
    watched = watch()
    if watched is None:
        print("memory pressure is not watched: MEMORY_PRESSURE_WATCH is not set", flush=True)
    else:
        print(f"watching memory pressure through {os.environ['MEMORY_PRESSURE_WATCH']}", flush=True)
    cache = bytearray(CACHE_MIB << 20)
    dropped_at = None
    poller = select.poll()
    if watched is not None:
        source, flag = watched
        poller.register(source, flag)
    while True:
        for _, events in poller.poll(1000):
            if events & (select.POLLHUP | select.POLLERR) and not events & select.POLLIN:
                print("the memory-pressure endpoint went away; no longer watching", flush=True)
                poller.unregister(source)
                continue
            if flag == select.POLLIN and not drain(source):
                print("the memory-pressure endpoint closed; no longer watching", flush=True)
                poller.unregister(source)
                continue
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
