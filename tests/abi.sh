#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# libloop's symbol versions (TAP): every symbol libloop.so.N exports is
# in the version node LIBLOOP_N, named for its soname's major, or in
# LIBLOOP_PRIVATE (the project's own programs and modules); none is
# unversioned. With objdump missing the checks are skipped, never passed.
set -u
: "${top_builddir:?run through make check}"
lib=$top_builddir/libloop/.libs/libloop.so
echo "1..2"
if ! command -v objdump >/dev/null 2>&1; then
	for i in 1 2; do echo "ok $i # SKIP objdump not installed"; done
	exit 0
fi

soname=$(objdump -p "$lib" | awk '$1 == "SONAME" { print $2 }')
node=LIBLOOP_${soname##*.so.}
# "ADDR g DF .text SIZE VERSION NAME": the defined symbols' versions and
# names (the nodes themselves are *ABS*)
objdump -T "$lib" | awk '$2 == "g" && $4 != "*UND*" && $4 != "*ABS*" {
	v = $(NF - 1); gsub(/[()]/, "", v); print v, $NF }' > "${TMPDIR:-/tmp}/abi.$$"
trap 'rm -f "${TMPDIR:-/tmp}/abi.$$"' EXIT

public=$(awk -v n="$node" '$1 == n' "${TMPDIR:-/tmp}/abi.$$" | wc -l)
if [ "$public" -gt 0 ]; then
	echo "ok 1 - $soname exports its API in $node ($public symbols)"
else
	echo "not ok 1 - $soname exports its API in $node ($public symbols)"
fi

other=$(awk -v n="$node" '$1 != n && $1 != "LIBLOOP_PRIVATE" { print $1 " " $2 }' \
	"${TMPDIR:-/tmp}/abi.$$" | tr '\n' ' ')
if [ -z "$other" ]; then
	echo "ok 2 - every other symbol is in LIBLOOP_PRIVATE"
else
	echo "not ok 2 - every other symbol is in LIBLOOP_PRIVATE"
	echo "# outside $node and LIBLOOP_PRIVATE: $other"
fi
