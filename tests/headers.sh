#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Every header of libloop's API (include/) compiles on its own, first in
# a translation unit, in strict C modes and as C++ (TAP). The library is
# private, but its API headers stay self-contained and portable.
#   LIBLOOP_HEADERS  the headers (make check passes libloop_headers)
#   CC               the compiler configure found; c++ is used when present
set -u
: "${top_srcdir:?run through make check}"
cc=${CC:-cc}
headers=${LIBLOOP_HEADERS:?run through make check}
modes="-std=gnu17|-std=c99|-std=c11 -pedantic-errors"
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT

n=0
for h in $headers; do
	n=$((n + 3 + 1))
done
echo "1..$n"

i=0
for h in $headers; do
	name=${h##*/}
	printf '#include <%s>\nint main(void) { return 0; }\n' "$name" >"$dir/t.c"
	old_ifs=$IFS; IFS='|'
	for mode in $modes; do
		IFS=$old_ifs
		i=$((i + 1))
		# shellcheck disable=SC2086 # mode holds several options
		if $cc $mode -Wall -Wextra -Werror -I"$top_srcdir/include" -c \
			-o "$dir/t.o" "$dir/t.c" 2>"$dir/err"; then
			echo "ok $i - $name alone ($mode)"
		else
			echo "not ok $i - $name alone ($mode)"
			sed 's/^/# /' "$dir/err"
		fi
		IFS='|'
	done
	IFS=$old_ifs
	i=$((i + 1))
	if command -v c++ >/dev/null 2>&1; then
		cp "$dir/t.c" "$dir/t.cc"
		if c++ -Wall -Wextra -Werror -I"$top_srcdir/include" -c -o "$dir/t.o" \
			"$dir/t.cc" 2>"$dir/err"; then
			echo "ok $i - $name alone (C++)"
		else
			echo "not ok $i - $name alone (C++)"
			sed 's/^/# /' "$dir/err"
		fi
	else
		echo "ok $i - $name alone (C++) # SKIP no c++ compiler"
	fi
done
