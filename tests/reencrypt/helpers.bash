# Shared by the cryptoloop-reencrypt tests. Reference images come from
# aespipe (loop-AES's own tool), never from our code. Passphrases and
# keys go through fds, never argv or the environment. The scratch
# directory and teardown come from tests/lib/common.bash.
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.bash"

: "${top_builddir:=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}"
: "${top_srcdir:=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}"
REENC="$top_builddir/reencrypt/cryptoloop-reencrypt"
# lists and detaches what a test attached (a FUSE-engine device too)
LOSETUP="$top_builddir/losetup/losetup"
# the binary behind libtool's wrapper script: the crash tests start it
# hundreds of times, and the wrapper costs more than the run
if [ -x "$top_builddir/reencrypt/.libs/cryptoloop-reencrypt" ]; then
	REENC="$top_builddir/reencrypt/.libs/cryptoloop-reencrypt"
	export LD_LIBRARY_PATH="$top_builddir/libloop/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
IOFAULT="$top_builddir/tests/reencrypt/.libs/libiofault.so"
# a LUKS2 keyslot that costs nothing to make or open: no PBKDF benchmark
# (about 4 CPU seconds of argon2 a header), for the tests that make and
# open many; luks2.bats keeps the benchmarked default in one test
FAST_KDF=(--pbkdf pbkdf2 --pbkdf-force-iterations 1000)
KEYS="$top_srcdir/tests/kat/pass"

PASS_OLD="old passphrase of the image"
PASS_NEW="a brand new passphrase, longer"

reenc_setup() {
	command -v aespipe >/dev/null || skip "needs aespipe"
	common_setup cryptoloop-reenc
	printf '%s\n' "$PASS_OLD" > "$TESTDIR/p_old"
	printf '%s\n' "$PASS_NEW" > "$TESTDIR/p_new"
	IMG="$TESTDIR/img"
}

reenc_teardown() {
	common_teardown
}

# plain FILE SIZE: random plaintext
plain() {
	head -c "$2" /dev/urandom > "$1"
}

# aespipe_enc OUT PASSFILE ARGS...: encrypt $TESTDIR/plain with aespipe
aespipe_enc() {
	local out=$1 pf=$2
	shift 2
	aespipe "$@" -p 3 3<"$pf" < "$TESTDIR/plain" > "$out"
}

# a private gpg home for key files; its agent is stopped in teardown
gpg_home() {
	GNUPGHOME_T="$TESTDIR/gnupg"
	mkdir -m 700 "$GNUPGHOME_T"
}

gpg_stop() {
	[ -z "${GNUPGHOME_T:-}" ] || gpgconf --homedir "$GNUPGHOME_T" --kill all 2>/dev/null || true
}

# hex of the bytes of FILE, one line
hex_of() {
	od -An -v -tx1 "$1" | tr -d ' \n'
}

