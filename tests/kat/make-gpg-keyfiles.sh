#!/bin/sh
# Create the gpg-encrypted loop-AES key files used as KAT *inputs*
# (pass/kf1.gpg, kf64.gpg, kf65.gpg): the first 1, 64 and 65 lines of
# pass/keys65.txt, symmetrically encrypted with pass/gpgpass.txt, the way
# loop-AES's README makes them (gpg --symmetric -a).  gpg output is
# randomised, so rerunning this changes the files but not the expected
# values: those depend only on the decrypted lines.
set -eu
cd "$(dirname "$0")/pass"
home=$(mktemp -d)
trap 'gpgconf --homedir "$home" --kill all 2>/dev/null; rm -rf "$home"' EXIT
for n in 1 64 65; do
	head -n "$n" keys65.txt |
	gpg --homedir "$home" --batch --yes --no-options --quiet \
	    --pinentry-mode loopback --passphrase-fd 3 \
	    --symmetric --cipher-algo AES256 -a -o "kf$n.gpg" 3<gpgpass.txt
done
