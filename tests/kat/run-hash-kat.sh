#!/bin/sh
# run-hash-kat.sh KAT_TOOL: derive keys with libloop's cryptsetup-style
# plain hashing and compare with cryptsetup's documented answers
# (vectors/cryptsetup-hash.txt).  TAP output.
set -u
tool=${1:-${top_builddir:-.}/tests/kat/kat-tool}
[ -x "$tool" ] || { echo "Bail out! no kat-tool at $tool"; exit 99; }
dir=$(cd "$(dirname "$0")" && pwd)
n=0 fail=0
while read -r hash bits pass want; do
	case $hash in \#*|"") continue ;; esac
	pass=${pass#\"}; pass=${pass%\"}
	n=$((n + 1))
	# passphrase on fd 3, read up to the newline like cryptsetup's "pwd"
	got=$(printf '%s\n' "$pass" | "$tool" -e aes-cbc-plain -k "$bits" -h "$hash" -X -p 3 3<&0 2>/dev/null) || got=FAIL
	if [ "$got" = "$want" ]; then
		echo "ok $n - cryptsetup --hash $hash -s $bits \"$pass\""
	else
		fail=$((fail + 1))
		echo "not ok $n - cryptsetup --hash $hash -s $bits \"$pass\": got $got want $want"
	fi
done <"$dir/vectors/cryptsetup-hash.txt"
echo "1..$n"
[ $fail = 0 ]
