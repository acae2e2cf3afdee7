#!/usr/bin/env bash
# Builds appliance_<version>_<arch>.deb from the release binary (`make deb`). No debhelper and no debian/
# source folder: the tree is laid out here and packed with dpkg-deb; dpkg-shlibdeps computes the library
# dependencies and packaging/deb/plugins the GStreamer plugin packages. Tests/Package/test_deb.sh tests it.
#
#   packaging/build-deb.sh [--binary PATH] [--version V] [--out DIR]
#   env: VERSION (default: what `appliance --version` prints), BINARY, OUT (default .build-deb)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BINARY=${BINARY:-$ROOT/.build-release/release/appliance}
VERSION=${VERSION:-}
OUT=${OUT:-$ROOT/.build-deb}
while [ $# -gt 0 ]; do
  case "$1" in
    --binary) BINARY=$2; shift 2 ;;
    --version) VERSION=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    *) echo "build-deb: unknown argument $1" >&2; exit 2 ;;
  esac
done

die() { echo "build-deb: $*" >&2; exit 1; }
[ -x "$BINARY" ] || die "no binary at $BINARY (run \`make release\` first)"
for tool in dpkg-deb dpkg-shlibdeps dpkg-architecture gst-inspect-1.0 gzip strip; do
  command -v "$tool" >/dev/null || die "$tool is missing (packaging/install-deps.sh --deb installs it)"
done
[ -n "$VERSION" ] || VERSION=$("$BINARY" --version | tr -d '[:space:]')
[[ "$VERSION" =~ ^[0-9][A-Za-z0-9.+~]*$ ]] || die "version '$VERSION' is not a native Debian version"
ARCH=$(dpkg-architecture -qDEB_HOST_ARCH)
# Reproducible timestamps: the last commit's time.
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$ROOT" log -1 --format=%ct 2>/dev/null || date +%s)}
MAINTAINER="appliance maintainers <maintainers@users.noreply.a-seed-d128d571.example>"

# The Swift runtime must be linked in (make release uses --static-swift-stdlib): no Swift package to depend on.
if ldd "$BINARY" | grep -E 'libswift|libFoundation|libdispatch|libBlocksRuntime' >&2; then
  die "$BINARY links the Swift runtime dynamically (build it with --static-swift-stdlib)"
fi

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
PKG=$WORK/appliance
DOC=$PKG/usr/share/doc/appliance
install -d "$PKG/DEBIAN" "$PKG/usr/bin" "$PKG/usr/share/appliance" "$PKG/etc/appliance" "$DOC/examples" \
  "$PKG/lib/systemd/system/appliance.service.d" "$PKG/usr/lib/sysusers.d" "$PKG/usr/lib/tmpfiles.d" \
  "$PKG/lib/udev/rules.d" "$PKG/usr/share/man/man1" "$PKG/usr/share/lintian/overrides" "$PKG/usr/lib/appliance"

# The binary, stripped of debug information (lintian: unstripped-binary-or-object).
install -m 0755 "$BINARY" "$PKG/usr/bin/appliance"
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$PKG/usr/bin/appliance"

# Pipelines: found by the binary at <exe>/../share/appliance/pipelines, and named in the config too.
cp -r "$ROOT/pipelines" "$PKG/usr/share/appliance/pipelines"
mv "$PKG/usr/share/appliance/pipelines/README.md" "$DOC/pipelines.md"

# Configs with the service's folders: /etc/appliance/appliance.toml from Config/appliance.toml, and the
# commented examples, so they never drift from the source tree's. data_dir is replaced; socket and
# pipelines_dir follow it. Each packaged file is checked to hold each path exactly once, or the build stops.
packaged_config() { # SOURCE DEST
  sed -e 's|^data_dir = .*|data_dir = "/var/lib/appliance"\n# Control socket for `appliance ctl` (mode 0660): the service'"'"'s runtime folder.\nsocket = "/run/appliance/ctl.sock"\n# The gst-launch fragments the graph is built from.\npipelines_dir = "/usr/share/appliance/pipelines"|' \
      -e '/^# Control socket for `appliance ctl` (mode 0660). Empty: <data_dir>\/ctl.sock$/d' \
      -e '/^socket = /d' -e '/^pipelines_dir = /d' \
      -e 's|^# Every key is listed with its default. Paths are relative to the directory the daemon starts in.$|# Every key is listed: the folders are the packaged service'"'"'s, the rest are the defaults.|' \
      "$1" > "$2"
  local line
  for line in 'data_dir = "/var/lib/appliance"' 'socket = "/run/appliance/ctl.sock"' \
              'pipelines_dir = "/usr/share/appliance/pipelines"'; do
    [ "$(grep -cxF "$line" "$2")" = 1 ] || die "$2 lacks '$line' once (did $1 change shape?)"
  done
  if grep -q 'relative to the directory' "$2"; then die "$2 still says paths are relative"; fi
  chmod 0644 "$2"
}
CONF=$PKG/etc/appliance/appliance.toml
{
  echo "# Installed by the appliance package (a conffile: your changes are kept across upgrades)."
  echo "# The service runs \`appliance run --config /etc/appliance/appliance.toml\` as the user appliance."
} > "$WORK/header"
packaged_config "$ROOT/Config/appliance.toml" "$WORK/appliance.toml"
cat "$WORK/header" "$WORK/appliance.toml" > "$CONF"
chmod 0644 "$CONF"
echo /etc/appliance/appliance.toml > "$PKG/DEBIAN/conffiles"
for example in dashcam kiosk; do
  packaged_config "$ROOT/Config/$example.toml" "$DOC/examples/$example.toml"
done

# systemd, sysusers, tmpfiles, udev.
install -m 0644 "$ROOT/packaging/systemd/appliance.service" "$PKG/lib/systemd/system/appliance.service"
install -m 0644 "$ROOT/packaging/systemd/restart-backoff.conf" "$PKG/lib/systemd/system/appliance.service.d/restart-backoff.conf"
install -m 0644 "$ROOT/packaging/sysusers/appliance.conf" "$PKG/usr/lib/sysusers.d/appliance.conf"
install -m 0644 "$ROOT/packaging/tmpfiles/appliance.conf" "$PKG/usr/lib/tmpfiles.d/appliance.conf"
install -m 0644 "$ROOT/packaging/udev/60-appliance.rules" "$PKG/lib/udev/rules.d/60-appliance.rules"
install -m 0644 "$ROOT/packaging/lintian/appliance" "$PKG/usr/share/lintian/overrides/appliance"
# The optional kiosk session: the dashboard full screen on the device's display (not enabled by the package).
install -m 0755 "$ROOT/packaging/kiosk/appliance-kiosk" "$PKG/usr/lib/appliance/appliance-kiosk"
install -m 0644 "$ROOT/packaging/kiosk/appliance-kiosk.service" "$PKG/lib/systemd/system/appliance-kiosk.service"

# Documentation: man page, copyright, changelog (native package: changelog.gz), README.
sed "s|@VERSION@|$VERSION|g" "$ROOT/packaging/man/appliance.1" | gzip -9n > "$PKG/usr/share/man/man1/appliance.1.gz"
install -m 0644 "$ROOT/packaging/deb/copyright" "$DOC/copyright"
COMMIT=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
sed -e "s|@VERSION@|$VERSION|" -e "s|@COMMIT@|$COMMIT|" -e "s|@MAINTAINER@|$MAINTAINER|" \
    -e "s|@DATE@|$(date -u -R -d "@$SOURCE_DATE_EPOCH")|" "$ROOT/packaging/deb/changelog.in" | gzip -9n > "$DOC/changelog.gz"
gzip -9n < "$ROOT/README.md" > "$DOC/README.md.gz"

for script in postinst prerm postrm; do
  install -m 0755 "$ROOT/packaging/deb/$script" "$PKG/DEBIAN/$script"
done

# Library dependencies: dpkg-shlibdeps wants a debian/control beside it.
mkdir -p "$WORK/src/debian"
printf 'Source: appliance\n\nPackage: appliance\nArchitecture: any\n' > "$WORK/src/debian/control"
SHLIBS=$(cd "$WORK/src" && dpkg-shlibdeps -O "$PKG/usr/bin/appliance" 2>"$WORK/shlibdeps.err" | sed -n 's/^shlibs:Depends=//p') \
  || { cat "$WORK/shlibdeps.err" >&2; die "dpkg-shlibdeps failed"; }
[ -n "$SHLIBS" ] || die "dpkg-shlibdeps found no libraries"
echo "$SHLIBS" | grep -qi swift && die "a Swift library among the dependencies: $SHLIBS"

# GStreamer plugin packages: each element in packaging/deb/plugins is checked against this machine's plugins,
# and every element the pipelines/ fragments name must be in that table (or be a core/hardware-only one).
GST_VERSION=$(dpkg-query -W -f='${Version}' gstreamer1.0-plugins-base | sed 's/-.*//; s/^\([0-9]*\.[0-9]*\).*/\1/')
declare -A DEPENDS=() RECOMMENDS=() LISTED=()
while read -r element package kind; do
  case "$element" in ''|'#'*) continue ;; esac
  LISTED[$element]=1
  file=$(gst-inspect-1.0 "$element" 2>/dev/null | awk '/^  Filename/ {print $2}')
  [ -n "$file" ] || die "GStreamer element $element is not installed here (apt install $package)"
  owner=$(dpkg -S "$(readlink -f "$file")" 2>/dev/null || dpkg -S "/usr$file" 2>/dev/null || true)
  [ "${owner%%:*}" = "$package" ] || die "$element comes from '${owner%%:*}', packaging/deb/plugins says $package"
  case "$kind" in
    depends) DEPENDS[$package]=1 ;;
    recommends) RECOMMENDS[$package]=1 ;;
    *) die "packaging/deb/plugins: $element: '$kind' is neither depends nor recommends" ;;
  esac
done < "$ROOT/packaging/deb/plugins"
# capsfilter, identity, queue, tee: core. v4l2h264enc: in the v4l2 plugin (gstreamer1.0-plugins-good, as v4l2src), registered only
# where a hardware encoder exists; so are the other hardware encoders `auto` tries: vah264enc and vah264lpenc (va,
# gstreamer1.0-plugins-bad, with a VA-API driver), nvh264enc (nvcodec, plugins-bad, with CUDA), qsvh264enc (qsv),
# vaapih264enc (gstreamer1.0-vaapi, not installed by default). waylandsink: gstreamer1.0-plugins-bad (as kmssink),
# needs a compositor.
# Comment lines are skipped, and so are ${placeholders}: the daemon fills them with listed elements (jpegdec) or
# with hardware ones registered only where the hardware is (v4l2jpegdec); and caps (audio/x-raw,…) and links to a
# named element (mix.), which are not elements.
for element in $(grep -hv '^[[:space:]]*#' "$ROOT"/pipelines/*/*.gst | sed -E 's/!/\n/g' | awk '{print $1}' | sort -u); do
  case "$element" in capsfilter|identity|queue|tee|v4l2h264enc|vah264enc|vah264lpenc|nvh264enc|qsvh264enc|vaapih264enc|waylandsink|'$'*|*/*|*.) continue ;; esac
  [ -n "${LISTED[$element]:-}" ] || die "pipelines/ uses $element, which packaging/deb/plugins does not list"
done
PLUGIN_DEPENDS=$(for p in $(printf '%s\n' "${!DEPENDS[@]}" | sort); do echo "$p (>= $GST_VERSION)"; done | paste -sd, | sed 's/,/, /g')
PLUGIN_RECOMMENDS=$(printf '%s\n' "${!RECOMMENDS[@]}" | sort | paste -sd, | sed 's/,/, /g')

INSTALLED_SIZE=$(du -sk --exclude=DEBIAN "$PKG" | cut -f1)
sed -e "s|@VERSION@|$VERSION|" -e "s|@ARCH@|$ARCH|" -e "s|@MAINTAINER@|$MAINTAINER|" \
    -e "s|@INSTALLED_SIZE@|$INSTALLED_SIZE|" -e "s|@SHLIBS_DEPENDS@|$SHLIBS|" \
    -e "s|@PLUGIN_DEPENDS@|$PLUGIN_DEPENDS|" -e "s|@PLUGIN_RECOMMENDS@|$PLUGIN_RECOMMENDS|" \
    "$ROOT/packaging/deb/control.in" > "$PKG/DEBIAN/control"
# md5sums of every file but the conffile (dpkg keeps conffiles' sums itself; debhelper leaves them out too).
(cd "$PKG" && find . -path ./DEBIAN -prune -o -path ./etc -prune -o -type f -print0 | sort -z | xargs -0 md5sum \
  | sed 's|  \./|  |') > "$PKG/DEBIAN/md5sums"
chmod 0644 "$PKG/DEBIAN/control" "$PKG/DEBIAN/conffiles" "$PKG/DEBIAN/md5sums"

# Directories 0755, files 0644 unless executable; root-owned inside the archive.
find "$PKG" -type d -exec chmod 0755 {} +
mkdir -p "$OUT"
DEB=$OUT/appliance_${VERSION}_${ARCH}.deb
dpkg-deb --root-owner-group -Zxz --build "$PKG" "$DEB" >/dev/null
echo "build-deb: $DEB ($(du -h "$DEB" | cut -f1); binary $(du -h "$PKG/usr/bin/appliance" | cut -f1))"
