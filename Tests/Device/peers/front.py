# The growing foreground app: takes memory in 10 MiB steps for as long as more than LEAVE MiB
# (argv[1]) of MemAvailable are left, so it grows again whenever a killer frees memory, and holds
# what it has once the device is short. Prints its size when it stops growing.
import sys
import time


def available():
    for line in open("/proc/meminfo"):
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) // 1024


leave = int(sys.argv[1])
held = []
reported = 0
while True:
    if available() - 10 > leave:
        held.append(b"\x01" * (10 << 20))
    elif reported != len(held):
        reported = len(held)
        print("front: grew by", reported * 10, "MiB", flush=True)
    time.sleep(0.1)
