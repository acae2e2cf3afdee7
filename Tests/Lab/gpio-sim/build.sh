#!/usr/bin/env bash
# Builds gpio-sim (the kernel's GPIO simulator: a real gpiochip whose input lines follow sysfs "pull" files) as an
# out-of-tree module for the lab's kernel, which Debian builds without it (nor with CONFIG_IRQ_SIM, which it needs).
#   Tests/Lab/gpio-sim/build.sh KERNEL_RELEASE OUT.ko
# From Debian's own packages: linux-source-X.Y (the sources) and linux-headers-KERNEL_RELEASE (the build tree),
# installed by packaging/install-deps.sh --test. kernel/irq/irq_sim.c goes into the same module; its one call of
# irq_to_desc (not exported to modules) becomes generic_handle_irq, which does the same for a simple IRQ.
# Prints one "gpio-sim: ..." line and exits 1 when it cannot build; does nothing when OUT.ko is up to date.
set -euo pipefail
release=${1:?usage: build.sh KERNEL_RELEASE OUT.ko}
out=${2:?usage: build.sh KERNEL_RELEASE OUT.ko}
fail() { echo "gpio-sim: $*" >&2; exit 1; }

build=/lib/modules/$release/build
[ -d "$build" ] || fail "no kernel build tree for $release (Debian: linux-headers-$release)"
series=$(echo "$release" | cut -d. -f1,2)
tarball=/usr/src/linux-source-$series.tar.xz
[ -r "$tarball" ] || fail "no kernel sources $tarball (Debian: linux-source-$series)"
me=$(readlink -f "$0")
if [ -f "$out" ] && [ "$out" -nt "$tarball" ] && [ "$out" -nt "$build/Makefile" ] && [ "$out" -nt "$me" ]; then
  exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
top=linux-source-$series
tar -xJf "$tarball" -C "$work" "$top/drivers/gpio/gpio-sim.c" "$top/drivers/gpio/gpiolib.h" "$top/kernel/irq/irq_sim.c" \
  || fail "cannot read gpio-sim.c, gpiolib.h and irq_sim.c from $tarball"
mkdir "$work/mod"
cp "$work/$top/drivers/gpio/gpio-sim.c" "$work/mod/gpio-sim-main.c"
cp "$work/$top/drivers/gpio/gpiolib.h" "$work/$top/kernel/irq/irq_sim.c" "$work/mod/"
grep -q 'handle_simple_irq(irq_to_desc(irqnum));' "$work/mod/irq_sim.c" || fail "irq_sim.c changed: its irq_to_desc call is not where it was"
sed -i 's/handle_simple_irq(irq_to_desc(irqnum));/generic_handle_irq(irqnum);/' "$work/mod/irq_sim.c"
printf 'obj-m := gpio-sim.o\ngpio-sim-y := gpio-sim-main.o irq_sim.o\n' >"$work/mod/Makefile"
make -s -C "$build" M="$work/mod" modules >"$work/make.log" 2>&1 || { tail -n 20 "$work/make.log" >&2; fail "the module did not build"; }
mkdir -p "$(dirname "$out")"
cp "$work/mod/gpio-sim.ko" "$out.tmp" && mv "$out.tmp" "$out"
