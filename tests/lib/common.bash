# SPDX-License-Identifier: GPL-2.0-or-later
# The helpers every bats suite shares: a scratch directory per test, and
# one attach/track/teardown.  Each suite's helpers.bash sources this file
# and adds what only it needs.  Works on the host and in the test VMs
# (tests/vm/host/run, tests/vm/legacy/boot-5.10), where the guest's /tmp is
# its own tmpfs.
#
# What a test attaches, mounts or opens is written to a registry file in
# bats' per-test directory, so that "dev=$(attach ...)", which runs in a
# subshell, still registers.  common_teardown undoes exactly what is
# registered, and only while it is still the test's own: never
# "losetup -D", never a device another user attached since.
#
# A suite chooses how devices are made before it calls attach:
#   ATTACH_WITH    losetup (the default) or clctl (tests/vm/progs/clctl.c)
#   LOSETUP        losetup mode: the losetup to attach and list with
#   ATTACH_ENGINE  losetup mode: --engine for attach, unless ARGS name one
#   CLCTL          clctl mode: the ioctl tool
#   TL_DETACH      command (array) that detaches a device; default
#                  "$LOSETUP -d" or "$CLCTL detach"

fail() {
	echo "$@" >&2
	return 1
}

# need_root: skip the test unless it runs as root.
need_root() {
	[ "$(id -u)" -eq 0 ] || skip "needs root for ${1:-real loop devices}"
}

# common_setup NAME: a fresh directory $TESTDIR (NAME.XXXXXX under bats'
# temporary directory), removed by common_teardown.
common_setup() {
	TESTDIR=$(mktemp -d "${BATS_TMPDIR:-/tmp}/${1:-cryptoloop-test}.XXXXXX")
	TL_RMDIR=$TESTDIR
}

tl_registry() {
	echo "${BATS_TEST_TMPDIR:?only inside a bats test}/.teardown"
}

tl_register() {
	printf '%s\t%s\n' "$1" "$2" >>"$(tl_registry)"
}

# track DEV: detach DEV in teardown, if it is still the test's then.
track() {
	tl_register dev "$1"
}

# track_mount DIR: unmount DIR in teardown, before the devices are
# detached (a file system on them) and once more after (a file system
# holding their backing files).
track_mount() {
	tl_register mount "$1"
}

# track_map NAME: remove the device-mapper map NAME in teardown.
track_map() {
	tl_register map "$1"
}

# on_teardown CMD: run the shell command CMD in teardown, after the
# devices are detached; its failure is ignored.
on_teardown() {
	tl_register cmd "$1"
}

# attach [--on DEV] ARGS...: attach, track and print the device.
#   losetup mode: $LOSETUP -f --show ARGS (ARGS: options and the file),
#     or $LOSETUP DEV ARGS, with fd 3 on $PASSFILE (default
#     $TESTDIR/pass when it exists) for -p 3;
#   clctl mode: $CLCTL attach DEV ARGS (ARGS: the file, then clctl's
#     options) on DEV or on the device free_dev prints.
attach() {
	local dev='' engine=() pass=${PASSFILE:-${TESTDIR:-}/pass}
	if [ "${1:-}" = --on ]; then
		dev=$2
		shift 2
	fi
	if [ "${ATTACH_WITH:-losetup}" = clctl ]; then
		[ -n "$dev" ] || dev=$(free_dev) || return 1
		# registered first: a half-done attach is undone too
		track "$dev"
		"$CLCTL" attach "$dev" "$@" >&2 || return 1
		echo "$dev"
		return 0
	fi
	[ -f "$pass" ] || pass=/dev/null
	# the suite's engine, unless the test names one (auto included)
	if [ -n "${ATTACH_ENGINE:-}" ] && [[ " $* " != *" --engine "* ]]; then
		engine=(--engine "$ATTACH_ENGINE")
	fi
	if [ -n "$dev" ]; then
		"$LOSETUP" "${engine[@]}" "$dev" "$@" 3<"$pass" || return 1
	else
		dev=$("$LOSETUP" -f --show "${engine[@]}" "$@" 3<"$pass") || return 1
	fi
	track "$dev"
	echo "$dev"
}

# tl_owned DEV: DEV is still attached to what the test attached.  clctl
# mode: the device is bound (the test VM runs nothing else); losetup
# mode: the listing's backing file lies in $TESTDIR, so that a device
# another user attached since is left alone.
tl_owned() {
	local back
	if [ "${ATTACH_WITH:-losetup}" = clctl ]; then
		[ -d "/sys/block/${1#/dev/}/loop" ]
		return
	fi
	[ -n "${TESTDIR:-}" ] || return 1
	back=$("$LOSETUP" -l -n -O BACK-FILE "$1" 2>/dev/null) || return 1
	back=${back#"${back%%[! ]*}"}
	[[ "$back" == "$TESTDIR"/* ]]
}

tl_detach() {
	if [ ${#TL_DETACH[@]} -gt 0 ]; then
		"${TL_DETACH[@]}" "$1"
	elif [ "${ATTACH_WITH:-losetup}" = clctl ]; then
		"$CLCTL" detach "$1"
	else
		"$LOSETUP" -d "$1"
	fi
}

# the registered mounts, the last one first
tl_umount_all() {
	local m
	while IFS= read -r m; do
		if [ -n "$m" ] && mountpoint -q "$m" 2>/dev/null; then
			umount "$m" 2>/dev/null || true
		fi
	done < <(tl_entries mount | tac)
}

# tl_entries TYPE: the registered values of TYPE, in order.
tl_entries() {
	local reg type val
	reg=$(tl_registry)
	[ -f "$reg" ] || return 0
	while IFS=$'\t' read -r type val; do
		[ "$type" != "$1" ] || printf '%s\n' "$val"
	done <"$reg"
}

# common_teardown: undo what the test registered, in this order: its
# mounts, its device-mapper maps, its devices, its on_teardown commands,
# its mounts once more; then remove $TESTDIR.  Fails when a device of the
# test is still attached afterwards: a leak is the test's failure.
common_teardown() {
	local d m c i left=() IFS=$' \t\n'
	tl_umount_all
	while read -r m; do
		[ -n "$m" ] || continue
		if dmsetup info "$m" >/dev/null 2>&1; then
			dmsetup remove --noudevsync "$m" 2>/dev/null || true
		fi
	done < <(tl_entries map)
	while read -r d; do
		[ -n "$d" ] || continue
		if tl_owned "$d"; then
			tl_detach "$d" 2>/dev/null || true
		fi
	done < <(tl_entries dev)
	while IFS= read -r c; do
		[ -n "$c" ] || continue
		eval "$c" || true
	done < <(tl_entries cmd)
	tl_umount_all
	# a detach may finish a moment later (a FUSE daemon's last close)
	while read -r d; do
		for ((i = 0; i < 20; i++)); do
			tl_owned "$d" || continue 2
			sleep 0.1
		done
		left+=("$d")
	done < <(tl_entries dev | sort -u)
	[ -z "${TL_RMDIR:-}" ] || rm -rf "$TL_RMDIR"
	if [ ${#left[@]} -gt 0 ]; then
		echo "teardown: still attached after teardown: ${left[*]}" >&2
		return 1
	fi
}
