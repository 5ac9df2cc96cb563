#!/bin/bash
# In the guest (tests/reencrypt/vm-luks2.sh): cryptsetup opens each image
# cryptoloop-reencrypt --luks2 wrote, and dm-crypt must give back the
# plaintext. Prints TAP; exits non-zero when a test fails. The files sit
# on the host's 9p share, which refuses the O_DIRECT that libcryptsetup
# reads headers with, so each is put behind a loop device first.
dir=$1
failed=0
n=0
modprobe dm_crypt 2>/dev/null || true
modprobe loop 2>/dev/null || true
echo "1..3"
check() {
	local img=$1 hdr=$2 key=$3 what=$4 name=clreenc$RANDOM hdev= idev
	n=$((n + 1))
	# "-": the header is in the image
	[ "$hdr" = - ] || hdev=$(losetup -f --show -r "$dir/$hdr")
	idev=$(losetup -f --show "$dir/$img")
	if ! cryptsetup open ${hdev:+--header "$hdev"} $key "$idev" "$name"; then
		echo "not ok $n $what: cryptsetup open failed"
		failed=1
		losetup -d $hdev "$idev"
		return
	fi
	if cmp "/dev/mapper/$name" "$dir/plain"; then
		echo "ok $n $what"
	else
		echo "not ok $n $what: dm-crypt reads other data"
		failed=1
	fi
	cryptsetup close "$name"
	losetup -d $hdev "$idev"
}
check img1 hdr1 "--key-file $dir/key" "aes to LUKS2 aes-xts-plain64 (pbkdf2 keyslot): cryptsetup open --header reads the plaintext"
check img2 hdr2 "--key-file $dir/key" \
	"AES256 at 1 MiB to LUKS2 aes-cbc-plain64 (data offset 1 MiB, argon2id keyslot): cryptsetup open --header reads it"
check img3 - "--key-file $dir/key" \
	"aes to LUKS2 in the image (no --header, data moved 16 MiB up): cryptsetup open reads it"
exit $failed
