# One workload under one killer, measured from inside the device; run by job.sh, which resets the
# device between runs. Prints one "row:" line of key=value figures (and the daemon's pressure and
# kill lines under appwarden).
#
#   python3 bench.py WORKLOAD KILLER
#
# WORKLOAD: w1 (a legitimate foreground app grows to 340 MiB, about a third of the device, and
# stops, beside four idle apps of 120 MiB), w2 (the foreground app grows without end), w2f (the same
# runaway ten times as fast: 50 MiB every 0.1 s, as far as the device lets it), w1b and w2b (w1 and
# w2 beside four idle apps of 200 MiB: more than memory and the swap hold beside the foreground
# app, so that some app must go before the foreground app stops or passes its fair share), w3 (a day
# of use: seven apps opened in turn, sent home, woken by fetches, with a reader that keeps the page
# cache under pressure, for DAY_SECONDS, default 600), w3m (the same day with every app 1.3 times
# as large: 858 MiB of apps, which fit in memory and the swap together only if the swap takes a
# third of them), w3h (1.6 times: 1,056 MiB of apps on a 1 GiB device, more than memory alone
# holds, so that what the swap keeps decides how many apps live). The idle apps' pages are half compressible
# (ballast --compressible 50), and so are the foreground app's (front.py).
# For w1, w2 and their kin the environment may change the apps, to try other devices' mixes:
# IDLE_APPS (how many idle apps, default 4), IDLE_MIB (each one's size), FRONT_MIB (where w1's
# foreground app stops, default 340), FRONT_STEP and FRONT_INTERVAL (its pace: MiB per step and
# seconds between steps), FRONT_BEFORE=1 (w1 only: the foreground app is launched once before
# the idle apps, grows to FRONT_MIB and is force-quit, so that appwarden has learned its size when
# it is opened again). The row's workload then names what was changed, e.g. w1[IDLE_APPS=6,IDLE_MIB=80].
# For every workload, FAIR_SHARE sets appwarden's device-wide fair_share ("60%": [memory] fair_share;
# the built-in default is 40%), to weigh what each default costs; the row's workload names it too.
# KILLER: appwarden (built-in defaults: the policy names only the apps), appwarden-nocompress
# (the same with compress_suspended = false), appwarden-share (the same with the foreground app's
# fair_share set to 360 MiB, just above the 340 MiB that W1's app reaches, as an operator who knows
# it would), appwarden-least (the same with kill_order = "least_missed"), earlyoom, nohang,
# systemd-oomd, kernel (no killer).
# Under appwarden the apps are its apps; under the others they are services in apps.slice.
#
# Figures: the apps lost (killed by anyone but the workload), the cold launches that a kept app
# would have saved (w3: opening an app that had been killed; w1 and w2: each lost idle app, the
# launch its next opening costs), the foreground app's fate, when memory became short
# (MemAvailable under 10% of MemTotal) after the foreground app started and the first kill after
# that, the lowest MemAvailable, the kernel's OOM kills, the killer's major page faults from the
# sample before the first kill to the sample after the last, the device's memory stall (PSI some
# and full: the highest avg10 sampled and the stall time over the run) and the most swap used;
# under appwarden also the major faults the daemon counts itself from the measurement that chose
# each victim to that kill's end (the sum, then each kill's), and in the log how long its launches
# held the daemon's loop up and the room it made before launches ("room:" lines). In the log under
# every killer: the device's `full` stall in each minute of the run, to see when the stall came,
# and whose it was: the `some` stall of the page-cache reader (w3), of the apps' groups together
# and of each app in each minute, with MemAvailable, Cached and the swap used at each minute's
# end, and how far the reader got in each minute (its CPU time and its reads from the drive);
# under appwarden also the day's fetch wakes, run or skipped ("fetch:" lines).
# Samples are taken about once a second; in a slow guest less often. Each app lost is listed with
# how it ended: under appwarden the reason it journaled; under the others the service's result
# and its main process's status (signal/9: SIGKILL), or systemd-oomd when its log names the kill.
import json
import os
import re
import subprocess
import sys
import time

workload, killer = sys.argv[1], sys.argv[2]
if workload not in ("w1", "w2", "w2f", "w1b", "w2b", "w3", "w3m", "w3h"):
    sys.exit("bench.py: unknown workload %r: w1, w2, w2f, w1b, w2b, w3, w3m or w3h." % workload)
# w1b and w2b are w1 and w2 with larger idle apps.
kind = {"w1b": "w1", "w2b": "w2"}.get(workload, workload)
killers = ("appwarden", "appwarden-nocompress", "appwarden-share", "appwarden-least", "earlyoom", "nohang",
           "systemd-oomd", "kernel")
if killer not in killers:
    sys.exit("bench.py: unknown killer %r: %s." % (killer, ", ".join(killers)))
ballast = "/opt/appwarden/bin/ballast"
under_appwarden = killer.startswith("appwarden")
day = workload in ("w3", "w3m", "w3h")
day_seconds = int(os.environ.get("DAY_SECONDS", "600"))
try:
    slowdown = int(open("/job/out/speed").read().split()[0])
except (OSError, ValueError, IndexError):
    slowdown = 10


def log(*words):
    print("  [%s %s %5.0f s]" % (workload, killer, time.time() - t_start), *words, flush=True)


def meminfo():
    values = {}
    for line in open("/proc/meminfo"):
        key, rest = line.split(":", 1)
        values[key] = int(rest.split()[0]) // 1024
    return values


def psi():
    figures = {}
    for line in open("/proc/pressure/memory"):
        kind, *fields = line.split()
        for field in fields:
            key, value = field.split("=")
            figures[kind + "_" + key] = float(value)
    return figures


# The page-cache reader of the days: its group, and the files it reads over and over.
reader_group = "/sys/fs/cgroup/system.slice/w-reader.service"
reader_files = "/usr /var/lib -xdev -type f -size -4M"


def group_stall():
    """The memory stall (`some` total, us) of the reader and of each app's group, by label."""
    figures = {}
    root = "/sys/fs/cgroup/system.slice/appwarden-apps.scope/appwarden" if under_appwarden else "/sys/fs/cgroup/apps.slice"
    places = {"reader": reader_group, "apps": root}
    for name in apps:
        places[name] = "%s/%s" % (root, name) if under_appwarden else "%s/w-%s.service" % (root, name)
    for label, place in places.items():
        try:
            line = open(place + "/memory.pressure").readline().split()
            figures[label] = int(line[-1].split("=")[1])
        except (OSError, IndexError, ValueError):
            pass
    return figures


def reader_work():
    """What the reader has done so far: its CPU time (us) and what it read from the drive (bytes).

    Its stall alone does not say whether it got on: a reader whose files fall far out of the cache
    stalls less (its re-reads no longer count as its working set) and reads no faster."""
    figures = {}
    try:
        for line in open(reader_group + "/cpu.stat"):
            key, value = line.split()
            if key == "usage_usec":
                figures["cpu"] = int(value)
    except (OSError, ValueError):
        pass
    try:
        for line in open(reader_group + "/io.stat"):
            for field in line.split()[1:]:
                key, _, value = field.partition("=")
                if key == "rbytes":
                    figures["read"] = figures.get("read", 0) + int(value)
    except (OSError, ValueError):
        pass
    return figures


def oom_kills():
    for line in open("/proc/vmstat"):
        if line.startswith("oom_kill "):
            return int(line.split()[1])
    return 0


def proc_fields(pid):
    try:
        return open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    except (OSError, ValueError):
        return None


def alive(pid):
    fields = proc_fields(pid) if pid else None
    return fields is not None and fields[0] not in ("Z", "X")


def major_faults(pid):
    fields = proc_fields(pid) if pid else None
    return int(fields[9]) if fields else None


def held_mib(pid):
    total = 0
    try:
        for line in open("/proc/%d/status" % pid):
            if line.startswith(("VmRSS:", "VmSwap:")):
                total += int(line.split()[1])
    except OSError:
        return 0
    return total // 1024


def unit_end(name):
    """How the service of app `name` ended, as systemd recorded it: "RESULT/STATUS"."""
    fields = run("systemctl", "show", "-p", "Result", "-p", "ExecMainStatus", "--value",
                 "w-%s.service" % name).split()
    return "/".join(fields) or "unknown"


def run(*command, check=False):
    return subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=check).stdout


def status():
    try:
        data = json.loads(run("appwarden", "status", "--json"))
    except ValueError:
        return {}
    apps = data if isinstance(data, list) else data.get("apps", [])
    return {app["name"]: app for app in apps}


def main_pid_of_unit(unit):
    try:
        return int(run("systemctl", "show", "-p", "MainPID", "--value", unit).strip() or 0)
    except ValueError:
        return 0


def killer_pid():
    if under_appwarden:
        return main_pid_of_unit("appwarden")
    if killer == "kernel":
        return 0
    return main_pid_of_unit(killer)


# The apps of each workload: name -> (command line, MiB it holds at start).
variant = {key: os.environ[key]
           for key in ("IDLE_APPS", "IDLE_MIB", "FRONT_MIB", "FRONT_STEP", "FRONT_INTERVAL", "FRONT_BEFORE")
           if os.environ.get(key) and kind in ("w1", "w2", "w2f")}
fair_share = os.environ.get("FAIR_SHARE", "")
if fair_share:
    variant["FAIR_SHARE"] = fair_share
front_mib = int(variant.get("FRONT_MIB", 340))
if kind in ("w1", "w2", "w2f"):
    idle = ["idle%d" % n for n in range(1, int(variant.get("IDLE_APPS", 4)) + 1)]
    idle_mib = int(variant.get("IDLE_MIB", 200 if workload in ("w1b", "w2b") else 120))
    apps = {name: ([ballast, "--hold", str(idle_mib), "--compressible", "50"], idle_mib) for name in idle}
    # w2f: the runaway takes 50 MiB every 0.1 s, ten times w2's pace.
    pace = ["50", "0.1"] if workload == "w2f" else ["10", "0.2"]
    pace = [variant.get("FRONT_STEP", pace[0]), variant.get("FRONT_INTERVAL", pace[1])]
    apps["front"] = (["python3", "/job/front.py", str(front_mib) if kind == "w1" else "0"] + pace, 0)
else:
    sizes = {"mail": 60, "maps": 140, "chat": 80, "camera": 120, "music": 70, "news": 100, "shop": 90}
    if workload == "w3m":
        sizes = {name: mib * 13 // 10 for name, mib in sizes.items()}
    if workload == "w3h":
        sizes = {name: mib * 8 // 5 for name, mib in sizes.items()}
    idle = list(sizes)
    apps = {
        name: ([ballast, "--hold", str(mib), "--compressible", "50", "--grow", "1", "--every", "60s",
                "--fetch", "complete:newData:2s"], mib)
        for name, mib in sizes.items()
    }


def write_policy():
    lines = ["# The peers workload %s under appwarden's built-in defaults; only the apps are named." % workload]
    if day:
        # Fetch wakes often enough to be seen within the day's minutes.
        lines += ["[fetch]", 'minimum_interval = "2m"', ""]
    memory = []
    if killer == "appwarden-nocompress":
        memory.append("compress_suspended = false")
    if killer == "appwarden-least":
        memory.append('kill_order = "least_missed"')
    if fair_share:
        memory.append("fair_share = %s" % json.dumps(fair_share))
    if memory:
        lines += ["[memory]"] + memory + [""]
    for name, (command, _) in apps.items():
        lines.append("[apps.%s]" % name)
        lines.append("command = %s" % json.dumps(command[0]))
        lines.append("args = %s" % json.dumps(command[1:]))
        if day:
            lines.append('background_modes = ["fetch"]')
            lines.append('fetch_interval = "minimum"')
        if killer == "appwarden-share" and name == "front":
            lines += ["[apps.front.memory]", 'fair_share = "360MiB"']
        lines.append("")
    with open("/etc/appwarden/policy.toml", "w") as f:
        f.write("\n".join(lines))


pids = {}  # app -> the pid of its current process
seen_pids = {}  # every pid an app had -> the app
stopped_by_us = set()
launches = {name: 0 for name in apps}
cold_relaunches = 0
foreground = None


def launch_or_open(name):
    """Opens the app as the user would; returns True when that was a cold launch."""
    global foreground
    was_running = alive(pids.get(name))
    if under_appwarden:
        run("appwarden", "open", name)
        for _ in range(10 * slowdown + 20):
            app = status().get(name, {})
            if app.get("pids"):
                pids[name] = min(app["pids"])
                for pid in app["pids"]:
                    seen_pids[pid] = name
                break
            time.sleep(0.5)
    elif not was_running:
        command, _ = apps[name]
        run("systemctl", "reset-failed", "w-%s.service" % name)
        run("systemd-run", "--quiet", "--unit=w-%s" % name, "--slice=apps.slice", *command)
        for _ in range(10 * slowdown + 20):
            pid = main_pid_of_unit("w-%s" % name)
            if pid:
                pids[name] = pid
                seen_pids[pid] = name
                break
            time.sleep(0.5)
    foreground = name
    if not was_running:
        launches[name] += 1
    return not was_running


def wait_for_memory(name, mib):
    deadline = time.time() + 30 * slowdown + 60
    while time.time() < deadline and held_mib(pids.get(name, 0)) < mib - 4:
        time.sleep(1)


# --- the run ---------------------------------------------------------------------------------
t_start = time.time()
if under_appwarden:
    write_policy()
    run("systemctl", "start", "appwarden")
    group = "/sys/fs/cgroup/system.slice"
    try:
        protection = [open("%s/%s" % (where, name)).read().strip()
                      for where in (group, group + "/appwarden.service") for name in ("memory.min", "memory.low")]
        locked = [line.split(":")[1].strip() for line in open("/proc/%d/status" % killer_pid())
                  if line.startswith(("VmLck", "VmRSS"))]
        log("system.slice memory.min/low %s/%s, appwarden.service %s/%s; daemon VmLck %s (locked mappings), VmRSS %s"
            % tuple(protection + locked))
    except (OSError, TypeError) as error:
        log("the daemon's protection could not be read:", error)
oom_before = oom_kills()
dmesg_before = len(run("dmesg").splitlines())
total_mib = meminfo()["MemTotal"]
short_mib = total_mib // 10

if kind == "w1" and variant.get("FRONT_BEFORE") == "1":
    # One launch of the foreground app to its full size before the day, force-quit.
    launch_or_open("front")
    deadline = time.time() + 30 * slowdown + 60
    while time.time() < deadline and held_mib(pids.get("front", 0)) < front_mib - 4:
        time.sleep(1)
    log("front's first launch reached %d MiB" % held_mib(pids.get("front", 0)))
    if under_appwarden:
        run("appwarden", "force-quit", "front")
    else:
        run("systemctl", "stop", "w-front.service")
    while alive(pids.get("front")):
        time.sleep(0.5)
    with open("/run/front.size", "w") as f:
        f.write("0")
    launches["front"] = 0
if kind in ("w1", "w2", "w2f"):
    for name in idle:
        launch_or_open(name)
        wait_for_memory(name, apps[name][1])
    log("idle apps up:", " ".join("%s=%d MiB" % (n, held_mib(pids.get(n, 0))) for n in idle))
    if killer in ("earlyoom", "nohang", "systemd-oomd"):
        run("systemctl", "start", killer)
    launch_or_open("front")
else:
    # What the reader goes through: the files `find -size -4M` picks (3 MiB and under: find rounds
    # a size up to whole MiB). Its stall depends on how much of them the page cache can keep.
    sizes = [int(size) for size in run("find", *reader_files.split(), "-printf", "%s\n").split() if size.isdigit()]
    log("the reader's files: %d, %d MiB" % (len(sizes), sum(sizes) >> 20))
    run("systemd-run", "--quiet", "--unit=w-reader", "sh", "-c",
        "while :; do find %s -exec cat {} + >/dev/null 2>&1; done" % reader_files)
    if killer in ("earlyoom", "nohang", "systemd-oomd"):
        run("systemctl", "start", killer)
t0 = time.time()
kpid = killer_pid()

lowest = meminfo()["MemAvailable"]
peak_swap = 0
psi_start = psi()
peak_some = peak_full = 0.0
short_at = None
kills = []  # (seconds after t0, app, was it the foreground app)
ends = []  # how each of `kills` ended, where the killer's service tells (not under appwarden)
majflt_before_kill = None
majflt_last = major_faults(kpid)
majflt_after_last_kill = None
front_size = 0
front_full_at = None
front_gone_at = None
next_open = 0.0
opens = 0
order = ["mail", "chat", "maps", "mail", "news", "camera", "chat", "music", "shop", "maps", "mail", "news",
         "camera", "music", "chat", "shop", "mail", "maps", "news", "camera"]
appwarden_states = {}
samples = 0
full_stall_seen = {}  # minute of the run -> the device's PSI full total (us) at its last sample
group_stall_seen = {}  # minute of the run -> each group's PSI some total (us) at its last sample
group_stall_start = group_stall()
reader_seen = {}  # minute of the run -> the reader's work so far (reader_work) at its last sample
reader_start = reader_work()
memory_seen = {}  # minute of the run -> (MemAvailable, Cached, swap used) in MiB at its last sample
memory_kills = "-"
kill_majflt = "-"

while True:
    now = time.time() - t0
    info = meminfo()
    lowest = min(lowest, info["MemAvailable"])
    peak_swap = max(peak_swap, info["SwapTotal"] - info["SwapFree"])
    pressure = psi()
    peak_some = max(peak_some, pressure["some_avg10"])
    peak_full = max(peak_full, pressure["full_avg10"])
    full_stall_seen[int(now // 60)] = pressure["full_total"]
    group_stall_seen[int(now // 60)] = group_stall()
    if day:
        reader_seen[int(now // 60)] = reader_work()
    memory_seen[int(now // 60)] = (info["MemAvailable"], info["Cached"], info["SwapTotal"] - info["SwapFree"])
    if short_at is None and info["MemAvailable"] < short_mib:
        short_at = now
    faults = major_faults(kpid)
    samples += 1
    if under_appwarden and day and samples % 10 == 0:
        # Apps that a fetch launched in the background are watched too.
        for name, app in status().items():
            if app.get("pids") and name not in pids:
                pids[name] = min(app["pids"])
                for pid in app["pids"]:
                    seen_pids[pid] = name
    killed_now = False
    for name in list(pids):
        if name in stopped_by_us or alive(pids[name]):
            continue
        kills.append((now, name, name == foreground))
        ends.append(None if under_appwarden or name == "front" else unit_end(name))
        killed_now = True
        del pids[name]
        if name == "front":
            front_gone_at = now
    if killed_now:
        if majflt_before_kill is None:
            majflt_before_kill = majflt_last
        majflt_after_last_kill = faults
    majflt_last = faults

    if kind in ("w1", "w2", "w2f"):
        try:
            front_size = int(open("/run/front.size").read() or 0)
        except (OSError, ValueError):
            pass
        if kind == "w1" and front_full_at is None and front_size >= front_mib:
            front_full_at = now
        settle = front_full_at if kind == "w1" else front_gone_at
        if kind == "w1" and front_gone_at is not None:
            settle = front_gone_at
        if settle is not None and now - settle >= 30:
            break
        if now >= (480 if kind == "w1" else 600):
            break
    else:
        if now >= day_seconds:
            break
        if now >= next_open:
            name = order[opens % len(order)]
            if launch_or_open(name) and launches[name] > 1:
                cold_relaunches += 1
            opens += 1
            # The app is used for a while, then every third time the user goes home.
            if opens % 3 == 0:
                time.sleep(15)
                if under_appwarden:
                    run("appwarden", "home")
                foreground = None
            next_open = now + 40
    time.sleep(1)

end = time.time() - t0
psi_end = psi()
# When the stall came: the device's `full` stall in each minute of the run.
stall_minutes, previous = [], psi_start["full_total"]
for minute in sorted(full_stall_seen):
    stall_minutes.append("%.1f" % ((full_stall_seen[minute] - previous) / 1e6))
    previous = full_stall_seen[minute]
log("full stall in each minute of the run (s):", " ".join(stall_minutes))
# Whose stall it was: each group's `some` stall in each minute (a group of one task stalls fully
# when it stalls at all), and where memory stood at each minute's end.
# A minute in which a group did not exist shows "-"; a group made again (an app relaunched)
# counts from its new start.
previous = group_stall_start
labels = [label for label in ["reader", "apps"] + list(apps) if any(label in seen for seen in group_stall_seen.values())]
by_group = {label: [] for label in labels}
for minute in sorted(group_stall_seen):
    seen = group_stall_seen[minute]
    for label in labels:
        if label not in seen:
            by_group[label].append("-")
            continue
        total, before = seen[label], previous.get(label, 0)
        by_group[label].append("%.1f" % ((total - before if total >= before else total) / 1e6))
    previous = dict(previous, **seen)
for label in labels:
    log("some stall of %s in each minute (s):" % label, " ".join(by_group[label]))
# How far the reader got in each minute: its CPU time, and what it had to read from the drive.
for key, what, unit, scale in (("cpu", "CPU time", "s", 1e6), ("read", "reads from the drive", "MiB", 1 << 20)):
    previous, values = reader_start.get(key), []
    for minute in sorted(reader_seen):
        total = reader_seen[minute].get(key)
        values.append("-" if total is None or previous is None else "%.1f" % ((total - previous) / scale))
        previous = total if total is not None else previous
    if any(value != "-" for value in values):
        log("the reader's %s in each minute (%s):" % (what, unit), " ".join(values))
log("MemAvailable/Cached/swap used at each minute's end (MiB):",
    " ".join("%d/%d/%d" % memory_seen[minute] for minute in sorted(memory_seen)))
oom = oom_kills() - oom_before
dmesg_lines = run("dmesg").splitlines()[dmesg_before:]
oom_victims = set(int(m.group(1)) for line in dmesg_lines for m in [re.search(r"Killed process (\d+)", line)] if m)

if under_appwarden:
    events = run("appwarden", "events", "--json", "--limit", "100000")
    try:
        entries = json.loads(events)
        entries = entries if isinstance(entries, list) else entries.get("events", entries.get("entries", []))
    except ValueError:
        entries = []
    reasons = [(e.get("app"), e.get("properties", {}).get("reason")) for e in entries if e.get("name") == "$AppTerminated"]
    log("terminations (app, reason):", reasons)
    decisions = run("appwarden", "events", "--kind", "decision", "--limit", "100000")
    extended = [line for line in decisions.splitlines() if "window extended" in line]
    log("windows lengthened by the app's own stall:", len(extended))
    for line in decisions.splitlines():
        if "Made room for " in line:
            print("  room:", line)
    # The day's background fetches against the minutes of the run (t0 in UTC).
    log("the run's minute 0 began at", time.strftime("%H:%M:%S", time.gmtime(t0)))
    for line in run("appwarden", "events", "--limit", "100000").splitlines():
        if "fetchStart" in line or "Background fetch skipped" in line:
            print("  fetch:", line[:200])
    for line in extended[-20:]:
        print("  extended:", line)
    memory_kills = sum(1 for _, reason in reasons if reason in ("memoryPressure", "memoryLimit", "kernelOOMKill"))
    journal = run("journalctl", "-u", "appwarden", "--since", "@%d" % int(t_start), "-o", "short-monotonic",
                  "--no-pager")
    # The daemon's own count, from the measurement that chose each victim to the kill's end.
    kill_faults = [int(n) for n in re.findall(r"the daemon took (\d+) major page faults? since the measurement", journal)]
    if kill_faults:
        kill_majflt = "%d (%s)" % (sum(kill_faults), "+".join(map(str, kill_faults)))
        kill_majflt = kill_majflt.replace(" ", "")
    # How long each launch held the daemon's loop up (the group, the limits, the spawn up to execve).
    launch_ms = sorted(int(n) for n in re.findall(r"Launched app \"[^\"]+\" \(.*?\) as process \d+ in (\d+) ms", journal))
    if launch_ms:
        log("launches on the daemon's loop: %d, median %d ms, longest %d ms"
            % (len(launch_ms), launch_ms[len(launch_ms) // 2], launch_ms[-1]))
    lines = [line for line in journal.splitlines() if re.search(r"pressure|kill|critical|warning|compress|swap", line, re.I)]
    for line in lines[-60:]:
        print("  journal:", line)
    for name, app in status().items():
        appwarden_states[name] = (app.get("state"), app.get("footprintBytes", 0) >> 20, app.get("swappedBytes", 0) >> 20)
    log("states at the end (state, footprint MiB, swapped MiB):", appwarden_states)

# How each app lost ended: appwarden's journaled reasons, in order per app; systemd-oomd's own
# log; otherwise what systemd recorded of the service.
reasons_left = {}
if under_appwarden:
    for app, reason in reasons:
        reasons_left.setdefault(app, []).append(reason)
oomd_log = run("journalctl", "-u", "systemd-oomd", "--since", "@%d" % int(t_start), "--no-pager", "-o", "cat")
oomd_killed = re.findall(r"Killed \S*w-([a-z0-9]+)\.service", oomd_log)
log("systemd-oomd at the end: %s; kills it logged in this run: %s"
    % (run("systemctl", "is-active", "systemd-oomd").strip(), ",".join(oomd_killed) or "none"))
labels = []
for (_, name, _), unit_result in zip(kills, ends):
    if under_appwarden:
        how = (reasons_left.get(name) or ["unknown"]).pop(0)
    elif name in oomd_killed:
        oomd_killed.remove(name)
        how = "systemd-oomd"
    else:
        how = unit_result or "unknown"
    labels.append("%s(%s)" % (name, how))
lost = [name for _, name, _ in kills if name != "front"] if not day else [name for _, name, _ in kills]
lost_labels = [label for (_, name, _), label in zip(kills, labels) if day or name != "front"]
if day:
    cold = cold_relaunches
    fg_fate = "killed %d times" % sum(1 for _, _, fg in kills if fg) if any(fg for _, _, fg in kills) else "never killed"
else:
    cold = len(lost)
    if front_gone_at is None:
        fg_fate = "alive (%d MiB)" % front_size
    else:
        fg_fate = "killed at %d MiB" % front_size
first_kill = kills[0][0] if kills else None
if first_kill is None:
    short_to_kill = "-"
elif short_at is None:
    short_to_kill = "never-short"
else:
    short_to_kill = "%+.0f" % (first_kill - short_at)
majflt = "-"
if under_appwarden or killer in ("earlyoom", "nohang", "systemd-oomd"):
    if majflt_before_kill is not None and majflt_after_last_kill is not None:
        majflt = str(majflt_after_last_kill - majflt_before_kill)
    elif not kills:
        majflt = "nokill"
row = {
    "workload": workload + ("[%s]" % ",".join("%s=%s" % item for item in variant.items()) if variant else ""),
    "killer": killer,
    "lost": len(lost),
    "lost_apps": ",".join(lost_labels) or "-",
    "cold": cold,
    "front": fg_fate.replace(" ", "_"),
    "short_s": "-" if short_at is None else "%.0f" % short_at,
    "short_to_kill_s": short_to_kill,
    "lowest_mib": lowest,
    "oom_kills": oom,
    "oom_victims": ",".join(sorted(seen_pids.get(pid, str(pid)) for pid in oom_victims)) or "-",
    "killer_majflt": majflt,
    "kill_majflt": kill_majflt,
    "some_peak": "%.1f" % peak_some,
    "full_peak": "%.1f" % peak_full,
    "some_total_s": "%.1f" % ((psi_end["some_total"] - psi_start["some_total"]) / 1e6),
    "full_total_s": "%.1f" % ((psi_end["full_total"] - psi_start["full_total"]) / 1e6),
    "swap_peak_mib": peak_swap,
    "journaled_memory_kills": memory_kills,
    "seconds": "%.0f" % end,
    "slowdown": slowdown,
}
if day:
    row["opens"] = opens
print("row: " + " ".join("%s=%s" % item for item in row.items()), flush=True)
