# SPDX-License-Identifier: GPL-2.0-or-later
#
# The boot code the VM runners share (tests/vm/host/run and
# tests/vm/legacy/boot-5.10 source this file; each keeps its own options
# and builds its own module): a Debian kernel under qemu with the host's
# root filesystem (read-only 9p plus a tmpfs overlay), one command in the
# guest, its exit status relayed to the host.
#
# The runner sets these before it calls the functions below:
#   vm_prog      its name, for messages
#   accel        tcg or kvm
#   timeout      hard limit of the whole guest run, seconds
#   mem, smp     guest memory (MB) and CPUs
#   keep         1: keep the work directory (printed)
#   disks        qemu -drive arguments (array, may be empty)
#
# The order: vm_check_host, vm_workdir, (build into $share), vm_initramfs,
# vm_guest_init, vm_env, vm_boot.  vm_boot exits: COMMAND's status, 125
# for a harness failure (no status from the guest, timeout).

die() {
	echo "$vm_prog: $*" >&2
	exit 125
}

# vm_check_host: qemu and a static busybox (the initramfs's only program).
vm_check_host() {
	command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing"
	busybox=$(command -v busybox) || die "busybox missing"
	file -L "$busybox" | grep -q 'statically linked' ||
		die "$busybox is not static (install busybox-static)"
}

# shellcheck disable=SC2317 # called by the EXIT trap
vm_cleanup() {
	if [ "$keep" = 1 ]; then
		echo "$vm_prog: kept $work" >&2
	else
		rm -rf "$work"
	fi
}

# vm_workdir PREFIX: $work (under /tmp, removed on exit unless --keep),
# $share (the guest's /clvm: the module, bin/, results/, the scripts).
vm_workdir() {
	work=$(mktemp -d "/tmp/$1.XXXXXX")
	trap vm_cleanup EXIT
	trap 'exit 130' INT TERM
	share=$work/share
	mkdir -p "$share/results" "$share/bin" "$work/initramfs"
}

# vm_initramfs KVER MODROOT: $work/initrd.gz, busybox plus the kernel's
# modules needed to reach the 9p root (virtio_pci 9pnet_virtio 9p
# overlay, with their dependencies, decompressed for busybox's insmod),
# taken from MODROOT/lib/modules/KVER.
vm_initramfs() {
	local kver=$1 modroot=$2 ird=$work/initramfs m ko
	mkdir -p "$ird"/{bin,dev,proc,sys,newroot,lower,rw,modules}
	cp "$busybox" "$ird/bin/busybox"
	for m in virtio_pci 9pnet_virtio 9p overlay; do
		modprobe -S "$kver" -d "$modroot" --show-depends "$m" |
			awk '$1 == "insmod" { print $2 }'
	done | awk '!seen[$0]++' >"$work/modlist"
	: >"$ird/modules/order"
	while read -r ko; do
		case "$ko" in
		*.ko) cp "$ko" "$ird/modules/" ;;
		*.ko.xz) xz -dc "$ko" >"$ird/modules/$(basename "$ko" .xz)" ;;
		*.ko.zst) zstd -qdc "$ko" >"$ird/modules/$(basename "$ko" .zst)" ;;
		*) die "unknown module format: $ko" ;;
		esac
		basename "${ko%.xz}" | sed 's/\.zst$//' >>"$ird/modules/order"
	done <"$work/modlist"
	[ -s "$ird/modules/order" ] || die "no 9p/virtio modules found for $kver"

	cat >"$ird/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sys /sys
/bin/busybox mount -t devtmpfs dev /dev
for m in $(/bin/busybox cat /modules/order); do
	/bin/busybox insmod /modules/$m || echo "vm-init: insmod $m failed"
done
opts=trans=virtio,version=9p2000.L,msize=512000,cache=loose
/bin/busybox mount -t 9p -o $opts,ro hostroot /lower || exec /bin/busybox sh
/bin/busybox mount -t tmpfs -o mode=0755 rw /rw
/bin/busybox mkdir -p /rw/upper /rw/work
/bin/busybox mount -t overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work overlay /newroot
/bin/busybox mkdir -p /newroot/clvm
/bin/busybox mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 clvm /newroot/clvm
/bin/busybox umount /proc /sys /dev
exec /bin/busybox switch_root /newroot /bin/bash /clvm/guest-init
echo "vm-init: switch_root failed"
/bin/busybox poweroff -f
INIT
	chmod +x "$ird/init"
	(cd "$ird" && find . | cpio -o -H newc --quiet | gzip -1) >"$work/initrd.gz"
}

# vm_guest_init: $share/guest-init, what runs after switch_root: the rest
# of the guest's setup, then COMMAND from $share/env (vm_env), its status
# into $share/rc, power off.
vm_guest_init() {
	cat >"$share/guest-init" <<'GUEST'
set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb LANG=C.UTF-8
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
source /clvm/env
# The guest's /tmp is its own; a tree cloned under the host's /tmp stays
# reachable at the same path through a bind of the host's copy.
mkdir -p /clvm-hosttmp
mount --bind /tmp /clvm-hosttmp
mount -t tmpfs -o mode=1777 tmp /tmp
case "$CLVM_SRC" in
/tmp/?*)
	top=${CLVM_SRC#/tmp/}; top=${top%%/*}
	mkdir -p "/tmp/$top"
	mount --bind "/clvm-hosttmp/$top" "/tmp/$top"
	;;
esac
mount -t tmpfs -o mode=0755 run /run
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs shm /dev/shm
ln -sf /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
hostname "$CLVM_HOSTNAME"
# A fetched kernel's modules are not on the host's root: show them to
# modprobe (and the crypto API's module autoloading) under the usual name.
if [ -n "$CLVM_MODROOT" ] && [ ! -e "/lib/modules/$CLVM_KVER" ]; then
	ln -sfn "$CLVM_MODROOT/lib/modules/$CLVM_KVER" "/lib/modules/$CLVM_KVER"
fi
echo "$CLVM_HOSTNAME: guest $(uname -r) up after $(cut -d' ' -f1 /proc/uptime)s, running: ${CLVM_CMD[*]}"
: >/clvm/started
cd "$CLVM_SRC"
"${CLVM_CMD[@]}" </dev/null
rc=$?
echo "$rc" >/clvm/rc
sync
echo "$CLVM_HOSTNAME: command exited $rc after $(cut -d' ' -f1 /proc/uptime)s"
echo o >/proc/sysrq-trigger
sleep 30
GUEST
}

# vm_env HOSTNAME SRC KVER MODROOT [NAME=VALUE...] -- COMMAND [ARG...]:
# $share/env, read by guest-init: the guest's variables (CLVM_SRC,
# CLVM_RESULTS, CLVM_BIN, CLVM_KVER and the NAME=VALUEs, exported) and
# the command.  MODROOT: the tree whose lib/modules/KVER the guest links
# to, or empty when the host's root has the modules.
vm_env() {
	local host=$1 src=$2 kver=$3 modroot=$4
	shift 4
	{
		printf 'export CLVM_SRC=%q CLVM_RESULTS=/clvm/results CLVM_BIN=/clvm/bin CLVM_KVER=%q\n' \
			"$src" "$kver"
		printf 'CLVM_HOSTNAME=%q CLVM_MODROOT=%q\n' "$host" "$modroot"
		while [ $# -gt 0 ] && [ "$1" != -- ]; do
			printf 'export %s=%q\n' "${1%%=*}" "${1#*=}"
			shift
		done
		shift
		printf 'CLVM_CMD=('
		printf '%q ' "$@"
		printf ')\n'
	} >"$share/env"
}

# vm_boot KERNEL: boot KERNEL with $work/initrd.gz, the host's root and
# $share over 9p, the serial console on stdout; copy the results to
# $CLVM_RESULTS_DIR if set; exit with the guest command's status.
# A guest kernel that dies before the command starts is booted once
# more: TCG's SMP emulation panics now and then in early boot (seen on
# 7.2: an int3 Oops in sched_clock_cpu at 2.9 s, nothing of ours loaded);
# that is no result of the command, which has not run.
vm_boot() {
	local kernel=$1 attempt
	for attempt in 1 2; do
		rm -f "$share/started" "$share/rc"
		vm_boot_once "$kernel"
		[ -e "$share/rc" ] || [ -e "$share/started" ] || [ "$attempt" = 2 ] ||
			[ "$qrc" = 124 ] || [ "$qrc" = 137 ] || {
			echo "$vm_prog: the guest kernel died before the command started: booting once more" >&2
			continue
		}
		break
	done
	if [ -n "${CLVM_RESULTS_DIR:-}" ]; then
		mkdir -p "$CLVM_RESULTS_DIR"
		cp -r "$share/results/." "$CLVM_RESULTS_DIR/"
	fi
	if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
		die "guest timed out after ${timeout}s"
	fi
	[ -r "$share/rc" ] || die "guest did not report a status (qemu exit $qrc)"
	exit "$(cat "$share/rc")"
}

# The TCG guests' CPU: qemu's max without ERMS and FSRM. With them, the
# guest kernel clears and copies pages with `rep stosb`/`rep movsb`, which
# TCG (qemu 7.2) runs one byte per step: dd from /dev/zero ran 6 times
# slower, 200 fork+exec 1.5 times, and a guest's whole CPU time was 6 to
# 20% higher for the same tests. Nothing tested depends on the string
# instructions the kernel picks. Shared with tests/boot/boot-lib.bash.
vm_tcg_cpu=max,erms=off,fsrm=off

# vm_boot_once KERNEL: one boot; qemu's exit status in qrc
vm_boot_once() {
	local kernel=$1 start accel_opts=(-accel tcg -cpu "$vm_tcg_cpu")
	if [ "$accel" = kvm ]; then
		accel_opts=(-accel kvm -cpu host)
	fi
	start=$(date +%s)
	set +e
	# no_timer_check: on a loaded host the TCG guest's timer can look dead
	# to the kernel's IO-APIC check, which then panics at boot (seen
	# twice on 7.2) before anything of ours ran.
	# norandmaps: TCG keys its translated code by virtual address, so with
	# ASLR every process translates ld.so, libc and bash afresh; without
	# it they are translated once per guest (`bash -c :` 0.2 s instead of
	# 0.5). Nothing tested here depends on where a process's maps lie.
	timeout --kill-after=10 "$timeout" \
		qemu-system-x86_64 "${accel_opts[@]}" -m "$mem" -smp "$smp" \
		-nographic -no-reboot -monitor none -serial stdio \
		-kernel "$kernel" -initrd "$work/initrd.gz" "${disks[@]}" \
		-append "console=ttyS0 panic=-1 no_timer_check norandmaps quiet loglevel=4 rdinit=/init" \
		-virtfs local,path=/,mount_tag=hostroot,security_model=none,multidevs=remap,readonly=on \
		-virtfs "local,path=$share,mount_tag=clvm,security_model=none" \
		</dev/null
	qrc=$?
	set -e
	echo "$vm_prog: guest ran $(( $(date +%s) - start ))s (qemu exit $qrc)" >&2
}
