#!/bin/bash
# cryptoloop-reencrypt --luks2 results opened by cryptsetup with dm-crypt,
# which this host does not have: the images are made here with the build
# tree's tool, then a Debian 6.1 guest (tests/vm/host/run) opens them.
#   tests/reencrypt/vm-luks2.sh BUILD_DIR      prints TAP
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:?usage: vm-luks2.sh BUILD_DIR}" && pwd)
reenc=$build/reencrypt/cryptoloop-reencrypt
# the guest mounts its own /tmp: share through /var/tmp
dir=$(mktemp -d /var/tmp/cryptoloop-reenc-vm.XXXXXX)
trap 'rm -rf "$dir"' EXIT
printf 'old passphrase of the image\n' > "$dir/p_old"
printf 'the LUKS2 passphrase, long enough\n' > "$dir/p_new"
printf 'the LUKS2 passphrase, long enough' > "$dir/key"
head -c 4M /dev/urandom > "$dir/plain"

# 1: util-linux 2.12 aes, aes-xts-plain64 (the default), a pbkdf2 keyslot;
# 2: AES256 at a 1 MiB offset, which becomes the LUKS2 data offset, to
# aes-cbc-plain64, an argon2id keyslot. Each keyslot's cost is forced, and
# small: the guest's cryptsetup opens them with the passphrase under TCG,
# where libcryptsetup's default (argon2id, benchmarked here for 2 s and
# up to 1 GiB) takes minutes.
aespipe -e AES256 -H unhashed2 -p 3 3<"$dir/p_old" < "$dir/plain" > "$dir/img1"
"$reenc" --progress=never -e aes -p 3 "$dir/img1" --new --luks2 --header "$dir/hdr1" \
	--pbkdf pbkdf2 --pbkdf-force-iterations 1000 -p 4 3<"$dir/p_old" 4<"$dir/p_new"
head -c 1M /dev/urandom > "$dir/img2"
aespipe -e AES256 -O 2048 -p 3 3<"$dir/p_old" < "$dir/plain" >> "$dir/img2"
"$reenc" --progress=never -e AES256 -o 1M -p 3 "$dir/img2" --new --luks2 \
	--header "$dir/hdr2" --cipher aes-cbc-plain64 --pbkdf argon2id \
	--pbkdf-force-iterations 4 --pbkdf-memory 1024 -p 4 3<"$dir/p_old" 4<"$dir/p_new"

# 3: util-linux aes to LUKS2 in the image itself (no --header): the file
# grows by 16 MiB and the data moves behind the header
aespipe -e AES256 -H unhashed2 -p 3 3<"$dir/p_old" < "$dir/plain" > "$dir/img3"
"$reenc" --progress=never -e aes -p 3 "$dir/img3" --new --luks2 \
	--pbkdf pbkdf2 --pbkdf-force-iterations 1000 -p 4 3<"$dir/p_old" 4<"$dir/p_new"

cd "$src"
tests/vm/host/run --timeout 900 -- bash tests/reencrypt/guest-luks2.sh "$dir"
