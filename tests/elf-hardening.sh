#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Every program and shared library this build made is linked with full
# RELRO (a GNU_RELRO segment and immediate binding: BIND_NOW, or NOW in
# FLAGS_1) and every program is position independent (TAP). Immediate
# binding matters beyond the GOT: glibc's lazy-binding trampoline saves
# every vector register on the stack at a function's first call, and a
# register that still held a passphrase leaves a copy there.
# With readelf missing, or the build configured --disable-hardening, the
# checks are skipped, never passed.
set -u
: "${top_builddir:?run through make check}"

# the build's own directories: not BUILD/san or BUILD/fuzz (the sanitizer
# builds tools/check-hardening makes inside it), not distcheck's tree
elfs() {
	for d in libloop losetup mount reencrypt fuse generator tests tools; do
		[ -d "$top_builddir/$d" ] && find "$top_builddir/$d" -type f \( -perm -u+x -o -name '*.so*' \) ! -name '*.soT'
	done | while read -r f; do
		# static copies of crypto tests, for tools/emulate-avx512's
		# guest only: nothing is bound at run time, nothing installed
		case $f in */tests/unit/*-static) continue ;; esac
		case $(head -c 4 "$f" | od -An -c | tr -d ' ') in
		177ELF) readelf -h "$f" 2>/dev/null | grep -qE 'Type:[[:space:]]+(EXEC|DYN)' && echo "$f" ;;
		esac
	done | sort
}

if ! command -v readelf >/dev/null 2>&1; then
	echo "1..0 # SKIP readelf not installed"
	exit 0
fi
if [ -z "${HARDEN_LDFLAGS:-}" ]; then
	echo "1..0 # SKIP configured --disable-hardening (or the linker has no -z relro -z now)"
	exit 0
fi
files=$(elfs)
[ -n "$files" ] || { echo "1..1"; echo "not ok 1 - no ELF file found under $top_builddir"; exit 1; }
i=0
for f in $files; do
	name=${f#"$top_builddir"/}
	dyn=$(readelf -d "$f" 2>/dev/null)
	i=$((i + 1))
	if readelf -lW "$f" 2>/dev/null | grep -q 'GNU_RELRO' &&
	   printf '%s\n' "$dyn" | grep -qE '\(BIND_NOW\)|\(FLAGS\).*BIND_NOW|\(FLAGS_1\).*[[:space:]]NOW'; then
		echo "ok $i - $name: full RELRO (GNU_RELRO, BIND_NOW)"
	else
		echo "not ok $i - $name: not full RELRO (GNU_RELRO and BIND_NOW or FLAGS_1 NOW)"
	fi
	# a program has an interpreter; a shared library has none
	readelf -lW "$f" | grep -q 'INTERP' || continue
	i=$((i + 1))
	if readelf -h "$f" | grep -qE 'Type:[[:space:]]+DYN' &&
	   printf '%s\n' "$dyn" | grep -qE '\(FLAGS_1\).*PIE'; then
		echo "ok $i - $name: position independent executable"
	else
		echo "not ok $i - $name: not a position independent executable"
	fi
done
echo "1..$i"
