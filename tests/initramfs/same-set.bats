#!/usr/bin/env bats
# One list for both image builders: for the same root line, the
# initramfs-tools hook and dracut's module 50cryptoloop ask for the same
# files, kernel modules and udev rules, and that is what
# `cryptoloop-unlock --image-list` names. Each builder runs for real with
# stand-ins for the functions of its framework that copy (initramfs-tools'
# hook-functions, dracut's inst_* and instmods), which write down what
# they were asked for. A kernel "clt-kver" whose modules.dep knows the
# cryptoloop module (or not) is bound over /lib/modules in a private
# mount namespace, gone with the test.
bats_require_minimum_version 1.5.0

load helpers

UNLOCK="$top_builddir/mount/cryptoloop-unlock"

setup() {
	need_root "bind mounts in a mount namespace"
	command -v unshare >/dev/null || skip "needs unshare"
	[ -x "$UNLOCK" ] || skip "$UNLOCK not built"
	[ -d /lib/modules ] || skip "no /lib/modules to bind a test kernel's modules over"
	[ -f /usr/share/initramfs-tools/hook-functions ] || skip "needs initramfs-tools (hook-functions)"
	[ -d /etc/udev/rules.d ] || skip "no /etc/udev/rules.d to bind the test's rules over"
	common_setup initramfs-same-set
	local edit=(-e "s|@sbindir[@]|$top_builddir/mount|g" -e 's|@LOSETUP_NAME[@]|losetup|g')
	sed "${edit[@]}" "$top_srcdir/initramfs/hooks/cryptoloop.in" >"$TESTDIR/hook"
	sed "${edit[@]}" "$top_srcdir/dracut/50cryptoloop/module-setup.sh.in" >"$TESTDIR/module-setup.sh"
	chmod +x "$TESTDIR/hook"
	mkdir -p "$TESTDIR/modules/clt-kver" "$TESTDIR/itools" "$TESTDIR/bin" "$TESTDIR/rules"
	cp "$top_srcdir/udev/60-cryptoloop.rules" "$TESTDIR/rules/"
	: >"$TESTDIR/key.gpg"
	chmod 0600 "$TESTDIR/key.gpg"
	# initramfs-tools' side: what the hook copies, by kind
	cat >"$TESTDIR/itools/hook-functions" <<-'EOT'
	copy_exec() { echo "file $1" >>"$RECORD"; }
	manual_add_modules() { for m in "$@"; do echo "module $m" >>"$RECORD"; done; }
	block_dev_mod_add() { :; }
	EOT
	# modinfo -k KVER NAME for the hook's check of a required module:
	# dm_mod and dm_crypt are in every Debian kernel, cryptoloop where
	# the test kernel's modules.dep has it
	cat >"$TESTDIR/bin/modinfo" <<-'EOT'
	#!/bin/sh
	case $3 in dm_mod | dm_crypt) exit 0 ;; esac
	grep -q "/$3\.ko" "$T/modules/$2/modules.dep"
	EOT
	chmod +x "$TESTDIR/bin/modinfo"
	# dracut's side
	cat >"$TESTDIR/dracut-stubs.bash" <<-'EOT'
	dfatal() { echo "F: $*" >&2; }
	dwarn() { echo "W: $*" >&2; }
	inst_binary() { echo "file $1" >>"$RECORD"; }
	# cl_inst_dlopened: the library, then what ldd found (nothing here)
	inst_multiple() { echo "file $1" >>"$RECORD"; }
	ldd() { :; }
	inst_simple() {
		case $2 in
		*/cryptoloop-root.service) ;;
		*) echo "file $2" >>"$RECORD" ;;
		esac
	}
	inst_rules() { echo "file /usr/lib/udev/rules.d/$1" >>"$RECORD"; }
	inst_script() { :; }
	instmods() { [ "$1" != -c ] || shift; for m in "$@"; do echo "module $m" >>"$RECORD"; done; }
	SYSTEMCTL=true
	EOT
}

teardown() {
	common_teardown
}

# the root line with OPTIONS; WITH_MODULE=1: clt-kver has the module
root_line() {
	printf 'UUID=1234-abcd / ext4 x-cryptoloop.source=/dev/clt-none,x-cryptoloop.encryption=AES128,%s 0 1\n' \
		"$1" >"$TESTDIR/fstab"
	if [ "${WITH_MODULE:-0}" = 1 ]; then
		echo 'updates/dkms/cryptoloop.ko.xz:' >"$TESTDIR/modules/clt-kver/modules.dep"
	else
		echo 'kernel/drivers/md/dm-crypt.ko.xz: kernel/drivers/md/dm-mod.ko.xz' \
			>"$TESTDIR/modules/clt-kver/modules.dep"
	fi
}

# in_ns CMD...: CMD with the test's /lib/modules, /etc/fstab, udev rules
# and initramfs-tools' hook-functions bound in
in_ns() {
	unshare -m /bin/sh -c 'mount --bind "$T/modules" /lib/modules &&
		mount --bind "$T/fstab" /etc/fstab &&
		mount --bind "$T/rules" /etc/udev/rules.d &&
		mount --bind "$T/itools/hook-functions" /usr/share/initramfs-tools/hook-functions &&
		exec "$@"' sh "$@"
}

# What the hook asks for (the key file and the rules it copies itself are
# found in its DESTDIR), one "file PATH" or "module NAME" per line, sorted
hook_set() {
	rm -rf "$TESTDIR/dest" && mkdir -p "$TESTDIR/dest"
	: >"$TESTDIR/hook.set"
	run --separate-stderr env T="$TESTDIR" RECORD="$TESTDIR/hook.set" DESTDIR="$TESTDIR/dest" \
		version=clt-kver PATH="$TESTDIR/bin:$PATH" \
		bash -c "$(declare -f in_ns); umask 077; in_ns \"\$T/hook\""
	[ "$status" -eq 0 ] || fail "the hook: status $status: $stderr"
	HOOK_ERR=$stderr
	(cd "$TESTDIR/dest" && find . -type f ! -path ./cryptoloop/fstab | sed 's|^\.|file |') \
		>>"$TESTDIR/hook.set"
	sort -u -o "$TESTDIR/hook.set" "$TESTDIR/hook.set"
}

# What the dracut module asks for, the same way
dracut_set() {
	: >"$TESTDIR/dracut.set"
	mkdir -p "$TESTDIR/initdir"
	run --separate-stderr env T="$TESTDIR" RECORD="$TESTDIR/dracut.set" kernel=clt-kver \
		initdir="$TESTDIR/initdir" moddir=/nonexistent systemdsystemunitdir=/usr/lib/systemd/system \
		bash -c "$(declare -f in_ns); in_ns bash -c '. \"\$T/dracut-stubs.bash\" && . \"\$T/module-setup.sh\" && installkernel && install'"
	[ "$status" -eq 0 ] || fail "dracut's module: status $status: $stderr"
	DRACUT_ERR=$stderr
	sort -u -o "$TESTDIR/dracut.set" "$TESTDIR/dracut.set"
}

# The list itself, as the sets name its items
list_set() {
	run --separate-stderr env T="$TESTDIR" \
		bash -c "$(declare -f in_ns); in_ns \"$UNLOCK\" --image-list --kernel clt-kver /"
	[ "$status" -eq 0 ] || fail "--image-list: status $status: $stderr"
	printf '%s\n' "$output" | awk '
		$1 == "program" || $1 == "library" || $1 == "keyfile" { print "file " substr($0, length($1) + 2) }
		$1 == "module" || $1 == "module-optional" { print "module " $2 }
		$1 == "udev-rules" { print "file /usr/lib/udev/rules.d/" $2 }' | sort -u >"$TESTDIR/list.set"
}

# same_sets OPTIONS: the three sets of a root line with OPTIONS agree
same_sets() {
	root_line "$1"
	hook_set
	dracut_set
	list_set
	diff -u "$TESTDIR/hook.set" "$TESTDIR/dracut.set" >&2 ||
		fail "initramfs-tools and dracut put different things into the image for: $1"
	diff -u "$TESTDIR/list.set" "$TESTDIR/hook.set" >&2 ||
		fail "the images hold other than --image-list names for: $1"
	[ -s "$TESTDIR/list.set" ] || fail "an empty list"
}

@test "same set: dm engine, a gpg key file in the image" {
	same_sets "x-cryptoloop.engine=dm,x-cryptoloop.gpgkey=$TESTDIR/key.gpg"
	grep -qx "file $TESTDIR/key.gpg" "$TESTDIR/list.set"
	grep -qx 'module dm_crypt' "$TESTDIR/list.set"
	run ! grep -qx 'module cryptoloop' "$TESTDIR/list.set"
}

@test "same set: kmod engine with the module, a key file on a key device" {
	WITH_MODULE=1 same_sets "x-cryptoloop.engine=kmod,x-cryptoloop.keyfile=/k,x-cryptoloop.keydev=LABEL=KEYS"
	grep -qx 'module cryptoloop' "$TESTDIR/list.set"
	grep -qx 'module usb_storage' "$TESTDIR/list.set"
	run ! grep -qx 'module dm_crypt' "$TESTDIR/list.set"
	run ! grep -q '/k$' "$TESTDIR/list.set"
}

@test "same set: auto with the module brings both engines; without it, dm and a warning" {
	WITH_MODULE=1 same_sets "x-cryptoloop.engine=auto"
	grep -qx 'module cryptoloop' "$TESTDIR/list.set"
	grep -qx 'module dm_crypt' "$TESTDIR/list.set"
	grep -q '/engine-dm\.so$' "$TESTDIR/list.set"
	# cryptoloop-unlock loads the module through libkmod, to tell a
	# signature refusal from a missing module
	grep -q '/libkmod\.so\.2$' "$TESTDIR/list.set"
	WITH_MODULE=0 same_sets "x-cryptoloop.engine=auto"
	run ! grep -qx 'module cryptoloop' "$TESTDIR/list.set"
	run ! grep -q '/libkmod\.so\.2$' "$TESTDIR/list.set"
	[[ "$DRACUT_ERR" == *"W: 50cryptoloop: no cryptoloop module for clt-kver"* ]] ||
		fail "dracut's stderr: $DRACUT_ERR"
	[[ "$HOOK_ERR" == *"W: cryptoloop: no cryptoloop module for clt-kver"* ]] ||
		fail "the initramfs-tools hook's stderr: $HOOK_ERR"
}

@test "--image-list refuses what cannot boot: kmod without the module, a cleartext key file in the image" {
	root_line "x-cryptoloop.engine=kmod"
	run --separate-stderr env T="$TESTDIR" \
		bash -c "$(declare -f in_ns); in_ns \"$UNLOCK\" --image-list --kernel clt-kver /"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"x-cryptoloop.engine=kmod for /, but there is no cryptoloop module for clt-kver"* ]] ||
		fail "stderr: $stderr"
	root_line "x-cryptoloop.keyfile=$TESTDIR/key.gpg"
	run --separate-stderr env T="$TESTDIR" \
		bash -c "$(declare -f in_ns); in_ns \"$UNLOCK\" --image-list --kernel clt-kver /"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"protects nothing"* ]] || fail "stderr: $stderr"
	run "$UNLOCK" --image-list /
	[ "$status" -eq 1 ]
	[[ "$output" == *"Usage:"* ]]
}
