#!/bin/bash
# run-kat.sh - compare libloop (through kat-tool) with the stored known
# answers in vectors/*.kat, which were produced by independent tools
# (gen-*.sh).  Each case: encrypt data/plain-16s.bin, compare SHA-256 with
# the stored value, then decrypt that ciphertext and compare with the
# plaintext.  With KAT_LIVE=1 (default when the peer tool is installed)
# the generators are also rerun and must reproduce the stored files.
#
# Usage: run-kat.sh [KAT_TOOL [vector-file...]]      (TAP output)
# KAT_TOOL defaults to $top_builddir/tests/kat/kat-tool (make check).
set -u
. "$(dirname "$0")/kat-lib.sh"
. "$(dirname "$0")/../lib/tap.sh"
tool=${1:-${top_builddir:-.}/tests/kat/kat-tool}
[ $# -gt 0 ] && shift
[ -x "$tool" ] || { echo "Bail out! no kat-tool at $tool"; exit 99; }
[ $# -gt 0 ] || set -- "$KAT_DIR"/vectors/*.kat
KAT_GPGHOME=$(mktemp -d)
tmp=$(mktemp -d)
stop_agent() { command -v gpgconf >/dev/null && gpgconf --homedir "$KAT_GPGHOME" --kill all 2>/dev/null; true; }
trap 'stop_agent; rm -rf "$KAT_GPGHOME" "$tmp"' EXIT
tap_open
plain_sha=$(sha256_of <"$KAT_PLAIN")

for f in "$@"; do
	base=$(basename "$f" .kat)
	grep -v '^#' "$f" | grep -v '^[[:space:]]*$' >"$tmp/cases"
	while IFS='|' read -r name args pass want; do
		name=$(trim "$name"); args=$(expand_args "$(trim "$args")")
		pass=$(trim "$pass"); want=$(trim "$want")
		pfd=""; [ "$pass" = "-" ] || pfd="-p 3"
		case " $args " in *" -K "*)
			if ! command -v gpg >/dev/null; then
				tap_skip "$base/$name" "gpg not installed"
				continue
			fi ;;
		esac
		# shellcheck disable=SC2086
		run_with_pass "$pass" "$tool" $args $pfd <"$KAT_PLAIN" >"$tmp/ct" 2>"$tmp/err"
		got=$(sha256_of <"$tmp/ct")
		if [ "$got" = "$want" ]; then
			tap_ok "$base/$name encrypt"
		else
			tap_not_ok "$base/$name encrypt (got $got want $want: $(cat "$tmp/err"))"
			continue
		fi
		# shellcheck disable=SC2086
		run_with_pass "$pass" "$tool" $args $pfd -d <"$tmp/ct" >"$tmp/pt" 2>"$tmp/err"
		if [ "$(sha256_of <"$tmp/pt")" = "$plain_sha" ]; then
			tap_ok "$base/$name decrypt"
		else
			tap_not_ok "$base/$name decrypt ($(cat "$tmp/err"))"
		fi
	done <"$tmp/cases"
done

# Live: the peer tools must still produce exactly the stored vectors.
if [ "${KAT_LIVE:-1}" = 1 ]; then
	for f in "$@"; do
		base=$(basename "$f" .kat)
		gen="$KAT_DIR/gen-$base.sh"
		[ -x "$gen" ] || continue
		cp "$f" "$tmp/saved"
		if KAT_OUT="$tmp/live.kat" "$gen" >"$tmp/genlog" 2>&1; then
			if diff -q <(grep -v '^#' "$tmp/saved") <(grep -v '^#' "$tmp/live.kat") >/dev/null 2>&1; then
				tap_ok "$base: live regeneration matches stored vectors"
			else
				tap_not_ok "$base: live regeneration differs from stored vectors"
			fi
		else
			rc=$?
			if [ $rc = 77 ]; then
				tap_skip "$base: live regeneration" "peer tool not installed"
			else
				tap_not_ok "$base: generator failed: $(tail -1 "$tmp/genlog")"
			fi
		fi
	done
fi
tap_close
