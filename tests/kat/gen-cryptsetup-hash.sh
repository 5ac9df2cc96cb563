#!/bin/sh
# Regenerate vectors/cryptsetup-hash.txt: cryptsetup's own documented
# answers for plain-mode passphrase hashing, taken verbatim from the
# "crypt_key HASH KEYSIZE pwd|failpwd PASSPHRASE KEY" lines of
# tests/password-hash-test in the cryptsetup source.  Only lines without a
# key-file limit/offset and with key sizes our ciphers take are used.
#
# Usage: gen-cryptsetup-hash.sh PATH/TO/cryptsetup/tests/password-hash-test
# (recorded from https://gitlab.com/cryptsetup/cryptsetup, GitHub mirror
#  mbroz/cryptsetup, commit 38f95b7001c7680d29093e2a73aa389467deb9a0)
set -eu
src=${1:?usage: $0 password-hash-test}
out="${KAT_OUT:-$(dirname "$0")/vectors/cryptsetup-hash.txt}"
{
echo "# from cryptsetup tests/password-hash-test ($(sha256sum "$src" | cut -c1-16)...)"
echo "# hash keybits passphrase expected-key|FAIL"
grep -E '^crypt_key [^ ]+ +[0-9]+ +(pwd|failpwd) +"[^"\\]*" +[0-9a-fx]+ *$' "$src" |
while read -r _ hash bits mode pass key; do
	[ "$bits" = 0 ] && bits=256           # cryptsetup's plain default
	[ "$mode" = failpwd ] && key=FAIL
	echo "$hash $bits $pass $key"
done
} >"$out.tmp"
mv "$out.tmp" "$out"
echo "wrote $out"
