#!/usr/bin/env bats
# initramfs/scripts/local-top/cryptoloop: what it appends to
# /conf/param.conf, which initramfs-tools' init sources with dash after
# each script.  fstab text (the root line's first field) and what the
# unlock printed must come back as the same strings, and run nothing.
bats_require_minimum_version 1.5.0

load helpers

UNLOCK="$top_builddir/mount/cryptoloop-unlock"

# a label with a space (fstab's \040), a quote and a command substitution
# (no blank or tab: fstab's fields have none, \040 stands for a space)
LABEL="My Root'q\$(touch\${IFS}/pwned)\`touch\${IFS}/pwned\`"

setup() {
	initrd_setup
	[ -x "$UNLOCK" ] || skip "$UNLOCK not built"
	# the root line as the hook copies it, read by the real --check
	printf '%s / ext4 x-cryptoloop.source=/dev/clt-none,x-cryptoloop.encryption=AES128,x-cryptoloop.gpgkey=/boot/k.gpg,x-cryptoloop.engine=dm 0 1\n' \
		"LABEL=${LABEL// /\\040}" >"$ROOTDIR/cryptoloop/fstab"
	"$UNLOCK" --check --fstab "$ROOTDIR/cryptoloop/fstab" / >"$ROOTDIR/cryptoloop/check.out"
}

teardown() {
	common_teardown
}

@test "param.conf: the fstab device waited for is sourced back as it was, running nothing" {
	# the fstab field as libmount unescapes it
	grep -qF "device='LABEL=My Root'" "$ROOTDIR/cryptoloop/check.out"
	run --separate-stderr in_initrd /usr/bin/dash /scripts/local-top/cryptoloop
	[ "$status" -eq 0 ] || fail "status $status: $stderr"
	[[ "$stderr" == *"waiting for /dev/clt-none"* ]]
	run --separate-stderr in_initrd_params
	[ "$status" -eq 0 ] || fail "sourcing param.conf: status $status: $stderr"
	[ "${lines[0]}" = "LABEL=$LABEL" ] ||
		fail "ROOT came back as: ${lines[0]}"
	[ "${lines[1]}" = unset ]
	[ -z "$stderr" ] || fail "sourcing param.conf said: $stderr"
}

@test "param.conf: the unlocked device and its type are sourced back as they were" {
	: >"$ROOTDIR/cryptoloop/resolves"
	# no quote here: unquoted, the space runs a command, and so does $(...)
	local dev="/dev/odd dev" type="ext4\$(touch /pwned)\`touch /pwned\`"
	printf '%s\nFSTYPE=%s\n' "$dev" "$type" >"$ROOTDIR/cryptoloop/unlock.out"
	run --separate-stderr in_initrd /usr/bin/dash /scripts/local-top/cryptoloop
	[ "$status" -eq 0 ] || fail "status $status: $stderr"
	[ -e "$ROOTDIR/cryptoloop/done" ]
	run -0 --separate-stderr in_initrd_params
	[ ! -e "$ROOTDIR/pwned" ] || fail "param.conf ran a command"
	[ "${lines[0]}" = "$dev" ] || fail "ROOT came back as: ${lines[0]}"
	[ "${lines[1]}" = "$type" ] || fail "ROOTFSTYPE came back as: ${lines[1]}"
	[ -z "$stderr" ] || fail "sourcing param.conf said: $stderr"
}
