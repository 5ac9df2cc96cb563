#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# libloop.so exports what its headers declare, no more, no less (TAP):
#  - its API, in the version node LIBLOOP_N named for its soname's major,
#    is exactly the functions include/*.h declares, both ways;
#  - what the project's own modules and programs need beyond it is in
#    LIBLOOP_PRIVATE, each declared in a header under libloop/;
#  - nothing else is exported, and nothing is unversioned;
#  - the modules libloop dlopen()s (engine-dm.so, losetup-fstab.so) find
#    every symbol they need in it: a function they call that libloop
#    does not export fails only when the module is loaded, as "not built".
# The declarations come from the compiler (gcc -aux-info), not from
# reading C with a pattern. A missing objdump or gcc skips checks, and
# says so; it never passes them.
set -u
: "${top_builddir:?run through make check}"
: "${top_srcdir:?run through make check}"
lib=$top_builddir/libloop/.libs/libloop.so
n=6
echo "1..$n"
if ! command -v objdump >/dev/null 2>&1; then
	i=1
	while [ $i -le $n ]; do echo "ok $i # SKIP objdump not installed"; i=$((i + 1)); done
	exit 0
fi
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT

soname=$(objdump -p "$lib" | awk '$1 == "SONAME" { print $2 }')
node=LIBLOOP_${soname##*.so.}
# "ADDR g DF .text SIZE VERSION NAME": the defined symbols' versions and
# names (the nodes themselves are *ABS*)
objdump -T "$lib" | awk '$2 == "g" && $4 != "*UND*" && $4 != "*ABS*" {
	v = $(NF - 1); gsub(/[()]/, "", v); print v, $NF }' >"$dir/exported"
awk -v n="$node" '$1 == n { print $2 }' "$dir/exported" | sort -u >"$dir/api"
awk '$1 == "LIBLOOP_PRIVATE" { print $2 }' "$dir/exported" | sort -u >"$dir/private"

# report I TEXT FILE: ok when FILE is empty, else not ok and its lines
report() {
	if [ -s "$3" ]; then
		echo "not ok $1 - $2"
		sed 's/^/# /' "$3"
	else
		echo "ok $1 - $2"
	fi
}

if [ -s "$dir/api" ]; then
	echo "ok 1 - $soname exports its API in $node ($(wc -l <"$dir/api") functions)"
else
	echo "not ok 1 - $soname exports its API in $node (0 functions)"
fi

awk -v n="$node" '$1 != n && $1 != "LIBLOOP_PRIVATE" { print $1 " " $2 }' \
	"$dir/exported" >"$dir/other"
report 2 "every other export is in LIBLOOP_PRIVATE" "$dir/other"

# The functions include/*.h declares, each header first in its own line
# of one translation unit; static inline ones are not exports.
for h in "$top_srcdir"/include/*.h; do
	echo "#include <${h##*/}>"
done >"$dir/t.c"
inc=$(cd "$top_srcdir/include" && pwd)
cc=
for c in "${CC:-}" gcc; do
	[ -n "$c" ] || continue
	if $c -I"$inc" -fsyntax-only -aux-info "$dir/aux" "$dir/t.c" 2>"$dir/err"; then
		cc=$c
		break
	fi
done
if [ -z "$cc" ]; then
	echo "ok 3 # SKIP no compiler with -aux-info (gcc): declarations unknown"
	echo "ok 4 # SKIP no compiler with -aux-info (gcc): declarations unknown"
else
	grep "^/\\* $inc/" "$dir/aux" | grep -v ' static ' |
		sed 's,^/\* [^ ]* \*/ ,,; s/ (.*//; s/.*[ *]//' | sort -u >"$dir/declared"
	comm -23 "$dir/declared" "$dir/api" >"$dir/missing"
	# none found is a listing that did not match, not a clean header set
	[ -s "$dir/declared" ] ||
		echo "gcc -aux-info named no function of a header in $inc/" >"$dir/missing"
	report 3 "every function include/*.h declares ($(wc -l <"$dir/declared")) is exported in $node" \
		"$dir/missing"
	comm -13 "$dir/declared" "$dir/api" >"$dir/undeclared"
	report 4 "every function exported in $node is declared in include/*.h" "$dir/undeclared"
fi

# LIBLOOP_PRIVATE: each one declared in a header of the library's own
: >"$dir/nodecl"
hdrs=$(find "$top_srcdir/libloop" -name '*.h')
while read -r f; do
	# shellcheck disable=SC2086 # one word per header path
	grep -Eq "[ *]${f}[[:space:]]*\\(" $hdrs || echo "$f" >>"$dir/nodecl"
done <"$dir/private"
report 5 "every LIBLOOP_PRIVATE export ($(wc -l <"$dir/private")) is declared under libloop/" \
	"$dir/nodecl"

# ldd -r binds every symbol of each module, as dlopen(RTLD_NOW) does
: >"$dir/unresolved"
mods=0
for m in "$(dirname "$lib")"/*.so; do
	[ "$m" != "$lib" ] || continue
	mods=$((mods + 1))
	ldd -r "$m" 2>&1 | grep -E 'undefined symbol|not found' >>"$dir/unresolved"
done
if ! command -v ldd >/dev/null 2>&1; then
	echo "ok 6 # SKIP no ldd: the modules' symbols not checked"
else
	report 6 "the $mods modules libloop loads resolve every symbol (ldd -r)" "$dir/unresolved"
fi
