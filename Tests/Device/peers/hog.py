# Takes memory in 10 MiB steps until only LEAVE MiB (argv[1]) of MemAvailable is left, then holds it.
import sys
import time


def available():
    for line in open("/proc/meminfo"):
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) // 1024


target = available() - int(sys.argv[1])
held = []
while len(held) * 10 < target:
    held.append(b"\x01" * (10 << 20))
    time.sleep(0.1)
print("hog: holding", len(held) * 10, "MiB", flush=True)
time.sleep(3600)
