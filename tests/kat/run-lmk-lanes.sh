#!/bin/bash
# run-lmk-lanes.sh - loop-AES multi-key images of 208 + 5 sectors, byte for
# byte against aespipe, on every path this CPU runs: AES width (256: VAES
# on ymm, 128: xmm; LIBLOOP_CRYPTO_AES_WIDTH lowers it) x lmk lanes (32
# with AVX-512F, 16 and 8 with AVX2, always 1; LIBLOOP_CRYPTO_MD5_LANES
# lowers it).  The 32- and 16-sector batches, the fused VAES+MD5 loops
# (width 256 with 16 lanes, and with 32 where the CPU has AVX512VL), the
# xmm halves of a batch and the 5 leftover sectors land at different
# places with IV offsets of 0 and 5.  Each run must name the path it was
# asked for (kat-tool -i).  TAP output; paths the CPU cannot run are SKIP
# lines that say why.
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
skip() { n=$((n + 1)); echo "ok $n # SKIP $1: $2"; }

{
	for _ in $(seq 13); do cat "$KAT_PLAIN"; done
	head -c $((5 * 512)) "$KAT_PLAIN"
} >"$tmp/plain"
echo "# this CPU runs at most: $("$tool" -N) lmk lanes, AES width $("$tool" -W) (0: no AES-NI)"

# name | aespipe args | kat-tool args | key file
cases="mk64-aes128|-e aes128|-e AES128|keys64.txt
mk65-aes256|-e aes256|-e AES256|keys65.txt
mk65-aes192-ivoff5|-e aes192 -O 5|-e AES192 -I 5|keys65.txt"

# aespipe's images, once: they do not depend on our path
have_peer=0
if command -v aespipe >/dev/null; then
	have_peer=1
	while IFS='|' read -r name pargs _ keys; do
		# shellcheck disable=SC2086
		aespipe $pargs -p 3 3<"$KAT_DIR/pass/$keys" <"$tmp/plain" >"$tmp/peer-$name" \
			2>"$tmp/err" || { notok "$name: aespipe failed: $(cat "$tmp/err")"; exit 1; }
	done <<<"$cases"
fi

# what loop_crypt_impl_name() says for WIDTH LANES
impl_of() {
	local aes=aesni-8way+vaes,\ ymm fused=
	[ "$1" = 128 ] && aes=aesni-8way,\ xmm
	[ "$1" = 256 ] && [ "$2" = 16 ] && fused=" fused"
	[ "$1" = 256 ] && [ "$2" = 32 ] && grep -qw avx512vl /proc/cpuinfo && fused=" fused"
	if [ "$2" = 1 ]; then
		echo "kat-tool: $aes, md5 1-lane"
	elif [ "$2" = 32 ]; then
		echo "kat-tool: $aes, md5 32-lane avx512$fused"
	else
		echo "kat-tool: $aes, md5 $2-lane avx2$fused"
	fi
}

for width in 256 128; do
	gotw=$(LIBLOOP_CRYPTO_AES_WIDTH=$width "$tool" -W)
	for lanes in 32 16 8 1; do
		got=$(LIBLOOP_CRYPTO_MD5_LANES=$lanes "$tool" -N)
		want=$(impl_of "$width" "$lanes")
		export LIBLOOP_CRYPTO_AES_WIDTH=$width LIBLOOP_CRYPTO_MD5_LANES=$lanes
		while IFS='|' read -r name _ kargs keys; do
			label="width=$width lanes=$lanes $name"
			if [ "$gotw" = 0 ]; then
				skip "$label" "no AES-NI on this CPU"
				continue
			elif [ "$gotw" != "$width" ]; then
				skip "$label" "this CPU runs AES width $gotw at most (no working VAES)"
				continue
			elif [ "$got" != "$lanes" ]; then
				skip "$label" "this CPU runs $got lmk lanes at most$(
					[ "$lanes" = 32 ] && ! grep -qw avx512f /proc/cpuinfo &&
						echo ' (no AVX-512F)')"
				continue
			elif [ "$have_peer" = 0 ]; then
				skip "$label" "aespipe not installed"
				continue
			fi
			# shellcheck disable=SC2086
			"$tool" -i $kargs -p 3 3<"$KAT_DIR/pass/$keys" <"$tmp/plain" \
				>"$tmp/ours" 2>"$tmp/err"
			if [ "$(cat "$tmp/err")" != "$want" ]; then
				notok "$label: runs '$(cat "$tmp/err")', not '$want'"
			elif cmp -s "$tmp/ours" "$tmp/peer-$name"; then
				ok "$label: encrypt == aespipe"
			else
				notok "$label: encrypt differs from aespipe"
			fi
			# shellcheck disable=SC2086
			"$tool" $kargs -d -p 3 3<"$KAT_DIR/pass/$keys" <"$tmp/peer-$name" \
				>"$tmp/back" 2>"$tmp/err"
			if cmp -s "$tmp/back" "$tmp/plain"; then
				ok "$label: decrypts aespipe's image"
			else
				notok "$label: does not decrypt aespipe's image $(cat "$tmp/err")"
			fi
		done <<<"$cases"
		unset LIBLOOP_CRYPTO_AES_WIDTH LIBLOOP_CRYPTO_MD5_LANES
	done
done
echo "1..$n"
[ "$fail" = 0 ]
