# kat-lib.sh - shared by the KAT generators and run-kat.sh (sourced).
# Case files: "name | peer-tool args | kat-tool args | passfile" (3rd
# column unused by openssl/perl generators); vector files:
# "name | kat-tool args | passfile | sha256 of the 16-sector ciphertext".

KAT_DIR=$(cd "$(dirname "$0")" && pwd)
KAT_PLAIN="$KAT_DIR/data/plain-16s.bin"

trim() { printf '%s' "$1" | sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//'; }

# expand @PASS@ and @GPGHOME@
expand_args() {
	printf '%s' "$1" | sed -e "s#@PASS@#$KAT_DIR/pass#g" -e "s#@GPGHOME@#$KAT_GPGHOME#g"
}

sha256_of() { sha256sum | cut -d' ' -f1; }

# run_with_pass PASSFILE CMD...: passphrase on fd 3, never in argv/env
run_with_pass() {
	_pf=$1; shift
	if [ "$_pf" = "-" ]; then
		"$@"
	else
		"$@" 3<"$KAT_DIR/pass/$_pf"
	fi
}
