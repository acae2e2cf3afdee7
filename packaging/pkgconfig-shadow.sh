#!/usr/bin/env bash
# gstreamer-1.0.pc lists gmodule-no-export-2.0 under Requires.private, and that file's Cflags carry -pthread, which
# SwiftPM refuses ("warning: prohibited flag(s): -pthread", a few hundred times a build). The flag is redundant:
# glibc has had its threads in libc since 2.34. This writes a copy of the system's gmodule-no-export-2.0.pc without
# it into DIR (the Makefile puts DIR first on PKG_CONFIG_PATH); everything else in the file stays as installed.
set -euo pipefail
dir=${1:?usage: pkgconfig-shadow.sh DIR}
source_dir=$(pkg-config --variable=pcfiledir gmodule-no-export-2.0)
mkdir -p "$dir"
sed -E 's/[[:space:]]*-pthread\b//g' "$source_dir/gmodule-no-export-2.0.pc" > "$dir/gmodule-no-export-2.0.pc.tmp"
mv "$dir/gmodule-no-export-2.0.pc.tmp" "$dir/gmodule-no-export-2.0.pc"
