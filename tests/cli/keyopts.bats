#!/usr/bin/env bats
# The one list of key options (libloop/cli/cli-options.h) drives losetup,
# cryptoloop-reencrypt and mount.cryptoloop: every row of it is taken
# by each program it is marked for, and documented there.

load helpers

setup() { common_setup keyopts-test; }
teardown() { common_teardown; }

REENCRYPT="$top_builddir/reencrypt/cryptoloop-reencrypt"
MOUNT_HELPER="$top_builddir/mount/mount.cryptoloop"

# The rows of the list, one a line: LONG-NAME HAS-ARG REENCRYPT FSTAB FSTAB-NAME
key_rows() {
	awk '/^#define LOOP_KEY_OPTIONS/ { on = 1; next }
	     on && /^\tX\(/ { split($0, q, "\""); name = q[2]
			     arg = ($0 ~ /no_argument/) ? "no" : "yes"; row = 1; next }
	     on && row { last = !/\\$/; gsub(/[ \t\\)]/, ""); split($0, f, ",")
			 gsub(/"/, "", f[4]); print name, arg, f[2], f[3], f[4]; row = 0
			 if (last) on = 0; next }
	     on && !/\\$/ { on = 0 }' \
		"$top_srcdir/libloop/cli/cli-options.h"
}

# with_arg NAME HAS-ARG: the option as a command line gives it
with_arg() {
	if [ "$2" = yes ]; then echo "--$1=1"; else echo "--$1"; fi
}

@test "the list has its rows (the parser of this test reads them)" {
	run key_rows
	[ "${#lines[@]}" -eq "$(grep -c '^	X(' "$top_srcdir/libloop/cli/cli-options.h")" ] ||
		fail "$output"
	[[ "$output" == *"sizelimit yes 1 1 crypt_sizelimit" ]] || fail "$output"
	[[ "$output" == *"encryption yes 1 1 cipher"* ]] || fail "$output"
	[[ "$output" == *"force no 0 0 NULL"* ]] || fail "$output"
}

@test "losetup takes, lists and documents every key option" {
	local name arg reenc fstab fname help
	help=$("$OUR_LOSETUP" --help)
	while read -r name arg reenc fstab fname; do
		[[ "$help" == *"--$name"* ]] || fail "--$name is not in losetup --help"
		grep -q -- "\\\\-\\\\-${name//-/\\\\-}" "$top_srcdir/man/losetup.8" ||
			fail "--$name is not in losetup(8)"
		# --list-ciphers ends the run before any option is acted on
		run "$OUR_LOSETUP" "$(with_arg "$name" "$arg")" --list-ciphers
		[ "$status" -eq 0 ] || fail "losetup --$name: $output"
	done < <(key_rows)
}

@test "cryptoloop-reencrypt takes and lists the rows marked for it" {
	local name arg reenc fstab fname help
	help=$("$REENCRYPT" --help)
	while read -r name arg reenc fstab fname; do
		[ "$reenc" = 1 ] || continue
		[[ "$help" == *"--$name"* ]] || fail "--$name is not in cryptoloop-reencrypt --help"
		# parsed, then refused for the missing image, not as an option
		run "$REENCRYPT" "$(with_arg "$name" "$arg")" "$TESTDIR/none.img" --new -e aes
		[ "$status" -ne 0 ] || fail "--$name: exit status 0"
		[[ "$output" == *"$TESTDIR/none.img"* ]] || fail "cryptoloop-reencrypt --$name: $output"
		run "$REENCRYPT" "$TESTDIR/none.img" --new "$(with_arg "$name" "$arg")"
		[[ "$output" == *"$TESTDIR/none.img"* ]] ||
			fail "cryptoloop-reencrypt --new --$name: $output"
	done < <(key_rows)
}

@test "mount.cryptoloop takes and documents the rows marked for fstab" {
	local name arg reenc fstab fname opts
	[ -x "$MOUNT_HELPER" ] || skip "built without libmount"
	while read -r name arg reenc fstab fname; do
		[ "$fstab" = 1 ] || continue
		grep -q "${fname//_/\\\\_}=" "$top_srcdir/man/mount.cryptoloop.8" ||
			grep -q "$fname=" "$top_srcdir/man/mount.cryptoloop.8" ||
			fail "$fname= is not in mount.cryptoloop(8)"
		# its own option: once it passes the parser (and the missing
		# image is refused), twice it is refused; an option it did not
		# know would go to the filesystem instead, never refused
		opts=cipher=AES128,
		[ "$fname" != cipher ] || opts=
		run "$MOUNT_HELPER" "$TESTDIR/none.img" "$TESTDIR" -o "$opts$fname=1"
		[[ "$output" != *"bad option"* ]] || fail "$fname=: $output"
		[[ "$output" == *"$TESTDIR/none.img"* ]] || fail "$fname=: $output"
		run "$MOUNT_HELPER" "$TESTDIR/none.img" "$TESTDIR" -o "$opts$fname=1,$fname=1"
		[[ "$output" == *"bad option '$fname=1'"* ]] || fail "$fname= twice: $output"
	done < <(key_rows)
}
