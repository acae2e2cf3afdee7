#!/usr/bin/env bash
# The Debian package, end to end, on THIS machine (run as root by Tests/EndToEndTests/PackageTests.swift):
# contents, lintian, systemd-analyze verify, install, the user and its groups, the installed binary recording
# 2 s as the user appliance on the installed config alone, `appliance ctl` with no flags, an upgrade that keeps
# a changed config and the data, and a purge that keeps the recordings. Everything it made is removed after.
#
#   Tests/Package/test_deb.sh DEB [BINARY]
#     DEB     the package to test (make deb: .build-deb/appliance_<version>_<arch>.deb)
#     BINARY  the binary the package holds (release, or make deb-check's), to build the upgrade package
#             (default .build-release/release/appliance)
#
# Safety: it installs onto this machine, so it refuses (exit 77: skipped) when a real installation may be
# here — the package installed, /var/lib/appliance, /etc/appliance or the user appliance present — unless
# those are a previous run's leftovers (it records what it creates in $STATE) or CI=true or
# APPLIANCE_PACKAGE_TEST=1 says this machine may be used. Even then it never deletes recordings it did not
# make: a /var/lib/appliance that was here before is renamed aside for the test and renamed back after.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DEB=${1:?usage: test_deb.sh DEB [BINARY]}
BINARY=${2:-$ROOT/.build-release/release/appliance}
STATE=/var/tmp/appliance-package-test          # what this test created, for cleanup (also after a crash)
WORK=$(mktemp -d /tmp/appliance-package-test.XXXXXX)
chmod 0755 "$WORK"                              # the daemon (user appliance) writes its log here
DATA=/var/lib/appliance
SET_ASIDE=""
DAEMON_PID=""
RUNNER_PID=""
FAILURES=0
T0=$(date +%s)

say() { echo "package-test: $*"; }
ok() { say "ok - $*"; }
fail() { say "FAIL - $*"; FAILURES=$((FAILURES + 1)); }
fatal() { say "FAIL - $*"; FAILURES=$((FAILURES + 1)); exit 1; }
check() { # DESCRIPTION COMMAND... : ok when the command succeeds
  local what=$1; shift
  if "$@"; then ok "$what"; else fail "$what"; fi
}

[ "$(id -u)" = 0 ] || { say "skipped: must run as root (it installs the package)"; exit 77; }
[ -f "$DEB" ] || fatal "no package at $DEB"
for tool in dpkg dpkg-deb lintian systemd-analyze ffprobe ffmpeg runuser getent useradd; do
  command -v "$tool" >/dev/null || fatal "$tool is missing (packaging/install-deps.sh --test installs it)"
done

# --- Is this machine ours to use? -------------------------------------------------------------------------
consent=""
if [ "${CI:-}" = true ] || [ "${APPLIANCE_PACKAGE_TEST:-}" = 1 ]; then consent=yes; fi
leftover=""
[ -f "$STATE/created" ] && leftover=yes
present=()
dpkg-query -W -f='${Status}' appliance 2>/dev/null | grep -q 'ok installed\|config-files' && present+=("the appliance package")
[ -e "$DATA" ] && present+=("$DATA")
[ -e /etc/appliance ] && present+=("/etc/appliance")
getent passwd appliance >/dev/null && present+=("the user appliance")
if [ ${#present[@]} -gt 0 ] && [ -z "$leftover" ] && [ -z "$consent" ]; then
  say "skipped: this machine has ${present[*]}; set APPLIANCE_PACKAGE_TEST=1 to let the test purge the package"
  say "(recordings in $DATA are set aside and put back, never deleted)"
  exit 77
fi

# --- Cleanup: what this run or a crashed earlier run made, and nothing else -------------------------------
stop_daemon() {
  if [ -n "$DAEMON_PID" ] && kill -0 "$DAEMON_PID" 2>/dev/null; then
    kill -TERM "$DAEMON_PID"
    for _ in $(seq 1 300); do kill -0 "$DAEMON_PID" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$DAEMON_PID" 2>/dev/null && kill -KILL "$DAEMON_PID"
  fi
  [ -n "$RUNNER_PID" ] && wait "$RUNNER_PID" 2>/dev/null
  DAEMON_PID=""; RUNNER_PID=""
}
created() { grep -qx "$1" "$STATE/created" 2>/dev/null; }
cleanup() {
  stop_daemon
  if [ -f "$STATE/daemon.pid" ]; then                 # a daemon a crashed earlier run left running
    pid=$(cat "$STATE/daemon.pid")
    if [ "$(cat /proc/"$pid"/comm 2>/dev/null)" = appliance ]; then kill -TERM "$pid"; sleep 2; kill -KILL "$pid" 2>/dev/null; fi
    rm -f "$STATE/daemon.pid"
  fi
  if dpkg-query -W -f='${Status}' appliance 2>/dev/null | grep -q 'installed\|config-files'; then
    dpkg --purge appliance >"$WORK/cleanup-purge.log" 2>&1 || { say "cleanup: dpkg --purge failed:"; cat "$WORK/cleanup-purge.log"; }
  fi
  if created data || [ -n "$SET_ASIDE" ]; then rm -rf "$DATA"; fi
  rm -rf /var/cache/appliance /run/appliance /etc/appliance
  rm -f /etc/systemd/system/multi-user.target.wants/appliance.service
  if created user && getent passwd appliance >/dev/null; then userdel appliance; fi
  if created user && getent group appliance >/dev/null; then groupdel appliance; fi
  if created gpio && getent group gpio >/dev/null; then groupdel gpio; fi
  if [ -n "$SET_ASIDE" ] && [ -e "$SET_ASIDE" ]; then mv "$SET_ASIDE" "$DATA" && say "put $DATA back"; fi
  rm -rf "$STATE" "$WORK"
}
if [ -n "$leftover" ]; then
  say "cleaning up an earlier run's leftovers ($(tr '\n' ' ' < "$STATE/created"))"
  cleanup
fi
mkdir -p "$STATE" "$WORK"
chmod 0755 "$WORK"
: > "$STATE/created"
trap 'cleanup; say "took $(( $(date +%s) - T0 )) s"' EXIT
trap 'exit 1' INT TERM

# Consent given and things present: purge the package (dpkg keeps recordings) and set the data aside.
if dpkg-query -W -f='${Status}' appliance 2>/dev/null | grep -q 'installed\|config-files'; then
  say "purging the installed appliance package first"
  dpkg --purge appliance >/dev/null || fatal "could not purge the installed appliance package"
fi
if [ -e "$DATA" ]; then
  SET_ASIDE="$DATA.set-aside-by-package-test.$(date +%s)"
  mv "$DATA" "$SET_ASIDE" || fatal "could not set $DATA aside"
  say "set $DATA aside as $SET_ASIDE (put back at the end)"
fi
getent passwd appliance >/dev/null || echo user >> "$STATE/created"
getent group gpio >/dev/null || echo gpio >> "$STATE/created"
echo data >> "$STATE/created"

VERSION=$(dpkg-deb -f "$DEB" Version)
ARCH=$(dpkg-deb -f "$DEB" Architecture)
say "testing $DEB (version $VERSION, $ARCH, $(du -h "$DEB" | cut -f1))"

# --- 1. Contents ------------------------------------------------------------------------------------------
dpkg-deb -c "$DEB" | awk '{print $6}' | sed 's|^\./|/|; s|/$||' > "$WORK/contents"
for path in /usr/bin/appliance /usr/share/appliance/pipelines/encoders/x264.gst \
            /usr/share/appliance/pipelines/sources/video-test.gst /usr/share/appliance/pipelines/previews/kms.gst \
            /etc/appliance/appliance.toml /usr/share/doc/appliance/examples/dashcam.toml \
            /usr/share/doc/appliance/examples/kiosk.toml /lib/systemd/system/appliance.service \
            /lib/systemd/system/appliance.service.d/restart-backoff.conf /usr/lib/sysusers.d/appliance.conf \
            /usr/lib/tmpfiles.d/appliance.conf /lib/udev/rules.d/60-appliance.rules \
            /usr/share/man/man1/appliance.1.gz /usr/share/doc/appliance/copyright \
            /usr/share/doc/appliance/changelog.gz /usr/lib/appliance/appliance-kiosk \
            /lib/systemd/system/appliance-kiosk.service; do
  grep -qxF "$path" "$WORK/contents" || fail "the package lacks $path"
done
[ "$(dpkg-deb -c "$DEB" | awk '$6 == "./usr/bin/appliance" {print $1, $2}')" = "-rwxr-xr-x root/root" ] \
  || fail "/usr/bin/appliance is not root-owned 0755"
ok "contents: every expected path ($(wc -l < "$WORK/contents") entries)"
dpkg-deb --ctrl-tarfile "$DEB" | tar -xO ./conffiles > "$WORK/conffiles"
check "conffiles is exactly /etc/appliance/appliance.toml" [ "$(cat "$WORK/conffiles")" = /etc/appliance/appliance.toml ]
DEPENDS=$(dpkg-deb -f "$DEB" Depends)
say "Depends: $DEPENDS"
say "Recommends: $(dpkg-deb -f "$DEB" Recommends)"
for dep in gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad gstreamer1.0-plugins-ugly \
           gstreamer1.0-libav gstreamer1.0-alsa gstreamer1.0-x libgstreamer1.0-0 libsqlite3-0 libc6; do
  grep -q "\b$dep\b" <<< "$DEPENDS" || fail "Depends lacks $dep"
done
if grep -qi swift <<< "$DEPENDS"; then fail "Depends names a Swift package"; else ok "Depends: the GStreamer plugin packages, the libraries, no Swift"; fi
mkdir -p "$WORK/unpacked" && dpkg-deb -x "$DEB" "$WORK/unpacked"
if ldd "$WORK/unpacked/usr/bin/appliance" | grep -E 'libswift|libFoundation|not found'; then
  fail "the packaged binary needs the Swift runtime or a missing library"
else ok "the packaged binary links no Swift runtime library"; fi
CONF=$WORK/unpacked/etc/appliance/appliance.toml
for line in 'data_dir = "/var/lib/appliance"' 'socket = "/run/appliance/ctl.sock"' 'pipelines_dir = "/usr/share/appliance/pipelines"'; do
  grep -qxF "$line" "$CONF" || fail "the packaged config lacks: $line"
done
ok "the packaged config points at /var/lib/appliance, /run/appliance/ctl.sock, /usr/share/appliance/pipelines"

# --- 2. lintian: no errors (warnings are printed) ---------------------------------------------------------
lintian --tag-display-limit 0 "$DEB" > "$WORK/lintian" 2>&1
lintian_rc=$?
sed 's/^/    lintian: /' "$WORK/lintian"
overrides=$(grep -v '^#' "$WORK/unpacked/usr/share/lintian/overrides/appliance" 2>/dev/null | paste -sd';')
if grep -q '^E:' "$WORK/lintian" || [ $lintian_rc -ne 0 ]; then fail "lintian reports errors (exit $lintian_rc)"
else ok "lintian: no errors ($(grep -c '^W:' "$WORK/lintian") warnings; overridden, with the reason in packaging/lintian/appliance: $overrides)"; fi

# --- 3. Install -------------------------------------------------------------------------------------------
if ! dpkg -i "$DEB" > "$WORK/install.log" 2>&1; then
  say "dpkg -i failed; trying apt-get install -f for missing dependencies"
  DEBIAN_FRONTEND=noninteractive apt-get install -f -y -qq >> "$WORK/install.log" 2>&1 || { cat "$WORK/install.log"; fatal "install failed"; }
fi
dpkg-query -W -f='${Status}' appliance | grep -q 'install ok installed' || { cat "$WORK/install.log"; fatal "not installed"; }
ok "dpkg -i: installed $(dpkg-query -W -f='${Version}' appliance)"

# --- 4. The unit passes systemd-analyze verify ------------------------------------------------------------
systemd-analyze verify appliance.service appliance-kiosk.service > "$WORK/verify" 2>&1
verify_rc=$?
sed 's/^/    verify: /' "$WORK/verify"
# systemd < 254 does not know the restart back-off keys in the drop-in; anything else it says is a defect.
unexpected=$(grep -v "restart-backoff.conf:[0-9]*: Unknown key '\(RestartSteps\|RestartMaxDelaySec\)' in section \[Service\], ignoring." "$WORK/verify")
if [ $verify_rc -eq 0 ] && [ -z "$unexpected" ]; then ok "systemd-analyze verify appliance.service appliance-kiosk.service (systemd $(systemctl --version | awk 'NR==1{print $2}'))"
else fail "systemd-analyze verify: exit $verify_rc; $unexpected"; fi
systemd-analyze security --offline=true /lib/systemd/system/appliance.service 2>/dev/null | tail -1 | sed 's/^/    security: /'

# --- 5. User, groups, folders, enablement -----------------------------------------------------------------
IFS=: read -r _ _ _ _ _ home shell <<< "$(getent passwd appliance)"
check "user appliance: home $DATA, shell nologin" [ "$home" = "$DATA" -a "$shell" = /usr/sbin/nologin ]
groups=" $(id -nG appliance) "
missing=""
for g in appliance video audio input gpio; do [[ "$groups" == *" $g "* ]] || missing+=" $g"; done
check "user appliance is in appliance video audio input gpio (has:$groups)" [ -z "$missing" ]
check "$DATA is appliance:appliance 0700" [ "$(stat -c '%U:%G %a' "$DATA")" = "appliance:appliance 700" ]
check "/run/appliance is appliance:appliance 0750" [ "$(stat -c '%U:%G %a' /run/appliance)" = "appliance:appliance 750" ]
check "the unit is enabled (multi-user.target.wants)" [ -L /etc/systemd/system/multi-user.target.wants/appliance.service ]

# --- 6. The installed binary records as the user appliance, on the installed config alone -----------------
# As the unit would run it: the user appliance with its groups, umask 0007, the unit's XDG_CACHE_HOME, no other
# environment, started from / so no relative path can help it.
start_daemon() { # LOGFILE
  cd / || return 1
  runuser -u appliance -- env -i PATH=/usr/bin:/bin HOME="$DATA" XDG_CACHE_HOME=/var/cache/appliance LANG=C.UTF-8 \
    sh -c 'umask 0007; exec /usr/bin/appliance run --config /etc/appliance/appliance.toml' > "$1" 2>&1 &
  RUNNER_PID=$!
  cd - >/dev/null
  for _ in $(seq 1 50); do
    DAEMON_PID=$(pgrep -P "$RUNNER_PID" -x appliance) && break
    sleep 0.1
  done
  [ -n "$DAEMON_PID" ] || { cat "$1"; return 1; }
  echo "$DAEMON_PID" > "$STATE/daemon.pid"
  for _ in $(seq 1 600); do          # up to 60 s: ready once the socket answers and frames flow
    /usr/bin/appliance ctl --socket /run/appliance/ctl.sock --json status 2>/dev/null | grep -q '"ready":true' && return 0
    kill -0 "$DAEMON_PID" 2>/dev/null || { cat "$1"; return 1; }
    sleep 0.1
  done
  cat "$1"; return 1
}
ctl() { (cd / && /usr/bin/appliance ctl "$@"); }
start_daemon "$WORK/daemon.log" || fatal "the installed daemon did not become ready (log above)"
ok "the installed daemon runs as appliance (pid $DAEMON_PID, user $(ps -o user= -p "$DAEMON_PID"))"
if status=$(ctl status 2>&1); then ok "\`appliance ctl status\` with no flags answers: $(head -1 <<< "$status")"
else fail "\`appliance ctl status\` with no flags: $status"; fi
check "the socket is /run/appliance/ctl.sock, appliance:appliance, 0660" \
  [ "$(stat -c '%F %U:%G %a' /run/appliance/ctl.sock 2>/dev/null)" = "socket appliance:appliance 660" ]
ctl record start >/dev/null || fail "ctl record start"
sleep 2
stop_json=$(ctl record stop --json) || fail "ctl record stop: $stop_json"
CLIP=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["path"])' "$stop_json" 2>/dev/null)
CLIP_ID=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["id"])' "$stop_json" 2>/dev/null)
say "record stop: $stop_json"
[[ "$CLIP" == "$DATA/recordings/"* ]] && [ -f "$CLIP" ] || fatal "the clip is not a file under $DATA/recordings: '$CLIP'"
probe=$(ffprobe -v error -show_entries format=duration:stream=codec_name -of default=nw=1 "$CLIP")
codecs=$(grep codec_name <<< "$probe" | cut -d= -f2 | sort | paste -sd+)
duration=$(grep duration <<< "$probe" | cut -d= -f2)
check "the clip holds h264+aac (has $codecs)" [ "$codecs" = "aac+h264" ]
check "the clip lasts about 2 s ($duration s)" python3 -c "import sys; sys.exit(0 if 1.5 <= float('$duration') <= 3.5 else 1)"
decode_errors=$(ffmpeg -v error -i "$CLIP" -f null - 2>&1)
check "the clip decodes without errors" [ -z "$decode_errors" ]
check "the clip is appliance:appliance 0660 (umask 0007)" [ "$(stat -c '%U:%G %a' "$CLIP")" = "appliance:appliance 660" ]
check "the database is appliance:appliance 0600 whatever the umask" [ "$(stat -c '%U:%G %a' "$DATA/appliance.sqlite")" = "appliance:appliance 600" ]
check "$DATA stays 0700 while it runs" [ "$(stat -c '%a' "$DATA")" = "700" ]
check "GStreamer's registry went to the cache folder, not the recordings" \
  bash -c 'ls /var/cache/appliance/gstreamer-1.0/registry.*.bin >/dev/null 2>&1 && [ ! -e '"$DATA"'/.cache ]'
kill -TERM "$DAEMON_PID"
wait "$RUNNER_PID"; daemon_rc=$?
DAEMON_PID=""; RUNNER_PID=""; rm -f "$STATE/daemon.pid"
check "SIGTERM: the daemon exits 0 (exit $daemon_rc)" [ $daemon_rc -eq 0 ]

# --- 7. Upgrade: a changed config and the data are kept ---------------------------------------------------
sed -i 's/^log_level = .*/log_level = "debug"/' /etc/appliance/appliance.toml
echo "# changed by the package test: must survive the upgrade" >> /etc/appliance/appliance.toml
conf_sum=$(md5sum < /etc/appliance/appliance.toml)
UPGRADE_VERSION="$VERSION+1"
bash "$ROOT/packaging/build-deb.sh" --binary "$BINARY" --version "$UPGRADE_VERSION" --out "$WORK/upgrade" > "$WORK/build-upgrade.log" 2>&1 \
  || { cat "$WORK/build-upgrade.log"; fatal "could not build the upgrade package"; }
dpkg -i "$WORK/upgrade/appliance_${UPGRADE_VERSION}_$ARCH.deb" < /dev/null > "$WORK/upgrade.log" 2>&1 \
  || { cat "$WORK/upgrade.log"; fatal "the upgrade to $UPGRADE_VERSION failed"; }
check "upgraded to $UPGRADE_VERSION" [ "$(dpkg-query -W -f='${Version}' appliance)" = "$UPGRADE_VERSION" ]
check "the changed config is kept" [ "$(md5sum < /etc/appliance/appliance.toml)" = "$conf_sum" ]
check "the recording is still there" [ -f "$CLIP" ]
start_daemon "$WORK/daemon-upgraded.log" || fatal "the upgraded daemon did not become ready"
check "the upgraded daemon runs at log level debug (the kept config)" grep -Eq '^[^ ]+ debug ' "$WORK/daemon-upgraded.log"
list=$(ctl list --json)
check "the upgraded daemon lists the clip recorded before" grep -q "$CLIP_ID" <<< "$list"
stop_daemon
rm -f "$STATE/daemon.pid"

# --- 8. Purge keeps the recordings ------------------------------------------------------------------------
dpkg --purge appliance > "$WORK/purge.log" 2>&1 || { cat "$WORK/purge.log"; fail "dpkg --purge failed"; }
check "purged: no package, no /usr/bin/appliance, no /etc/appliance" \
  [ -z "$(dpkg-query -W -f='${Status}' appliance 2>/dev/null | grep installed)" -a ! -e /usr/bin/appliance -a ! -e /etc/appliance ]
check "purge keeps the recording ($CLIP)" [ -f "$CLIP" ]
check "purge keeps the clip database" [ -f "$DATA/appliance.sqlite" ]
check "purge removes the unit's enablement" [ ! -e /etc/systemd/system/multi-user.target.wants/appliance.service ]
check "purge removes the registry cache /var/cache/appliance" [ ! -e /var/cache/appliance ]

if [ "$FAILURES" -gt 0 ]; then say "$FAILURES check(s) failed"; exit 1; fi
say "all checks passed"
exit 0
