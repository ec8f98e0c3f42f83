#!/bin/sh
# device-timeout: 240
# systemctl restart, kill -9 and stop/start of the daemon re-adopt the running and frozen apps:
# same pids, same states, and the service comes back each time.
. /job/lib.sh
install_appwarden /job/policy.toml
systemctl --version | head -1

step "start the service and open mail, then maps (mail is suspended)"
systemctl start appwarden
check "the daemon answers" wait_for_daemon 60
appwarden open mail
appwarden open maps
check "mail is suspended" wait_for_state mail 60 suspended
check "maps is active" wait_for_state maps 30 active
before_mail=$(app_line mail)
before_maps=$(app_line maps)
echo "before: mail=$before_mail maps=$before_maps"
echo "service group: $(systemctl show -p ControlGroup --value appwarden.service)"
echo "mail group: $(app_group mail)"
check "mail's group is frozen" test "$(cat "$(app_group mail)/cgroup.freeze")" = 1
# systemd 254 and later start the daemon in the service's `daemon` leaf (DelegateSubgroup=daemon).
check "the group systemd starts the daemon in has no controllers enabled for its children" sh -c '
  start=/sys/fs/cgroup$(systemctl show -p ControlGroup --value appwarden.service)
  [ "$(systemctl --version | awk "NR == 1 { print \$2 }")" -ge 254 ] && start=$start/daemon
  [ -z "$(cat "$start/cgroup.subtree_control")" ]'

compare() { # compare WHEN
  check "$1: the service is active" systemctl is-active --quiet appwarden
  check "$1: the daemon answers" wait_for_daemon 60
  after_mail=$(app_line mail)
  after_maps=$(app_line maps)
  echo "$1: mail=$after_mail maps=$after_maps"
  check "$1: mail has the same pids and state" test "$after_mail" = "$before_mail"
  check "$1: maps has the same pids and state" test "$after_maps" = "$before_maps"
  check "$1: mail's group is still frozen" test "$(cat "$(app_group mail)/cgroup.freeze")" = 1
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
while [ "$i" -lt 60 ]; do
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

step "a restart after a restart"
systemctl restart appwarden
compare "second restart"
check "systemd never failed to place the daemon (no 219/CGROUP)" \
  sh -c '! journalctl -u appwarden --no-pager | grep -q "219/CGROUP"'
journalctl -u appwarden --no-pager | grep -iE "error|fail|cgroup" | tail -10
systemctl stop appwarden
finish
