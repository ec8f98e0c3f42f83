#!/usr/bin/env python3
"""Where a process's resident and locked memory is, from /proc/PID/smaps: one line per kind of
mapping (the executable's code, its read-only data, its writable data, the heap, thread stacks,
other anonymous memory, shared libraries), largest first, in KiB. For the executable, the ELF
section headers (readelf) split its mappings into .text, .rodata, .eh_frame and the rest.

    python3 scripts/bench/memory-map.py PID
"""
import collections
import os
import re
import subprocess
import sys


def sections(path):
    """(start, end, name) of each allocated section of the ELF file at path, by file offset."""
    out = subprocess.run(["readelf", "-SW", path], capture_output=True, text=True).stdout
    result = []
    for line in out.splitlines():
        m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)", line)
        if m:
            name, _address, offset, size = m.group(1), int(m.group(2), 16), int(m.group(3), 16), int(m.group(4), 16)
            if size:
                result.append((offset, offset + size, name))
    return result


def main():
    pid = sys.argv[1]
    exe = os.readlink(f"/proc/{pid}/exe")
    secs = sections(exe)
    totals = collections.defaultdict(lambda: [0, 0])
    current = None
    with open(f"/proc/{pid}/smaps") as smaps:
        for line in smaps:
            head = re.match(r"([0-9a-f]+)-([0-9a-f]+) (\S+) ([0-9a-f]+) \S+ \d+\s*(.*)", line)
            if head:
                start, end, perms, offset, name = head.groups()
                current = {"start": int(start, 16), "end": int(end, 16), "perms": perms,
                           "offset": int(offset, 16), "name": name.strip()}
                if current["name"] == exe:
                    kind = "executable " + perms
                    # The section under the middle of the mapping names it.
                    middle = current["offset"] + (current["end"] - current["start"]) // 2
                    names = [n for (s, e, n) in secs if s <= current["offset"] < e or s <= middle < e]
                    if names:
                        kind = "executable " + "+".join(sorted(set(names))[:3])
                elif current["name"] == "[heap]":
                    kind = "heap (brk)"
                elif current["name"].startswith("[stack"):
                    kind = "main stack"
                elif current["name"] == "":
                    kind = "anonymous " + perms
                else:
                    kind = os.path.basename(current["name"])
                current["kind"] = kind
                continue
            m = re.match(r"(Rss|Locked):\s+(\d+) kB", line)
            if m and current:
                index = 0 if m.group(1) == "Rss" else 1
                totals[current["kind"]][index] += int(m.group(2))
    print(f"{'mapping':52} {'resident KiB':>13} {'locked KiB':>11}")
    for kind, (rss, locked) in sorted(totals.items(), key=lambda item: -item[1][0]):
        if rss:
            print(f"{kind[:52]:52} {rss:13} {locked:11}")
    print(f"{'total':52} {sum(v[0] for v in totals.values()):13} {sum(v[1] for v in totals.values()):11}")


if __name__ == "__main__":
    main()
