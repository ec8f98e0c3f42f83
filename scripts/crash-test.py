#!/usr/bin/env python3
"""Crash consistency of `appwarden serve`, measured.

Runs a real daemon on a temporary state directory and cgroup root with four ballast apps, drives
it with a seeded load (opens, homes, pushes, background tasks, fetches) through the command line,
and kills it with SIGKILL at random moments, restarting it each time. After every restart it
checks that:

- every journal record read back after an answered call is still there, unchanged, and every push
  answered "delivered" has its payload record;
- journal ids are strictly increasing with time;
- every app process alive at the kill is adopted by the new daemon, no app runs twice, and no app
  process lives outside its app's group;
- apps frozen at the kill are still frozen (unless the new daemon woke them).

It prints the counts and exits 0 when nothing was lost, 1 otherwise, 2 on a setup problem. It
removes every process, group and directory it made, even when it fails. Needs root, cgroups with a
cgroup2 freezer, and the built appwarden and ballast executables.

    python3 scripts/crash-test.py --kills 20 --seed 1
"""

import argparse
import http.client
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

APPS = ["mail", "chat", "worker", "maps"]
# The cgroup2 mount: beside the v1 hierarchies on a hybrid host, the whole tree on a pure v2 one.
UNIFIED = "/sys/fs/cgroup/unified" if os.path.isdir("/sys/fs/cgroup/unified") else "/sys/fs/cgroup"


class UnixHTTPConnection(http.client.HTTPConnection):
    """HTTP/1.1 over the daemon's Unix socket."""

    def __init__(self, path, timeout=5):
        super().__init__("localhost", timeout=timeout)
        self.path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(self.timeout)
        self.sock.connect(self.path)


class Failure(Exception):
    pass


class CrashTest:
    def __init__(self, args):
        self.args = args
        self.random = random.Random(args.seed)
        self.directory = tempfile.mkdtemp(prefix="appwarden-crash-")
        self.root = f"appwarden-test-crash-{os.getpid()}"
        self.socket = os.path.join(self.directory, "appwarden.sock")
        self.state = os.path.join(self.directory, "state")
        self.daemon = None
        self.seen = {}  # journal id -> (app, name, wall time), read back after answered calls
        self.delivered = set()  # push ids answered "delivered"
        self.last_id = 0
        self.push_number = 0
        self.counts = {"kills": 0, "calls answered": 0, "records checked": 0, "apps re-adopted": 0,
                       "frozen kept": 0, "lost": 0}
        self.problems = []

    # Setup and cleanup

    def write_policy(self):
        ballast = self.args.ballast
        marker = self.directory
        policy = f"""
foreground_slots = 1
[background]
grace = "1s"
[fetch]
minimum_interval = "2s"
coalesce = "100ms"
[apps.mail]
command = "{ballast}"
args = ["--hold", "2", "--fetch", "complete:newData:200ms"]
background_modes = ["fetch"]
fetch_interval = "3s"
env = {{ CRASH_MARK = "{marker}" }}
[apps.chat]
command = "{ballast}"
args = ["--hold", "2", "--push", "complete:newData:200ms"]
background_modes = ["remote-notification"]
env = {{ CRASH_MARK = "{marker}" }}
[apps.worker]
command = "{ballast}"
args = ["--hold", "2", "--begin-task", "sync", "--begin-when-backgrounded", "--on-expiration", "end"]
env = {{ CRASH_MARK = "{marker}" }}
[apps.worker.background]
task_budget = "4s"
expiration_warning = "1s"
[apps.maps]
command = "{ballast}"
args = ["--hold", "4"]
env = {{ CRASH_MARK = "{marker}" }}
"""
        self.policy = os.path.join(self.directory, "policy.toml")
        with open(self.policy, "w") as file:
            file.write(policy)

    def start_daemon(self):
        log = open(os.path.join(self.directory, "daemon.log"), "a")
        self.daemon = subprocess.Popen(
            [self.args.appwarden, "serve", "--policy", self.policy, "--socket", self.socket, "--state-dir",
             self.state, "--cgroup-root", self.root, "--lock-dir", os.path.join(self.directory, "run")],
            stdout=log, stderr=log, start_new_session=True)
        log.close()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.daemon.poll() is not None:
                with open(os.path.join(self.directory, "daemon.log")) as file:
                    said = file.read()[-2000:]
                raise Failure(f"the daemon exited with status {self.daemon.returncode} at start:\n{said}")
            try:
                self.request("GET", "/v1/health")
                return
            except OSError:
                time.sleep(0.05)
        raise Failure("the daemon did not answer on its socket within 30 s")

    def kill_daemon(self):
        if self.daemon and self.daemon.poll() is None:
            self.daemon.send_signal(signal.SIGKILL)
            self.daemon.wait()

    def groups(self):
        """The app group directories of the root in every hierarchy, deepest first."""
        found = []
        bases = [os.path.join("/sys/fs/cgroup", name) for name in sorted(os.listdir("/sys/fs/cgroup"))]
        for base in bases + ["/sys/fs/cgroup"]:
            root = os.path.join(base, self.root)
            if os.path.isdir(root):
                found += [os.path.join(root, name) for name in sorted(os.listdir(root))
                          if os.path.isdir(os.path.join(root, name))]
                found.append(root)
        return found

    def clean_up(self):
        self.kill_daemon()
        for pid in self.marked_processes():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for group in self.groups():
            for name, value in (("cgroup.freeze", "0"), ("freezer.state", "THAWED"), ("cgroup.kill", "1")):
                try:
                    with open(os.path.join(group, name), "w") as file:
                        file.write(value)
                except OSError:
                    pass
        for _ in range(50):
            for group in self.groups():
                try:
                    os.rmdir(group)
                except OSError:
                    pass
            if not self.groups():
                break
            time.sleep(0.1)
        shutil.rmtree(self.directory, ignore_errors=True)

    # The daemon's API

    def request(self, method, path):
        connection = UnixHTTPConnection(self.socket)
        try:
            connection.request(method, path)
            response = connection.getresponse()
            body = response.read()
            if response.status >= 300:
                raise Failure(f"{method} {path} answered {response.status}: {body[:200]!r}")
            return json.loads(body) if body else None
        finally:
            connection.close()

    def journal(self, since=0):
        entries = []
        while True:
            page = self.request("GET", f"/v1/events?since={since}&limit=5000")
            entries += page
            if len(page) < 5000:
                return entries
            since = page[-1]["id"]

    def status(self):
        return {app["name"]: app for app in self.request("GET", "/v1/apps")}

    def call(self, arguments):
        """Runs one command-line call; returns its output when it was answered with success."""
        result = subprocess.run([self.args.appwarden] + arguments + ["--socket", self.socket],
                                capture_output=True, text=True, timeout=30)
        return result.stdout.strip() if result.returncode == 0 else None

    # Processes and groups

    def marked_processes(self):
        """Pids of live processes started for this run (by the CRASH_MARK in their environment)."""
        found = []
        mark = f"CRASH_MARK={self.directory}".encode()
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                with open(f"/proc/{name}/environ", "rb") as file:
                    if mark not in file.read().split(b"\0"):
                        continue
                if self.is_zombie(int(name)):
                    continue
                found.append(int(name))
            except OSError:
                continue
        return found

    @staticmethod
    def is_zombie(pid):
        try:
            with open(f"/proc/{pid}/stat") as file:
                return file.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
        except OSError:
            return True

    @staticmethod
    def app_of(pid):
        with open(f"/proc/{pid}/environ", "rb") as file:
            for item in file.read().split(b"\0"):
                if item.startswith(b"APPWARDEN_APP="):
                    return item.split(b"=", 1)[1].decode()
        return None

    def group_of(self, pid):
        """The app group the process is in, in the unified hierarchy; None outside the root."""
        with open(f"/proc/{pid}/cgroup") as file:
            for line in file:
                _, controllers, path = line.rstrip("\n").split(":", 2)
                if controllers == "":
                    parts = path.strip("/").split("/")
                    if len(parts) >= 2 and parts[-2] == self.root:
                        return parts[-1]
        return None

    def is_frozen(self, app):
        try:
            with open(os.path.join(UNIFIED, self.root, app, "cgroup.freeze")) as file:
                return file.read().strip() == "1"
        except OSError:
            return False

    # The load

    def load(self, stop):
        """Random calls until `stop` is set or the daemon stops answering."""
        while not stop.is_set():
            choice = self.random.random()
            app = self.random.choice(APPS)
            push_id = None
            if choice < 0.35:
                arguments = ["open", app]
            elif choice < 0.55:
                arguments = ["home"]
            elif choice < 0.8:
                self.push_number += 1
                push_id = f"p{self.push_number}"
                payload = json.dumps({"aps": {"content-available": 1}, "n": self.push_number})
                arguments = ["push", "chat", payload, "--id", push_id]
            elif choice < 0.9:
                arguments = ["status"]
            else:
                arguments = ["open", "worker"]
            try:
                answer = self.call(arguments)
            except subprocess.TimeoutExpired:
                answer = None
            if answer is None:
                if self.daemon.poll() is not None:
                    return
                continue
            self.counts["calls answered"] += 1
            if push_id and answer.startswith("delivered"):
                self.delivered.add(push_id)
            try:
                for entry in self.journal(since=self.last_id):
                    self.seen[entry["id"]] = (entry["app"], entry["name"], entry["wallTimeMillis"])
                    self.last_id = max(self.last_id, entry["id"])
            except (OSError, Failure, ValueError):
                if self.daemon.poll() is not None:
                    return
            time.sleep(self.random.uniform(0, 0.3))

    # The checks

    def problem(self, text):
        if text in self.problems:
            return
        self.problems.append(text)
        self.counts["lost"] += 1

    def snapshot_at_kill(self):
        alive = {}
        for pid in self.marked_processes():
            try:
                alive[pid] = self.app_of(pid)
            except OSError:
                pass
        frozen = {app for app in APPS if self.is_frozen(app)}
        return alive, frozen

    def check_after_restart(self, alive, frozen):
        entries = self.journal()
        by_id = {entry["id"]: entry for entry in entries}
        for identifier, (app, name, wall) in self.seen.items():
            self.counts["records checked"] += 1
            entry = by_id.get(identifier)
            if entry is None or (entry["app"], entry["name"], entry["wallTimeMillis"]) != (app, name, wall):
                self.problem(f"journal record {identifier} ({app} {name}) is missing or changed")
        pushed = {entry["properties"].get("id") for entry in entries if entry["name"] == "pushPayload"}
        for push_id in self.delivered - pushed:
            self.problem(f"push {push_id} was answered delivered but has no payload record")
        previous = None
        for entry in entries:
            if previous and (entry["id"] <= previous["id"] or entry["wallTimeMillis"] < previous["wallTimeMillis"]):
                self.problem(f"journal id {entry['id']} ({entry['app']} {entry['name']} at {entry['wallTimeMillis']}) "
                             f"does not follow {previous['id']} ({previous['app']} {previous['name']} at "
                             f"{previous['wallTimeMillis']}) in time order")
            previous = entry

        status = self.status()
        for pid, app in alive.items():
            if self.is_zombie(pid):
                continue
            if pid not in status.get(app, {}).get("pids", []):
                self.problem(f"process {pid} of app {app}, alive at the kill, is not adopted")
            else:
                self.counts["apps re-adopted"] += 1
        running = {}
        for pid in self.marked_processes():
            try:
                app, group = self.app_of(pid), self.group_of(pid)
            except OSError:
                continue
            if group != app:
                self.problem(f"process {pid} of app {app} lives outside its group (in {group})")
            running.setdefault(app, []).append(pid)
        for app, pids in running.items():
            if len(pids) > 1:
                self.problem(f"app {app} runs twice: processes {pids}")
        for app in frozen:
            if status.get(app, {}).get("state") != "suspended":
                continue  # woken by the new daemon (a fetch, a push, a budget that ran out)
            if self.is_frozen(app):
                self.counts["frozen kept"] += 1
            else:
                self.problem(f"app {app}, frozen at the kill and suspended after it, is not frozen")

    def run(self):
        self.write_policy()
        self.start_daemon()
        for number in range(self.args.kills):
            stop = threading.Event()
            worker = threading.Thread(target=self.load, args=(stop,))
            worker.start()
            time.sleep(self.random.uniform(0.5, 3.0))
            alive, frozen = self.snapshot_at_kill()
            self.kill_daemon()
            self.counts["kills"] += 1
            stop.set()
            worker.join()
            self.start_daemon()
            # Let the re-adoption's follow-ups (exits found, wakes due) settle before checking.
            time.sleep(0.3)
            self.check_after_restart(alive, frozen)
            print(f"kill {number + 1}: {len(alive)} app processes at the kill, {len(self.seen)} records so far, "
                  f"lost {self.counts['lost']}", flush=True)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    build = os.path.join(os.path.dirname(here), ".build", "debug")
    parser = argparse.ArgumentParser(description="Kill appwarden serve at random moments and check what survives.")
    parser.add_argument("--kills", type=int, default=20, help="how many times the daemon is killed (default 20)")
    parser.add_argument("--seed", type=int, default=1, help="the seed of the load and the kill moments")
    parser.add_argument("--appwarden", default=os.path.join(build, "appwarden"))
    parser.add_argument("--ballast", default=os.path.join(build, "ballast"))
    args = parser.parse_args()
    if os.geteuid() != 0:
        print("crash-test: needs root (cgroups); skipped.")
        return 0
    # The daemon's log relays run appwarden-relay, found beside appwarden.
    relay = os.path.join(os.path.dirname(os.path.abspath(args.appwarden)), "appwarden-relay")
    for path in (args.appwarden, relay, args.ballast):
        if not os.access(path, os.X_OK):
            print(f"crash-test: {path} is not an executable; build first (swift build).", file=sys.stderr)
            return 2
    if not os.path.exists(os.path.join(UNIFIED, "cgroup.controllers")):
        print("crash-test: needs a cgroup2 mount; skipped.")
        return 0
    test = CrashTest(args)
    try:
        test.run()
    except Failure as failure:
        print(f"crash-test: {failure}", file=sys.stderr)
        test.clean_up()
        return 2
    except BaseException:
        test.clean_up()
        raise
    test.clean_up()
    counts = ", ".join(f"{name} {value}" for name, value in test.counts.items())
    print(f"crash-test (seed {args.seed}): {counts}")
    for text in test.problems:
        print(f"  {text}", file=sys.stderr)
    return 0 if test.counts["lost"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
