#!/bin/bash
# run-lmk-lanes.sh - loop-AES multi-key images of 208 sectors, byte for
# byte against aespipe, at every lmk lane count this CPU runs (16 and 8
# with AVX2, always 1; LIBLOOP_CRYPTO_MD5_LANES lowers it).  208 sectors
# and IV offsets of 0 and 5 put the 16-sector batches, the fused VAES+MD5
# pipeline and the leftover sectors at different places.  TAP output;
# lane counts the CPU cannot run are SKIP lines that say so.
#
# Usage: run-lmk-lanes.sh [KAT_TOOL]
set -u
. "$(dirname "$0")/kat-lib.sh"
tool=${1:-${top_builddir:-.}/tests/kat/kat-tool}
[ -x "$tool" ] || { echo "Bail out! no kat-tool at $tool"; exit 99; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $1"; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }

for _ in $(seq 13); do cat "$KAT_PLAIN"; done >"$tmp/plain"
most=$("$tool" -N)
echo "# lmk lanes this CPU runs at most: $most"

# name | aespipe args | kat-tool args | key file
cases="mk64-aes128|-e aes128|-e AES128|keys64.txt
mk65-aes256|-e aes256|-e AES256|keys65.txt
mk65-aes192-ivoff5|-e aes192 -O 5|-e AES192 -I 5|keys65.txt"

for lanes in 16 8 1; do
	got=$(LIBLOOP_CRYPTO_MD5_LANES=$lanes "$tool" -N)
	while IFS='|' read -r name pargs kargs keys; do
		label="lanes=$lanes $name"
		if [ "$got" != "$lanes" ]; then
			skip "$label" "this CPU runs $got lanes at most"
			continue
		fi
		if ! command -v aespipe >/dev/null; then
			skip "$label" "aespipe not installed"
			continue
		fi
		# shellcheck disable=SC2086
		aespipe $pargs -p 3 3<"$KAT_DIR/pass/$keys" <"$tmp/plain" >"$tmp/peer" 2>"$tmp/err" ||
			{ notok "$label: aespipe failed: $(cat "$tmp/err")"; continue; }
		# shellcheck disable=SC2086
		LIBLOOP_CRYPTO_MD5_LANES=$lanes "$tool" $kargs -p 3 3<"$KAT_DIR/pass/$keys" \
			<"$tmp/plain" >"$tmp/ours" 2>"$tmp/err"
		if cmp -s "$tmp/ours" "$tmp/peer"; then
			ok "$label: encrypt == aespipe"
		else
			notok "$label: encrypt differs from aespipe $(cat "$tmp/err")"
		fi
		# shellcheck disable=SC2086
		LIBLOOP_CRYPTO_MD5_LANES=$lanes "$tool" $kargs -d -p 3 3<"$KAT_DIR/pass/$keys" \
			<"$tmp/peer" >"$tmp/back" 2>"$tmp/err"
		if cmp -s "$tmp/back" "$tmp/plain"; then
			ok "$label: decrypts aespipe's image"
		else
			notok "$label: does not decrypt aespipe's image $(cat "$tmp/err")"
		fi
	done <<<"$cases"
done
echo "1..$n"
[ "$fail" = 0 ]
