#!/usr/bin/env bash
# The package under a running systemd, on a machine whose PID 1 is not systemd: boots this machine's own OS in a
# systemd-nspawn container over a throwaway overlay of / (every write goes to a tmpfs), installs the package in
# it and checks what `systemd-analyze verify` cannot: Type=notify readiness and STATUS=, watchdog pings and a
# restart when the daemon stops answering, the restart delay and the start limit, the hardening as applied to the
# process (seccomp with MemoryDenyWriteExecute, no capabilities, the groups), a recording through the installed
# config, a stop that finalises the recording, an upgrade that restarts the service, a purge that keeps the data.
# Optionally the daemon's CPU with MemoryDenyWriteExecute=yes and =no under systemd's own (seccomp) form of it.
#
#   Tests/Package/under_systemd.sh DEB [UPGRADE_DEB] [--mdwe-rounds N]
#
# Not part of `make test`: it needs root and systemd-container (systemd-nspawn) and takes about 2 minutes.
# Not checked here: DeviceAllow (the container has no devices controller: DevicePolicy=strict still lets a unit
# read /dev/zero), and real cameras, sound cards, GPIO chips (there are none).
set -uo pipefail

DEB=${1:?usage: under_systemd.sh DEB [UPGRADE_DEB] [--mdwe-rounds N]}; shift
UPGRADE=""; MDWE_ROUNDS=0
while [ $# -gt 0 ]; do
  case "$1" in
    --mdwe-rounds) MDWE_ROUNDS=$2; shift 2 ;;
    *) UPGRADE=$1; shift ;;
  esac
done
command -v systemd-nspawn >/dev/null || { echo "under-systemd: apt-get install systemd-container" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "under-systemd: must run as root" >&2; exit 2; }

BASE=$(mktemp -d /var/tmp/appliance-under-systemd.XXXXXX)
ROOTFS=$BASE/root
FAILURES=0
NSPAWN_PID=""
say() { echo "under-systemd: $*"; }
ok() { say "ok - $*"; }
fail() { say "FAIL - $*"; FAILURES=$((FAILURES + 1)); }
check() { local what=$1; shift; if "$@"; then ok "$what"; else fail "$what"; fi; }

teardown() {
  if [ -n "$NSPAWN_PID" ] && kill -0 "$NSPAWN_PID" 2>/dev/null; then
    inside systemctl poweroff >/dev/null 2>&1
    for _ in $(seq 1 100); do kill -0 "$NSPAWN_PID" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$NSPAWN_PID" 2>/dev/null && kill -KILL "$NSPAWN_PID"
    wait "$NSPAWN_PID" 2>/dev/null
  fi
  mountpoint -q "$ROOTFS" && umount "$ROOTFS"
  mountpoint -q "$BASE/t" && umount "$BASE/t"
  rm -rf "$BASE"
  # systemd-nspawn's bookkeeping on a host without systemd (empty folders it leaves behind).
  rmdir /run/systemd/nspawn/locks /run/systemd/nspawn/propagate /run/systemd/nspawn 2>/dev/null
}
trap teardown EXIT
trap 'exit 1' INT TERM

# An overlay of / with a tmpfs on top: the container boots this machine's OS and changes nothing on it.
mkdir -p "$BASE/t" "$ROOTFS"
mount -t tmpfs -o size=4G tmpfs "$BASE/t" && mkdir -p "$BASE/t/upper" "$BASE/t/work"
mount -t overlay overlay -o "lowerdir=/,upperdir=$BASE/t/upper,workdir=$BASE/t/work" "$ROOTFS" || { say "cannot mount the overlay"; exit 1; }
cp "$DEB" "$ROOTFS/root/appliance.deb"
[ -n "$UPGRADE" ] && cp "$UPGRADE" "$ROOTFS/root/appliance-upgrade.deb"
# A target with nothing but the basic system, so the host's own services stay off.
printf '[Unit]\nDescription=appliance test\nRequires=basic.target\nAfter=basic.target\nAllowIsolate=yes\n' \
  > "$ROOTFS/etc/systemd/system/appliance-test.target"
# --keep-unit --register=no: there is no systemd or machined on the host to ask for a scope.
systemd-nspawn -D "$ROOTFS" --register=no --keep-unit --link-journal=no --private-network --machine=appliance-test \
  -b -- --unit=appliance-test.target > "$BASE/boot.log" 2>&1 &
NSPAWN_PID=$!
INIT=""
for _ in $(seq 1 100); do INIT=$(pgrep -P "$NSPAWN_PID" -x systemd) && break; sleep 0.1; done
[ -n "$INIT" ] || { cat "$BASE/boot.log"; say "the container did not boot"; exit 1; }
inside() { nsenter -t "$INIT" -a -- env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"; }
for _ in $(seq 1 300); do [ "$(inside systemctl is-system-running 2>/dev/null)" = running ] && break; sleep 0.1; done
ok "systemd $(inside systemctl --version | awk 'NR==1 {print $2}') runs as PID 1 of the container"

# Install. The image's policy-rc.d (if any) forbids starting services from maintainer scripts: set it aside so
# the postinst's start, the upgrade's restart and the prerm's stop run as on a real machine.
inside sh -c '[ -e /usr/sbin/policy-rc.d ] && mv /usr/sbin/policy-rc.d /usr/sbin/policy-rc.d.off'
inside dpkg -i /root/appliance.deb > "$BASE/install.log" 2>&1 || { cat "$BASE/install.log"; fail "dpkg -i"; exit 1; }
show() { inside systemctl show appliance -p "$1" --value; }
for _ in $(seq 1 100); do [ "$(show ActiveState)" = active ] && break; sleep 0.1; done
check "the postinst started the service and it reported READY=1 (active)" [ "$(show ActiveState)" = active ]
check "STATUS= reaches systemd: '$(show StatusText)'" [ -n "$(show StatusText)" ]
first=$(show WatchdogTimestampMonotonic); sleep 7
check "WATCHDOG=1 pings arrive (WatchdogUSec $(show WatchdogUSec))" [ "$(show WatchdogTimestampMonotonic)" != "$first" ]
PID=$(show MainPID)
status=$(inside cat /proc/"$PID"/status)
check "hardening applied: seccomp filter, no new privileges, no capabilities" \
  bash -c "grep -q '^Seccomp:[[:space:]]*2' <<< \"\$1\" && grep -q '^NoNewPrivs:[[:space:]]*1' <<< \"\$1\" && grep -q '^CapEff:[[:space:]]*0*$' <<< \"\$1\"" _ "$status"
groups=$(inside ps -o group=,supgrp= -p "$PID")
check "runs as group appliance with video, audio, input, gpio ($groups)" \
  bash -c "for g in appliance video audio input gpio; do grep -qw \$g <<< \"\$1\" || exit 1; done" _ "$groups"
check "MemoryDenyWriteExecute is on: an RWX mapping is refused in a unit with it" \
  bash -c "! nsenter -t $INIT -a -- systemd-run --wait --pipe -q -p MemoryDenyWriteExecute=yes python3 -c 'import mmap; mmap.mmap(-1, 4096, prot=7)' 2>/dev/null"

ctl() { inside sh -c "cd / && appliance ctl $*"; }
check "appliance ctl status (no flags) answers" eval "ctl status >/dev/null"
ctl record start >/dev/null; sleep 3
clip=$(ctl record stop --json | sed -n 's/.*"path":"\([^"]*\)".*/\1/p')
check "a 3 s recording decodes ($clip)" bash -c "[ -n '$clip' ] && [ -z \"\$(nsenter -t $INIT -a -- ffmpeg -v error -i '$clip' -f null - 2>&1)\" ]"

# A daemon that stops answering (SIGSTOP: no more WATCHDOG=1) is killed and restarted after WatchdogSec.
inside kill -STOP "$PID"
for _ in $(seq 1 450); do [ "$(show MainPID)" != "$PID" ] && [ "$(show ActiveState)" = active ] && break; sleep 0.1; done
check "watchdog: a stopped daemon is restarted (NRestarts $(show NRestarts))" \
  bash -c "[ '$(show MainPID)' != '$PID' ] && nsenter -t $INIT -a -- journalctl -u appliance --no-pager | grep -q \"Failed with result 'watchdog'\""

# Restart=on-failure with RestartSec=2s, and the start limit (5 starts in 5 min) ends it.
kills=0
while [ "$(show ActiveState)" != failed ] && [ $kills -lt 8 ]; do
  PID=$(show MainPID); [ "$PID" != 0 ] && inside kill -KILL "$PID"; kills=$((kills + 1))
  for _ in $(seq 1 50); do s=$(show ActiveState); { [ "$s" = active ] && [ "$(show MainPID)" != "$PID" ]; } || [ "$s" = failed ] && break; sleep 0.1; done
done
delays=$(inside journalctl -u appliance --no-pager -o short-monotonic | grep -c 'Scheduled restart job')
check "start limit: failed after $kills kills ($delays restarts in all, each after RestartSec)" \
  bash -c "[ '$(show ActiveState)' = failed ] && nsenter -t $INIT -a -- journalctl -u appliance --no-pager | grep -q 'Start request repeated too quickly'"

# systemctl stop during a recording: SIGTERM finalises it; the runtime folder goes.
inside systemctl reset-failed appliance; inside systemctl start appliance
ctl record start >/dev/null; sleep 2
inside systemctl stop appliance
check "stop during a recording: exit 0, the file finalised, /run/appliance removed" \
  bash -c "[ '$(show Result)' = success ] && nsenter -t $INIT -a -- journalctl -u appliance --no-pager | grep -q 'before exit' && ! nsenter -t $INIT -a -- test -e /run/appliance"

if [ "$MDWE_ROUNDS" -gt 0 ]; then
  inside mkdir -p /etc/systemd/system/appliance.service.d
  for r in $(seq 1 "$MDWE_ROUNDS"); do
    for m in yes no; do
      inside sh -c "printf '[Service]\nMemoryDenyWriteExecute=$m\n' > /etc/systemd/system/appliance.service.d/mdwe.conf && systemctl daemon-reload && systemctl restart appliance"
      for _ in $(seq 1 100); do ctl --json status 2>/dev/null | grep -q '"ready":true' && break; sleep 0.1; done
      sleep 2; PID=$(show MainPID); ctl record start >/dev/null
      a=$(inside awk '{print $14 + $15}' /proc/"$PID"/stat); t0=$(date +%s.%N); sleep 10
      b=$(inside awk '{print $14 + $15}' /proc/"$PID"/stat); t1=$(date +%s.%N)
      clip=$(ctl record stop --json | sed -n 's/.*"path":"\([^"]*\)".*/\1/p')
      errors=$(inside ffmpeg -v error -i "$clip" -f null - 2>&1 | wc -l)
      say "MemoryDenyWriteExecute=$m round $r: CPU $(python3 -c "print(f'{100 * ($b - $a) / $(getconf CLK_TCK) / ($t1 - $t0):.1f}')")% of one core, decode errors $errors"
    done
  done
  inside rm -f /etc/systemd/system/appliance.service.d/mdwe.conf; inside systemctl daemon-reload
fi

if [ -n "$UPGRADE" ]; then
  inside systemctl start appliance; before=$(show MainPID)
  inside dpkg -i /root/appliance-upgrade.deb > "$BASE/upgrade.log" 2>&1 || { cat "$BASE/upgrade.log"; fail "upgrade"; }
  for _ in $(seq 1 100); do [ "$(show ActiveState)" = active ] && break; sleep 0.1; done
  check "the upgrade restarted the service ($before -> $(show MainPID))" [ "$(show MainPID)" != "$before" -a "$(show ActiveState)" = active ]
fi
inside dpkg --purge appliance > "$BASE/purge.log" 2>&1 || fail "purge"
check "purge stopped the service and kept the recordings" \
  bash -c "! nsenter -t $INIT -a -- pgrep -x appliance >/dev/null && nsenter -t $INIT -a -- test -f '$clip'"

[ "$FAILURES" -eq 0 ] && say "all checks passed" || say "$FAILURES check(s) failed"
exit $((FAILURES > 0))
