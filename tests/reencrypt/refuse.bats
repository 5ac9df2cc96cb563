#!/usr/bin/env bats
# cryptoloop-reencrypt refuses what it cannot do safely, says why, and
# leaves the image exactly as it was.

load helpers
bats_require_minimum_version 1.5.0

LOSETUP="$top_builddir/losetup/losetup"
UL_LOSETUP=/usr/sbin/losetup

setup() {
	reenc_setup
	plain "$TESTDIR/plain" 1M
	aespipe_enc "$IMG" "$TESTDIR/p_old" -e AES256
	cp "$IMG" "$TESTDIR/orig"
	OURDEV=
}

teardown() {
	reenc_teardown
}

# reenc ARGS...: old AES256 on fd 3, new AES128 on fd 4
reenc() {
	run "$REENC" -e AES256 -p 3 "$@" --new -e AES128 -p 4 \
		3<"$TESTDIR/p_old" 4<"$TESTDIR/p_new"
}

unchanged() {
	cmp "$IMG" "$TESTDIR/orig"
	[ ! -e "$IMG.reencrypt" ]
}

@test "an image attached to a kernel loop device is refused" {
	[ "$(id -u)" -eq 0 ] || skip "needs root"
	OURDEV=$("$UL_LOSETUP" -f --show -r "$IMG") || skip "no free loop device"
	track "$OURDEV"
	reenc "$IMG"
	[ "$status" -eq 1 ]
	[[ "$output" == *"$IMG: in use by $OURDEV; detach it first"* ]]
	unchanged
}

@test "an image served by the FUSE engine is refused" {
	[ "$(id -u)" -eq 0 ] || skip "needs root"
	[ -c /dev/fuse ] || skip "needs /dev/fuse"
	export CRYPTOLOOP_FUSE_DAEMON="$top_builddir/fuse/cryptoloop-fuse"
	[ -x "$CRYPTOLOOP_FUSE_DAEMON" ] || skip "FUSE engine not built"
	OURDEV=$(PASSFILE="$TESTDIR/p_old" attach --engine fuse -e AES256 -p 3 "$IMG") ||
		skip "no free loop device"
	reenc "$IMG"
	[ "$status" -eq 1 ]
	[[ "$output" == *"$IMG: in use by $OURDEV"*"detach it first"* ]]
	"$LOSETUP" -d "$OURDEV"
	OURDEV=
	unchanged
}

@test "an image replaced between its check and its open is refused before any write" {
	# another file renamed over the name right before reencrypt opens it
	${CC:-cc} -shared -fPIC -o "$TESTDIR/swap-at-open.so" \
		"$BATS_TEST_DIRNAME/swap-at-open.c" -ldl || skip "cannot build the shim"
	cp "$IMG" "$TESTDIR/other"
	cp "$IMG" "$TESTDIR/other.orig"
	SWAP_AT_OPEN="$IMG" SWAP_WITH="$TESTDIR/other" LD_PRELOAD="$TESTDIR/swap-at-open.so" \
		reenc "$IMG"
	[ "$status" -eq 1 ] || fail "status $status: $output"
	[[ "$output" == *"$IMG: replaced by another file while it was checked; nothing was written"* ]] ||
		fail "$output"
	[ ! -e "$TESTDIR/other" ] || fail "the shim did not run"
	# the file now under the name is as it was
	cmp "$IMG" "$TESTDIR/other.orig"
	[ ! -e "$IMG.reencrypt" ]
}

@test "an image too small for one sector is refused" {
	head -c 300 "$TESTDIR/orig" > "$IMG"
	cp "$IMG" "$TESTDIR/orig"
	reenc "$IMG"
	[ "$status" -eq 1 ]
	[[ "$output" == *"$IMG: too small: no whole 512-byte sector after the offset (300 bytes in all)"* ]]
	unchanged
	reenc -o 1M "$IMG"
	[ "$status" -eq 1 ]
	[[ "$output" == *"too small"* ]]
}

@test "a misaligned image or offset is refused" {
	head -c 100 /dev/urandom >> "$IMG"
	cp "$IMG" "$TESTDIR/orig"
	reenc "$IMG"
	[ "$status" -eq 1 ]
	[[ "$output" == *"$IMG: misaligned: the data after the offset is 1048676 bytes"* ]]
	unchanged
	reenc -o 1000 "$IMG"
	[ "$status" -eq 1 ]
	[[ "$output" == *"the offset 1000 is not a multiple of 512"* ]]
	unchanged
}

@test "no space for the journal is found before the first write" {
	[ "$(id -u)" -eq 0 ] || skip "needs root to mount a tmpfs"
	TINYFS="$TESTDIR/tiny"
	mkdir "$TINYFS"
	mount -t tmpfs -o size=64k tmpfs "$TINYFS"
	track_mount "$TINYFS"
	head -c 1M /dev/zero > "$TINYFS/fill" 2>/dev/null || true
	reenc --journal "$TINYFS/journal" "$IMG"
	[ "$status" -eq 1 ]
	[[ "$output" == *"$TINYFS/journal: no space for the journal; the image was not touched"* ]]
	[ ! -e "$TINYFS/journal" ]
	[ ! -e "$TINYFS/journal.new" ]
	unchanged
}

@test "Enter at the terminal's New and Retype prompts is refused, the image untouched" {
	# an empty new passphrase would re-encrypt the image to the all-zero key
	printf '%s\n\n\n' "$PASS_OLD" > "$TESTDIR/answers"
	run --separate-stderr "$top_builddir/tests/tty/pty-answer" --transcript "$TESTDIR/tty" \
		"$TESTDIR/answers" -- "$REENC" -e AES256 "$IMG" --new -e aes
	[ "$status" -eq 1 ]
	[ "$stderr" = "${REENC##*/}: empty passphrase (--allow-empty-passphrase accepts it)" ]
	grep -q "Old password: " "$TESTDIR/tty"
	grep -q "New password: " "$TESTDIR/tty"
	grep -q "Retype password: " "$TESTDIR/tty"
	unchanged
}

@test "an empty new LUKS2 passphrase on the fd is refused, the image untouched" {
	# a LUKS2 keyslot that Enter opens protects nothing
	: > "$TESTDIR/empty"
	run "$REENC" -e AES256 -p 3 "$IMG" --new --luks2 --header "$TESTDIR/hdr" \
		--iter-time 10 -p 4 3<"$TESTDIR/p_old" 4<"$TESTDIR/empty"
	[ "$status" -eq 1 ]
	[ "$output" = "${REENC##*/}: the LUKS2 keyslot: empty passphrase (--allow-empty-passphrase accepts it)" ]
	[ ! -e "$TESTDIR/hdr" ]
	unchanged
}

@test "Enter at the New key file password prompts of --generate is refused, no key file made" {
	command -v gpg >/dev/null || skip "needs gpg"
	gpg_home
	printf '%s\n\n\n' "$PASS_OLD" > "$TESTDIR/answers"
	run --separate-stderr "$top_builddir/tests/tty/pty-answer" --transcript "$TESTDIR/tty" \
		"$TESTDIR/answers" -- "$REENC" -e AES256 "$IMG" --new -e AES128 \
		-K "$TESTDIR/new.gpg" -G "$GNUPGHOME_T" --generate
	[ "$status" -eq 1 ]
	[ "$stderr" = "${REENC##*/}: $TESTDIR/new.gpg: empty passphrase (--allow-empty-passphrase accepts it)" ]
	grep -q "New key file password: " "$TESTDIR/tty"
	[ ! -e "$TESTDIR/new.gpg" ]
	unchanged
}

@test "usage errors name what is wrong" {
	run "$REENC" -e AES256 -p 3 "$IMG" 3<"$TESTDIR/p_old"
	[ "$status" -eq 1 ]
	[[ "$output" == *"--new is missing"* ]]
	run "$REENC" -e AES256 -p 3 "$IMG" --new -p 4 3<"$TESTDIR/p_old" 4<"$TESTDIR/p_new"
	[ "$status" -eq 1 ]
	[[ "$output" == *"the new format needs -e <cipher> after --new"* ]]
	run "$REENC" -e AES256 --generate "$IMG" --new -e AES128
	[ "$status" -eq 1 ]
	[[ "$output" == *"--generate belongs after --new"* ]]
	run "$REENC" -e AES256 "$IMG" --new -e AES128 --new
	[ "$status" -eq 1 ]
	[[ "$output" == *"--new given twice"* ]]
	run "$REENC" -e AES256 -o 0 "$IMG" --new -e AES128 -o 4096
	[ "$status" -eq 1 ]
	[[ "$output" == *"the new offset must be the old one"* ]]
	run "$REENC" -e nosuchcipher -p 3 "$IMG" --new -e AES128 -p 4 3<"$TESTDIR/p_old" 4<"$TESTDIR/p_new"
	[ "$status" -eq 1 ]
	[[ "$output" == *"nosuchcipher: unknown encryption type"* ]]
	run "$REENC" -e AES256 -p 3 "$TESTDIR/missing" --new -e AES128
	[ "$status" -eq 1 ]
	[[ "$output" == *"$TESTDIR/missing: No such file or directory"* ]]
	cmp "$IMG" "$TESTDIR/orig"
}

@test "a block device needs --journal" {
	[ "$(id -u)" -eq 0 ] || skip "needs root"
	OURDEV=$("$UL_LOSETUP" -f --show "$IMG") || skip "no free loop device"
	track "$OURDEV"
	run "$REENC" -e AES256 -p 3 "$OURDEV" --new -e AES128 -p 4 \
		3<"$TESTDIR/p_old" 4<"$TESTDIR/p_new"
	[ "$status" -eq 1 ]
	[[ "$output" == *"$OURDEV: a block device needs --journal <file>"* ]]
	cmp "$IMG" "$TESTDIR/orig"
}

@test "--help and the man page list the same options" {
	local man opt help
	man=$(sed 's/\\-/-/g' "$top_srcdir/man/cryptoloop-reencrypt.8")
	run "$REENC" --help
	[ "$status" -eq 0 ]
	help=$output
	for opt in $(grep -oE -- '--[a-z][a-z0-9-]+' <<<"$help" | sort -u); do
		grep -qF -- "$opt" <<<"$man" || fail "$opt is in --help, not in the man page"
	done
	# the man page's option items: lines that start with \fB-x, --name or \fB--name
	for opt in $(grep -oE -- '^\\fB(-[A-Za-z]\\fR, \\fB)?--[a-z0-9-]+' <<<"$man" |
		grep -oE -- '--[a-z0-9-]+$' | sort -u); do
		grep -qF -- "$opt" <<<"$help" || fail "$opt is in the man page, not in --help"
	done
	[ -n "$opt" ]
}
