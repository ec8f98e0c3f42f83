#!/usr/bin/env python3
"""Rule 13 measured on real cgroups: the foreground app's share of the CPU beside busy background apps.

Starts `appwarden serve` on a policy of five apps (the workload is scripts/bench/cpu-workload.py),
then, for each run:
  1. opens `front` alone and measures its rate (loops per 0.5 s; with --frames, missed frames of a
     60 Hz loop doing 5 ms of work per frame);
  2. opens four apps that each begin a background task and spin, one after the other, so that each
     goes on spinning in background;
  3. opens `front` again beside them and measures it the same way;
  4. goes home (front is suspended) and measures the CPU the background apps get then.
It does the same with the classes turned off (equal weights: what the kernel alone gives) and
prints both. Run as root on a host with cgroups, from the repository, with a built appwarden:

    python3 scripts/bench/cpu.py --appwarden .build/release/appwarden [--runs 3] [--frames]

Every group, process and file it makes is removed when it ends, whatever happens.
"""
import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

WORKLOAD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cpu-workload.py")
BACKGROUND = ["bg1", "bg2", "bg3", "bg4"]


class Bench:
    def __init__(self, args, classes):
        self.args = args
        self.classes = classes
        self.directory = tempfile.mkdtemp(prefix="appwarden-bench-cpu-")
        self.socket = os.path.join(self.directory, "appwarden.sock")
        self.root = f"appwarden-bench-cpu-{os.getpid()}"
        self.daemon = None

    def write_policy(self, mode):
        weights = "" if self.classes else "foreground_weight = 100\nbackground_weight = 100\n"
        lines = [f"[cpu]\n{weights}background_limit = \"none\"\n"]
        python = shutil.which("python3")
        env = f'env = {{ APPWARDEN_BIN = "{os.path.abspath(self.args.appwarden)}" }}'
        out = os.path.join(self.directory, "front.out")
        lines.append(f'[apps.front]\ncommand = "{python}"\nargs = ["{WORKLOAD}", "{mode}", "{out}"]\n{env}\n')
        for name in BACKGROUND:
            out = os.path.join(self.directory, f"{name}.out")
            lines.append(
                f'[apps.{name}]\ncommand = "{python}"\nargs = ["{WORKLOAD}", "task", "spin", "{out}"]\n{env}\n')
        policy = os.path.join(self.directory, "policy.toml")
        with open(policy, "w") as file:
            file.write("\n".join(lines))
        return policy

    def call(self, *arguments):
        subprocess.run([self.args.appwarden, *arguments, "--socket", self.socket], check=True,
                       stdout=subprocess.DEVNULL)

    def start(self, mode):
        policy = self.write_policy(mode)
        log = open(os.path.join(self.directory, "daemon.log"), "a")
        self.daemon = subprocess.Popen(
            [self.args.appwarden, "serve", "--policy", policy, "--socket", self.socket, "--state-dir",
             os.path.join(self.directory, "state"), "--cgroup-root", self.root, "--lock-dir",
             os.path.join(self.directory, "run")],
            stdout=log, stderr=log, start_new_session=True)
        log.close()
        deadline = time.monotonic() + 30
        while not os.path.exists(self.socket):
            if self.daemon.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the daemon did not start; see {self.directory}/daemon.log")
            time.sleep(0.05)
        time.sleep(0.2)

    def readings(self, name, since):
        path = os.path.join(self.directory, f"{name}.out")
        if not os.path.exists(path):
            return []
        with open(path) as file:
            return [float(line.split()[1]) for line in file if float(line.split()[0]) >= since]

    def measure(self, name, seconds):
        since = time.monotonic() + 1.0  # the first second settles
        time.sleep(1.0 + seconds)
        return self.readings(name, since)

    def run_once(self, mode):
        self.start(mode)
        try:
            self.call("open", "front")
            alone = self.measure("front", self.args.seconds)
            for name in BACKGROUND:
                self.call("open", name)
                time.sleep(0.5)
            self.call("open", "front")
            beside = self.measure("front", self.args.seconds)
            self.call("home")
            time.sleep(6)  # front is suspended after its 5 s grace
            since = time.monotonic()
            time.sleep(self.args.seconds)
            background = sum(statistics.median(self.readings(name, since) or [0]) for name in BACKGROUND)
            return alone, beside, background
        finally:
            self.stop()

    def stop(self):
        if self.daemon and self.daemon.poll() is None:
            os.killpg(self.daemon.pid, signal.SIGTERM)
            try:
                self.daemon.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.daemon.pid, signal.SIGKILL)
                self.daemon.wait()
        # The daemon leaves its apps running when it stops (for the next start): kill them in
        # every hierarchy first, then remove the groups, deepest first.
        roots = [os.path.join("/sys/fs/cgroup", base, self.root)
                 for base in sorted(os.listdir("/sys/fs/cgroup")) + [""]]
        roots = [root for root in roots if os.path.isdir(root)]
        for root in roots:
            for name in os.listdir(root):
                group = os.path.join(root, name)
                if not os.path.isdir(group):
                    continue
                for control, value in (("cgroup.freeze", "0"), ("freezer.state", "THAWED"), ("cgroup.kill", "1")):
                    try:
                        with open(os.path.join(group, control), "w") as file:
                            file.write(value)
                    except OSError:
                        pass
                try:
                    with open(os.path.join(group, "cgroup.procs")) as file:
                        for pid in file.read().split():
                            try:
                                os.kill(int(pid), signal.SIGKILL)
                            except ProcessLookupError:
                                pass
                except OSError:
                    pass
        for _ in range(100):
            left = []
            for root in roots:
                if not os.path.isdir(root):
                    continue
                for name in os.listdir(root):
                    group = os.path.join(root, name)
                    if os.path.isdir(group):
                        try:
                            os.rmdir(group)
                        except OSError:
                            left.append(group)
                try:
                    os.rmdir(root)
                except OSError:
                    left.append(root)
            if not left:
                break
            time.sleep(0.1)
        for name in os.listdir(self.directory):
            if name.endswith(".out"):
                os.remove(os.path.join(self.directory, name))
        shutil.rmtree(os.path.join(self.directory, "state"), ignore_errors=True)
        shutil.rmtree(os.path.join(self.directory, "run"), ignore_errors=True)

    def clean_up(self):
        shutil.rmtree(self.directory, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--appwarden", required=True)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--frames", action="store_true", help="measure a 60 Hz frame loop's missed frames")
    args = parser.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("run as root: the benchmark makes real cgroups")
    mode = "frames" if args.frames else "spin"
    load = os.getloadavg()[0]
    print(f"== rule 13, {mode}: {args.runs} runs, {args.seconds:g} s each phase, "
          f"{os.cpu_count()} CPUs, load average {load:.2f} at the start")
    for classes in (True, False):
        bench = Bench(args, classes)
        label = "appwarden's classes" if classes else "equal weights (the kernel alone)"
        try:
            results = [bench.run_once(mode) for _ in range(args.runs)]
        finally:
            bench.clean_up()
        for index, (alone, beside, background) in enumerate(results, 1):
            if mode == "spin":
                ratio = statistics.median(beside) / statistics.median(alone)
                print(f"{label}, run {index}: front alone {statistics.median(alone):.0f} loops/0.5 s, "
                      f"beside four busy background apps {statistics.median(beside):.0f} ({ratio:.2f} of alone); "
                      f"the background apps after home {background:.0f} loops/0.5 s in all")
            else:
                frames = 30 * len(alone)
                print(f"{label}, run {index}: missed frames alone {sum(alone):.0f} of {frames}, "
                      f"beside four busy background apps {sum(beside):.0f} of {30 * len(beside)} "
                      f"({100 * sum(beside) / max(1, 30 * len(beside)):.1f} %)")


if __name__ == "__main__":
    sys.exit(main())
