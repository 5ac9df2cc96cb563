#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# What a plain losetup loads at start (TAP). Encryption, the dm engine
# and -F load their libraries on first use, so a run that uses none of
# them starts with no more than util-linux's losetup (libc, libsmartcols)
# loads, libloop taking libsmartcols' place:
#   - libloop.so needs libc only, and leaves no gcry_*, crypt_*, dm_* or
#     mnt_* symbol for the loader to find;
#   - losetup needs libloop and libc: libsmartcols is opened by the first
#     --list call (losetup/smartcols-load.c).
# With objdump missing the checks are skipped, never passed.
set -u
: "${top_builddir:?run through make check}"
lib=$top_builddir/libloop/.libs/libloop.so
exe=$top_builddir/losetup/.libs/losetup
[ -x "$exe" ] || exe=$top_builddir/losetup/.libs/lt-losetup
echo "1..3"
if ! command -v objdump >/dev/null 2>&1; then
	for i in 1 2 3; do echo "ok $i # SKIP objdump not installed"; done
	exit 0
fi

needed() {
	objdump -p "$1" | awk '$1 == "NEEDED" { print $2 }' | sort | tr '\n' ' '
}

got=$(needed "$lib")
case "$got" in
"libc.so.6 ") echo "ok 1 - libloop.so needs libc only" ;;
*) echo "not ok 1 - libloop.so needs libc only"; echo "# it needs: $got" ;;
esac

und=$(objdump -T "$lib" | awk '$3 == "*UND*" { print $NF }' |
	grep -E '^(gcry_|gpg_|crypt_|dm_|mnt_|blkid_)' | tr '\n' ' ')
if [ -z "$und" ]; then
	echo "ok 2 - libloop.so leaves no libgcrypt, libcryptsetup, libdevmapper or libmount symbol undefined"
else
	echo "not ok 2 - libloop.so leaves no libgcrypt, libcryptsetup, libdevmapper or libmount symbol undefined"
	echo "# undefined: $und (a new call must go through gcrypt-load.c or a module)"
fi

got=$(needed "$exe")
soname=$(objdump -p "$lib" | awk '$1 == "SONAME" { print $2 }')
case "$got" in
"libc.so.6 $soname ") echo "ok 3 - losetup needs libloop and libc" ;;
*) echo "not ok 3 - losetup needs libloop and libc"; echo "# it needs: $got" ;;
esac
