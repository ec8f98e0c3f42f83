#!/bin/sh
# device-timeout: 10
# The unit as shipped (Type=notify): `systemctl start` returns once the daemon answers;
# systemctl restart, kill -9 and stop/start of the daemon re-adopt the running and frozen apps
# (same pids, same states, the fetch deadline continuing), and the service comes back each time;
# `systemctl reload` re-reads the policy in the same daemon, and keeps it when the file is broken.
. /job/lib.sh
install_appwarden /job/policy.toml
systemctl --version | head -1

step "start the service and open mail, then maps (mail is suspended)"
systemctl start appwarden
# Type=notify: systemctl start waits for READY=1, sent once the socket accepts calls.
check "the daemon answers as soon as systemctl start returns" appwarden status
check "systemd shows the daemon's status line" sh -c \
  'systemctl show -p StatusText --value appwarden | grep -q "^Serving on /run/appwarden.sock"'
require "the daemon answers" wait_for_daemon 5
appwarden open mail
appwarden open maps
check "mail is suspended" wait_for_state mail 5 suspended
check "maps is active" wait_for_state maps 3 active
before_mail=$(app_line mail)
before_maps=$(app_line maps)
before_wake=$(app_field mail nextWakeMillis)
echo "before: mail=$before_mail maps=$before_maps mail's next fetch wake=$before_wake"
check "mail has a fetch wake planned" test "$before_wake" != None
echo "service group: $(systemctl show -p ControlGroup --value appwarden.service)"
echo "mail group: $(app_group mail)"
check "mail's group is frozen" test "$(cat "$(app_group mail)/cgroup.freeze")" = 1
# systemd 254 and later start the daemon in the service's `daemon` leaf (DelegateSubgroup=daemon).
check "the group systemd starts the daemon in has no controllers enabled for its children" sh -c '
  start=/sys/fs/cgroup$(systemctl show -p ControlGroup --value appwarden.service)
  [ "$(systemctl --version | awk "NR == 1 { print \$2 }")" -ge 254 ] && start=$start/daemon
  [ -z "$(cat "$start/cgroup.subtree_control")" ]'

compare() { # compare WHEN
  check "$1: the service is active" wait_for_active 5
  check "$1: the daemon answers" wait_for_daemon 5
  after_mail=$(app_line mail)
  after_maps=$(app_line maps)
  echo "$1: mail=$after_mail maps=$after_maps"
  check "$1: mail has the same pids and state" test "$after_mail" = "$before_mail"
  check "$1: maps has the same pids and state" test "$after_maps" = "$before_maps"
  check "$1: mail's group is still frozen" test "$(cat "$(app_group mail)/cgroup.freeze")" = 1
  after_wake=$(app_field mail nextWakeMillis)
  echo "$1: mail's next fetch wake=$after_wake (before: $before_wake)"
  # The same instant, to the millisecond rounding of the wall clock's origin at each start.
  check "$1: mail's fetch wake continues (within 1 s of $before_wake)" \
    python3 -c "import sys; sys.exit(0 if abs(int('$after_wake') - int('$before_wake')) <= 1000 else 1)"
}

step "systemctl restart appwarden"
started=$(date +%s)
systemctl restart appwarden
check "restart: systemctl restart succeeds" systemctl is-active --quiet appwarden
compare "restart"
echo "restart took $(($(date +%s) - started)) s"

step "kill -9 of the daemon"
pid=$(systemctl show -p MainPID --value appwarden)
kill -9 "$pid"
i=0
limit=$(within 5)
while [ "$i" -lt "$limit" ]; do
  new=$(systemctl show -p MainPID --value appwarden)
  [ "$new" != 0 ] && [ "$new" != "$pid" ] && break
  sleep 1
  i=$((i + 1))
done
check "kill -9: systemd starts a new daemon" test "$new" != "$pid" -a "$new" != 0
compare "kill -9"

step "systemctl stop, then start"
systemctl stop appwarden
check "stop: mail's processes live on" kill -0 $(echo "$before_mail" | cut -d" " -f2 | tr , " ")
check "stop: maps's processes live on" kill -0 $(echo "$before_maps" | cut -d" " -f2 | tr , " ")
systemctl start appwarden
compare "stop and start"

step "systemctl reload re-reads the policy in the same daemon"
pid=$(systemctl show -p MainPID --value appwarden)
printf '\n[apps.extra]\ncommand = "ballast"\nargs = ["--hold", "1"]\n' >>/etc/appwarden/policy.toml
check "reload: systemctl reload succeeds" systemctl reload appwarden
check "reload: the new app is in the policy in force" sh -c 'appwarden status | grep -q "^extra "'
check "reload: the same daemon runs" test "$(systemctl show -p MainPID --value appwarden)" = "$pid"
# A reload applies mail's fetch interval afresh, so its wake is planned again from now.
before_wake=$(app_field mail nextWakeMillis)
compare "reload"
cp /etc/appwarden/policy.toml /tmp/policy.toml
echo 'foreground_slots = "many"' >/etc/appwarden/policy.toml
check "reload of a broken policy: systemctl reload fails" sh -c '! systemctl reload appwarden'
check "reload of a broken policy: the policy in force stays" sh -c 'appwarden status | grep -q "^extra "'
cp /tmp/policy.toml /etc/appwarden/policy.toml
compare "broken reload"

step "a restart after a restart"
systemctl restart appwarden
compare "second restart"
check "systemd never failed to place the daemon (no 219/CGROUP)" \
  sh -c '! journalctl -u appwarden --no-pager | grep -q "219/CGROUP"'
journalctl -u appwarden --no-pager | grep -iE "error|fail|cgroup" | tail -10
systemctl stop appwarden
finish
