# The foreground app of the peers workloads: takes memory in STEP MiB steps (default 10), one every
# INTERVAL seconds (default 0.2), until it holds TARGET MiB (argv[1]), then holds it; TARGET 0
# grows without end (a runaway). Each page is half pseudo-random bytes and half zeros, so that zram
# compresses it to about half, as an app's heap often compresses (one step's worth is made once and
# copied: zram compresses each page alone and does not merge equal ones). Writes the MiB it holds
# to /run/front.size after each step.
import random
import sys
import time

target = int(sys.argv[1])
step = int(sys.argv[2]) if len(sys.argv) > 2 else 10
interval = float(sys.argv[3]) if len(sys.argv) > 3 else 0.2
page = 4096


def chunk(mib):
    size = mib << 20
    data = bytearray(size)
    noise = memoryview(random.randbytes(size // 2))
    view = memoryview(data)
    half = page // 2
    for i in range(size // page):
        view[i * page : i * page + half] = noise[i * half : (i + 1) * half]
    return data


template = bytes(chunk(step))
held = []
while target == 0 or len(held) * step < target:
    held.append(bytearray(template))
    with open("/run/front.size", "w") as f:
        f.write(str(len(held) * step))
    time.sleep(interval)
print("front: holding", len(held) * step, "MiB", flush=True)
while True:
    time.sleep(3600)
