# shellcheck shell=sh
# What the tests of debian/tests share: a scratch directory, a
# passphrase in a file (read through fd 3, never in argv or the
# environment), and a plaintext ext4 image made without mounting it.
set -eu
T=${AUTOPKGTEST_TMP:?run me under autopkgtest, or set AUTOPKGTEST_TMP}
PASS=$T/passphrase
printf '%s\n' "autopkgtest passphrase, 20 characters or more" >"$PASS"

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# plain_ext4 IMAGE: a 16 MiB ext4 holding /hello (its text: "hello from
# aespipe"), made by mkfs.ext4 -d, not through a mount
plain_ext4() {
	mkdir -p "$T/content"
	echo "hello from aespipe" >"$T/content/hello"
	truncate -s 16M "$1"
	mkfs.ext4 -q -F -d "$T/content" "$1"
}

# aespipe_enc PLAIN OUT OPTION...: OUT is aespipe's encryption of PLAIN
aespipe_enc() {
	in=$1 out=$2
	shift 2
	aespipe "$@" -p 3 3<"$PASS" <"$in" >"$out"
}

# aespipe_dec IN OUT OPTION...
aespipe_dec() {
	in=$1 out=$2
	shift 2
	aespipe -d "$@" -p 3 3<"$PASS" <"$in" >"$out"
}

# file_in IMAGE PATH: the contents of PATH in the plaintext ext4 IMAGE
file_in() {
	debugfs -R "cat $2" "$1" 2>/dev/null
}
