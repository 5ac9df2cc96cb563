#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# No circles in libloop (TAP): a file that calls into another must not be
# called back by it, directly or through a third, or the two can only be
# understood together. The call graph is read from the built objects, not
# from the sources: file A depends on file B when A's object leaves a
# symbol undefined that B's object defines. Calls through the engine
# tables (function pointers) are invisible here, which is the point of
# the tables. Each circle, a strongly connected component of more than
# one file, is reported by its source files.
# The same graph between libloop's rooms (base/, device/, engine/, ...)
# says whether one can be read without the others above it; between its
# convenience libraries, whether a program linking them statically needs
# to name one twice: it must not.
# With nm missing the checks are skipped, never passed.
set -u
: "${top_builddir:?run through make check}"
echo "1..3"
if ! command -v nm >/dev/null 2>&1; then
	for i in 1 2 3; do echo "ok $i # SKIP nm not installed"; done
	exit 0
fi

# libtool's PIC objects of every libloop library (convenience ones and
# the dm engine module); a source in several libraries counts once
objs=$(find "$top_builddir/libloop" -path '*/.libs/*.o' | sort)
if [ -z "$objs" ]; then
	for i in 1 2 3; do echo "not ok $i - no objects under $top_builddir/libloop: build first"; done
	exit 0
fi
tmp=${TMPDIR:-/tmp}/cycles.$$
trap 'rm -f "$tmp" "$tmp.out"' EXIT

# "file room library symbol D" for a global definition, "... U" for a
# use; file is the source the object was compiled from, room its folder,
# library the one it went into: libloop/engine/.libs/
# libloop_libloopcore_la-fuse.o is libloop/engine/fuse.c in libloopcore
for o in $objs; do
	rel=${o#"$top_builddir"/}
	dir=${rel%/.libs/*}
	base=${rel##*/}
	lib=${base%%_la-*}
	lib=${lib#libloop_}
	base=${base#*_la-}
	nm -P "$o" | awk -v f="$dir/${base%.o}.c" -v r="$dir/" -v l="$lib" '
		$2 == "U" || $2 == "w" { print f, r, l, $1, "U"; next }
		$2 ~ /^[TDBRVWGSC]$/ { print f, r, l, $1, "D" }'
done > "$tmp"

# circles: strongly connected components of more than one node, node
# being field $1 (files), $2 (rooms) or $3 (libraries)
circles() {
	awk -v k="$1" '
	$5 == "D" { def[$4] = $k; next }
	{ use[++n] = $k " " $4 }
	END {
		for (i = 1; i <= n; i++) {
			split(use[i], u, " ")
			if (!(u[2] in def) || def[u[2]] == u[1])
				continue
			a = u[1]; b = def[u[2]]
			node[a]; node[b]
			if (!((a, b) in reach)) {
				reach[a, b] = 1
				via[a, b] = u[2]
			}
		}
		for (m in node)
			for (i in node)
				if ((i, m) in reach)
					for (j in node)
						if ((m, j) in reach)
							reach[i, j] = 1
		found = 0
		for (i in node) {
			if (i in done)
				continue
			members = i
			for (j in node)
				if (j != i && (i, j) in reach && (j, i) in reach) {
					members = members " " j
					done[j]
				}
			done[i]
			if (members == i)
				continue
			found++
			print "# circle: " members
			c = split(members, mm, " ")
			for (x = 1; x <= c; x++)
				for (y = 1; y <= c; y++)
					if ((mm[x], mm[y]) in via)
						print "#   " mm[x] " -> " mm[y] " (" via[mm[x], mm[y]] ")"
		}
		exit found > 0
	}' "$tmp"
}

t=0
for what in "1 files" "2 rooms" "3 libraries"; do
	t=$((t + 1))
	if circles "${what% *}" > "$tmp.out"; then
		echo "ok $t - no circles between libloop's ${what#* }"
	else
		echo "not ok $t - no circles between libloop's ${what#* }"
		cat "$tmp.out"
	fi
done
