#!/bin/sh
# device-timeout: 15
# appwarden's Debian package on a device without Swift, as an operator uses it: apt installs it
# and the library it needs from the device's repository; the service is enabled, running and
# answering; the policy is a conffile; the manual page and the bash, zsh and fish completions are
# in place; an edited policy takes effect with `systemctl reload`, and its apps launch and are
# suspended; `dpkg -r` stops the apps and the service and keeps the edited policy, which a new
# installation keeps too; `dpkg --purge` deletes the policy and the daemon's state.
. /job/lib.sh
policy=/etc/appwarden/policy.toml

step "a device without Swift"
check "no Swift runtime library is on the device" sh -c '! ldconfig -p | grep -q libswift && [ ! -e /opt/swift ] && [ ! -e /usr/lib/swift ]'
check "libcgroup2 is not installed before the package" sh -c '! dpkg -s libcgroup2 >/dev/null 2>&1'
ln -sf /opt/appwarden/bin/ballast /usr/local/bin/ballast

step "apt-get install ./appwarden_*.deb"
started=$(date +%s)
check "apt installs the package" install_package
echo "apt took $(($(date +%s) - started)) s"
grep -E "^(Setting up|Unpacking|The following NEW)" /job/out/apt.log
check "the package is installed" test "$(dpkg-query -W -f='${Status}' appwarden)" = "install ok installed"
check "apt brought libcgroup2, from the package's Depends" sh -c 'dpkg -s libcgroup2 >/dev/null'
check "appwarden finds every library it loads" sh -c '! ldd /usr/bin/appwarden | grep -q "not found"'
check "appwarden loads no Swift runtime" sh -c '! ldd /usr/bin/appwarden | grep -q libswift'
check "appwarden --version is the package's version" \
  test "$(appwarden --version)" = "$(dpkg-query -W -f='${Version}' appwarden | sed 's/-[^-]*$//')"

step "the service: enabled, running, answering"
check "appwarden.service is enabled" test "$(systemctl is-enabled appwarden)" = enabled
check "appwarden.service is active" wait_for_active 5
check "appwarden status answers" wait_for_daemon 5
check "the unit starts /usr/bin/appwarden" sh -c 'systemctl show -p ExecStart --value appwarden | grep -q "path=/usr/bin/appwarden "'
check "systemd made the state directory /var/lib/appwarden" test -d /var/lib/appwarden
check "systemd made the runtime directory /run/appwarden, with the daemon's lock in it" \
  test -f /run/appwarden/cgroup-appwarden.lock
check "the socket is /run/appwarden.sock" test -S /run/appwarden.sock
service_group=/sys/fs/cgroup/system.slice/appwarden.service
check "the unit's MemoryMin= (48M) is the service group's memory.min" test "$(cat $service_group/memory.min)" = 50331648
check "the unit's MemoryLow= (64M) is the service group's memory.low" test "$(cat $service_group/memory.low)" = 67108864
check "system.slice carries the same protection (the package's drop-in)" \
  test "$(cat /sys/fs/cgroup/system.slice/memory.min) $(cat /sys/fs/cgroup/system.slice/memory.low)" = "50331648 67108864"
check "no real-time priority unless asked for (CPUSchedulingPolicy= commented out)" \
  test "$(chrt -p "$(systemctl show -p MainPID --value appwarden)" | sed -n '1s/.*policy: //p')" = SCHED_OTHER
echo "the service's memory: $(($(cat $service_group/memory.current) >> 20)) MiB charged;" \
  "daemon $(grep -E '^(VmRSS|VmLck)' /proc/"$(systemctl show -p MainPID --value appwarden)"/status | tr -s ' \n' ' ')"

step "the policy, the manual page, the completions"
check "/etc/appwarden/policy.toml is a conffile" sh -c \
  "dpkg-query -W -f='\${Conffiles}\n' appwarden | grep -q '^ $policy '"
check "the shipped policy is valid" appwarden policy check "$policy"
check "the manual page is installed" test -f /usr/share/man/man1/appwarden.1.gz
check "the manual page is appwarden(1)" sh -c 'zcat /usr/share/man/man1/appwarden.1.gz | grep -q "^\.Dt APPWARDEN 1"'
for command in serve open home status events explain top policy simulate app; do
  check "the manual page describes $command" sh -c \
    "zcat /usr/share/man/man1/appwarden.1.gz | grep -q '^\.It Em $command\$'"
done
check "bash completes appwarden" bash -c \
  '. /usr/share/bash-completion/completions/appwarden && complete -p appwarden'
check "zsh's completion for appwarden is installed" sh -c \
  'head -1 /usr/share/zsh/vendor-completions/_appwarden | grep -q "^#compdef appwarden"'
check "fish's completion for appwarden is installed" \
  grep -q "^complete -c 'appwarden'" /usr/share/fish/vendor_completions.d/appwarden.fish

step "an edited policy, reloaded: its apps launch and are suspended"
pid=$(systemctl show -p MainPID --value appwarden)
cat /job/apps.toml >>"$policy"
check "systemctl reload succeeds" systemctl reload appwarden
check "the reload kept the same daemon" test "$(systemctl show -p MainPID --value appwarden)" = "$pid"
check "the edited policy is in force" sh -c 'appwarden status | grep -q "^mail " && appwarden status | grep -q "^maps "'
appwarden open mail
appwarden open maps
check "mail is suspended" wait_for_state mail 8 suspended
check "maps is active" wait_for_state maps 3 active
check "each app's log relay runs the packaged /usr/lib/appwarden/appwarden-relay" sh -c '
  relays=$(pgrep -x appwarden-relay) && [ "$(echo "$relays" | wc -l)" -ge 2 ] || exit 1
  for pid in $relays; do [ "$(readlink /proc/$pid/exe)" = /usr/lib/appwarden/appwarden-relay ] || exit 1; done'
check "appwarden-relay finds every library it loads" sh -c '! ldd /usr/lib/appwarden/appwarden-relay | grep -q "not found"'
# C alone, without the Swift runtime: a few pages of its own per app (360 KiB with the runtime).
check "each relay holds under 200 KiB of anonymous memory" sh -c '
  for pid in $(pgrep -x appwarden-relay); do
    [ "$(awk "/^RssAnon:/ {print \$2}" /proc/$pid/status)" -lt 200 ] || exit 1
  done'
mail_pids=$(app_line mail | cut -d" " -f2 | tr , " ")
maps_pids=$(app_line maps | cut -d" " -f2 | tr , " ")
echo "mail: $mail_pids, maps: $maps_pids"

step "dpkg -r appwarden"
started=$(date +%s)
check "dpkg -r succeeds" dpkg -r appwarden
echo "dpkg -r took $(($(date +%s) - started)) s"
check "the package is removed, its configuration kept" \
  test "$(dpkg-query -W -f='${Status}' appwarden)" = "deinstall ok config-files"
check "the service is stopped" sh -c '! systemctl is-active --quiet appwarden'
check "no appwarden process is left" sh -c '! pgrep -x appwarden'
check "the apps were stopped with the service" sh -c "! kill -0 $mail_pids $maps_pids 2>/dev/null"
check "the socket is gone" test ! -e /run/appwarden.sock
check "the apps' scope (systemd 252 and 253) has ended, not failed" sh -c \
  '! systemctl is-active --quiet appwarden-apps.scope && ! systemctl is-failed --quiet appwarden-apps.scope'
check "the executable and the unit are gone" test ! -e /usr/bin/appwarden -a ! -e /lib/systemd/system/appwarden.service
check "system.slice's drop-in is gone with the package" test ! -e /lib/systemd/system/system.slice.d/appwarden.conf
check "the edited policy is kept" grep -q '^\[apps.mail\]' "$policy"

step "installed again: the edited policy stays in force"
check "dpkg -i installs the package again" sh -c 'dpkg -i /job/packages/appwarden_*.deb >>/job/out/apt.log 2>&1'
check "the edited policy is still there" grep -q '^\[apps.mail\]' "$policy"
check "the service runs again" wait_for_daemon 5 || journalctl -u appwarden --no-pager | tail -20
check "the daemon runs the edited policy" sh -c 'appwarden status | grep -q "^mail "'

step "dpkg --purge appwarden"
check "dpkg --purge succeeds" dpkg --purge appwarden
check "the package is gone" sh -c '! dpkg-query -W -f="\${Status}" appwarden 2>/dev/null | grep -q installed'
check "the policy is deleted" test ! -e "$policy"
check "the daemon's state is deleted" test ! -e /var/lib/appwarden
check "the service is no longer enabled" test ! -e /etc/systemd/system/multi-user.target.wants/appwarden.service
finish
