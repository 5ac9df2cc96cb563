#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# A boot-like sequence with the kmod engine and no terminal, in the VM:
# cryptoloop-generator and systemd-fstab-generator on an fstab, an "auto"
# cryptoloop line mounted by "mount -a" with the passphrase answered by a
# password agent, and random-key swap from an fstab swap line.
#
# The guest has no systemd as PID 1: the units the generators make are
# checked with systemd-analyze verify and the setup service's commands
# are run by run_unit below, in systemd's order (ExecStartPre, ExecStart,
# ExecStartPost, then swapon as dev-cryptoloop0.swap would; ExecStop after
# swapoff).  /run/systemd/system, the mark sd_booted() looks for, is made
# here, so losetup asks the agents in the real /run/systemd/ask-password.
# The tests run in order and share one state directory.
bats_require_minimum_version 1.5.0

: "${top_builddir:?}"
# the binary behind libtool's wrapper: each call of the wrapper costs
# seconds under TCG
export LD_LIBRARY_PATH="$top_builddir/libloop/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
L="$top_builddir/losetup/.libs/losetup"
[ -x "$L" ] || L="$top_builddir/losetup/losetup"
AGENT="$top_builddir/tests/agent/test-agent"
GEN="$top_builddir/generator/cryptoloop-generator"
FSTAB_GEN=/lib/systemd/system-generators/systemd-fstab-generator
S=/var/tmp/clboot-state
ASK=/run/systemd/ask-password
PASS="correct horse battery staple 42"
SWAPDEV=/dev/cryptoloop0

setup_file() {
	[ -e /sys/module/cryptoloop ] || insmod "${CLVM_KO:?}"
	rm -rf "$S"
	mkdir -p "$S/mnt" "$S/gen/normal" "$S/gen/early" "$S/gen/late" "$ASK" /run/systemd/system
	chmod 755 "$ASK"
	printf '%s\n' "$PASS" > "$S/pass"
	# the unit runs losetup and the source check from the configured
	# prefix: put this build's there (the guest's root is a throwaway
	# overlay)
	sbin=$(sed -n 's/^sbindir = //p' "$top_builddir/Makefile")
	libexec=$(sed -n 's/^libexecdir = //p' "$top_builddir/Makefile")
	prefix=$(sed -n 's/^prefix = //p' "$top_builddir/Makefile")
	exec_prefix=$(sed -n 's/^exec_prefix = //p' "$top_builddir/Makefile")
	exec_prefix=${exec_prefix//'${prefix}'/$prefix}
	sbin=${sbin//'${exec_prefix}'/$exec_prefix}
	libexec=${libexec//'${exec_prefix}'/$exec_prefix}
	mkdir -p "$sbin" "$libexec"
	# (it links only the system's libblkid: no libtool wrapper)
	cp "$top_builddir/generator/cryptoloop-check-swap-source" "$libexec/"
	# (a libtool wrapper cannot be copied; neither needs its library path)
	printf '#!/bin/sh\nLD_LIBRARY_PATH=%q exec %q "$@"\n' "$LD_LIBRARY_PATH" "$L" \
		> "$sbin/losetup"
	chmod 0755 "$sbin/losetup"
	# the mount helpers link libloop: libtool wrappers, which set the
	# library path themselves (mount(8) drops LD_*) where they are
	for h in mount.cryptoloop umount.cryptoloop; do
		printf '#!/bin/sh\nexec %q "$@"\n' "$top_builddir/mount/$h" > "/sbin/$h"
		chmod 0755 "/sbin/$h"
	done
	# the image the auto line mounts: ext4 with files, made with -p
	truncate -s 16M "$S/secret.img"
	dev=$("$L" -f --show --engine kmod -e AES256 -p 3 "$S/secret.img" 3< "$S/pass")
	mkfs.ext4 -q "$dev"
	mount "$dev" "$S/mnt"
	head -c 512K /dev/urandom > "$S/mnt/data.bin"
	(cd "$S/mnt" && sha256sum data.bin) > "$S/sums"
	umount "$S/mnt"
	"$L" -d "$dev"
	# the swap line's source: a block device, as a partition would be
	truncate -s 32M "$S/swapsrc.img"
	BOOT_SWAP_DISK=$(losetup -f --show "$S/swapsrc.img")
	echo "$BOOT_SWAP_DISK" > "$S/swapdisk"
	cat > "$S/fstab" <<FSTAB
$S/secret.img $S/mnt cryptoloop cipher=AES256,engine=kmod 0 0
$SWAPDEV none swap sw,x-cryptoloop.source=$BOOT_SWAP_DISK,x-cryptoloop.encryption=AES128,x-cryptoloop.phash=random 0 0
FSTAB
}

teardown_file() {
	swapoff "$SWAPDEV" 2>/dev/null || true
	if mountpoint -q "$S/mnt"; then umount "$S/mnt"; fi
	[ ! -d "/sys/block/cryptoloop0/loop" ] || "$L" -d "$SWAPDEV" || true
	[ ! -s "$S/swapdisk" ] || losetup -d "$(cat "$S/swapdisk")" || true
	[ ! -s "$S/fsdisk" ] || losetup -d "$(cat "$S/fsdisk")" || true
	rm -rf "$S"
}

# run_unit UNIT KEY...: run the unit's Exec lines KEY, in file order, as
# systemd would (quoted words; "$$" is "$", "%%" is "%")
run_unit() {
	local unit=$1 key line words
	shift
	for key in "$@"; do
		while IFS= read -r line; do
			line=${line#*=}
			line=${line//'$$'/'\$'}
			line=${line//'%%'/%}
			eval "words=($line)"
			"${words[@]}" || return 1
		done < <(grep "^$key=" "$unit")
	done
}

setup() {
	BOOT_SWAP_DISK=$(cat "$S/swapdisk")
}

# the agent answers: setsid, stdin /dev/null, as a mount unit runs mount(8)
boot_mount_all() {
	"$AGENT" --timeout 120 "$ASK" "$S/pass" > "$S/agent.out" &
	local agent=$!
	setsid -w env LIBMOUNT_FSTAB="$S/fstab" mount -a < /dev/null
	local rc=$?
	wait "$agent" || rc=1
	return "$rc"
}

@test "the test agent speaks systemd's protocol: it answers systemd-ask-password" {
	"$AGENT" --timeout 60 "$ASK" "$S/pass" > "$S/agent.out" &
	agent=$!
	run setsid -w systemd-ask-password --no-tty --timeout=60 "Test question:" < /dev/null
	wait "$agent"
	[ "$status" -eq 0 ]
	[ "$output" = "$PASS" ]
	grep -qx "asked: Test question:" "$S/agent.out"
}

@test "generators: cryptoloop-generator's service joins systemd-fstab-generator's swap unit" {
	SYSTEMD_FSTAB="$S/fstab" "$GEN" "$S/gen/normal" "$S/gen/early" "$S/gen/late"
	SYSTEMD_FSTAB="$S/fstab" "$FSTAB_GEN" "$S/gen/normal" "$S/gen/early" "$S/gen/late"
	u="$S/gen/normal/cryptoloop-setup-cryptoloop0.service"
	[ -f "$u" ]
	# systemd's own generator made the swap unit of the line ...
	grep -qx "What=$SWAPDEV" "$S/gen/normal/dev-cryptoloop0.swap"
	# ... which requires our service, ordered before it
	[ -L "$S/gen/normal/dev-cryptoloop0.swap.requires/cryptoloop-setup-cryptoloop0.service" ]
	grep -qx "Before=dev-cryptoloop0.swap" "$u"
	grep -qx "BindsTo=dev-${BOOT_SWAP_DISK#/dev/}.device" "$u"
	# the mount line is systemd-fstab-generator's, through mount(8)
	ls "$S/gen/normal/" | grep -q 'clboot\\x2dstate-mnt\.mount$'
	# (systemd-analyze verify of these units: tests/generator, on the host)
}

@test "boot: the setup service leaves a source holding a filesystem alone" {
	# the generated unit with another disk as the source: an ext4 on it
	truncate -s 16M "$S/fs.img"
	mkfs.ext4 -q "$S/fs.img"
	disk=$(losetup -f --show "$S/fs.img")
	echo "$disk" > "$S/fsdisk"
	sed "s|$BOOT_SWAP_DISK|$disk|g" "$S/gen/normal/cryptoloop-setup-cryptoloop0.service" > "$S/fs.service"
	grep -q "^ExecStartPre=.*cryptoloop-check-swap-source\" \"$disk\"" "$S/fs.service"
	run --separate-stderr run_unit "$S/fs.service" ExecStartPre ExecStart ExecStartPost
	echo "$stderr"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"$disk holds ext4 (filesystem): not overwritten with random-key swap"* ]]
	# refused before losetup: no device, the filesystem intact
	[ ! -e /sys/block/cryptoloop0/loop ]
	e2fsck -fn "$disk" > /dev/null
	losetup -d "$disk"
	rm "$S/fsdisk"
}

@test "boot: random-key swap from the fstab swap line, by the generated service" {
	# systemd runs it before local-fs-pre.target, so before the mounts
	grep -qx "Before=local-fs-pre.target" "$S/gen/normal/cryptoloop-setup-cryptoloop0.service"
	run_unit "$S/gen/normal/cryptoloop-setup-cryptoloop0.service" \
		ExecStartPre ExecStart ExecStartPost
	[ "$(cat /sys/block/cryptoloop0/loop/multi_key)" = 65 ]
	[ "$("$L" -l -n -O BACK-FILE "$SWAPDEV" | tr -d ' ')" = "$BOOT_SWAP_DISK" ]
	# what dev-cryptoloop0.swap does
	swapon "$SWAPDEV"
	grep -q "^$SWAPDEV " /proc/swaps
	# swapon discards the area: a device that offers discard must take it
	run ! grep -q "$(basename "$SWAPDEV"): Error: discard_granularity is 0" <(dmesg)
	# the raw disk holds no swap signature: nothing can swap on it unencrypted
	run ! grep -q SWAPSPACE2 <(dd if="$BOOT_SWAP_DISK" bs=4096 count=1 status=none)
}

@test "boot: mount -a with no terminal unlocks the auto line through the password agent" {
	boot_mount_all
	grep -qx "asked: Password for $S/secret.img:" "$S/agent.out"
	mountpoint -q "$S/mnt"
	dev=$(findmnt -n -o SOURCE "$S/mnt")
	[[ "$dev" == /dev/cryptoloop* ]]
	[ "$("$L" -l -n -O ENGINE "$dev" | tr -d ' ')" = kmod ]
	(cd "$S/mnt" && sha256sum -c --quiet "$S/sums")
	echo "written at boot" > "$S/mnt/boot.txt"
}

@test "boot: the data is intact across a remount and the umount" {
	umount "$S/mnt"
	run ! mountpoint -q "$S/mnt"
	# nothing of the image stays attached
	[ -z "$("$L" -j "$S/secret.img")" ]
	# mounted again by the same boot path
	boot_mount_all
	(cd "$S/mnt" && sha256sum -c --quiet "$S/sums")
	[ "$(cat "$S/mnt/boot.txt")" = "written at boot" ]
	umount "$S/mnt"
	[ -z "$("$L" -j "$S/secret.img")" ]
}

@test "shutdown: swapoff, then the service's ExecStop detaches the swap device" {
	swapoff "$SWAPDEV"
	run_unit "$S/gen/normal/cryptoloop-setup-cryptoloop0.service" ExecStop
	[ -z "$("$L" -a | grep "^$SWAPDEV:" || true)" ]
	run ! grep -q "^$SWAPDEV " /proc/swaps
}
