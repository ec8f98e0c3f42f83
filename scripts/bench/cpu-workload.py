#!/usr/bin/env python3
"""A workload for scripts/bench/cpu.py: an app that wants the CPU.

    cpu-workload.py spin OUT      count loops, appending "TIME COUNT" to OUT every 0.5 s
    cpu-workload.py frames OUT    a 60 Hz frame loop doing 5 ms of work per frame, appending
                                  "TIME MISSED" to OUT every 0.5 s (frames whose work ended
                                  after their deadline)
    cpu-workload.py task MODE OUT begins a background task first (appwarden app begin-task),
                                  then runs MODE

It runs until it is killed.
"""
import os
import subprocess
import sys
import time


def spin(out):
    count = 0
    mark = time.monotonic() + 0.5
    with open(out, "a", buffering=1) as file:
        while True:
            for _ in range(1000):
                count += 1
            now = time.monotonic()
            if now >= mark:
                file.write(f"{now:.3f} {count}\n")
                count = 0
                mark += 0.5


def frames(out, period=1 / 60, work=0.005):
    missed = 0
    next_deadline = time.monotonic() + period
    mark = time.monotonic() + 0.5
    with open(out, "a", buffering=1) as file:
        while True:
            start = time.monotonic()
            while time.monotonic() - start < work:
                pass
            if time.monotonic() > next_deadline:
                missed += 1
            now = time.monotonic()
            if now >= mark:
                file.write(f"{now:.3f} {missed}\n")
                missed = 0
                mark += 0.5
            # Sleep until the frame's deadline, then start the next frame there (or now, if late).
            if next_deadline > now:
                time.sleep(next_deadline - now)
            next_deadline = max(next_deadline + period, time.monotonic())


def main():
    arguments = sys.argv[1:]
    if arguments and arguments[0] == "task":
        subprocess.run([os.environ["APPWARDEN_BIN"], "app", "begin-task", "work"], check=True,
                       stdout=subprocess.DEVNULL)
        arguments = arguments[1:]
    mode, out = arguments
    {"spin": spin, "frames": frames}[mode](out)


if __name__ == "__main__":
    main()
