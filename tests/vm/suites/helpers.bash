# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by the guest-side bats suites of the module (kmod.bats,
# losetup-kmod.bats, swap.bats).  Runs inside the VM only (as root),
# started by tests/vm/guest/guest-kmod or guest-swap through tests/vm/host/run.
#
# Every test works in its own directory $T under /tmp (guest tmpfs) and
# registers what it attaches, mounts or opens (tests/lib/common.bash:
# attach, track, track_mount, track_map, on_teardown); teardown undoes
# exactly that.  Devices are attached with clctl, the ioctl tool.

. "$(dirname "${BASH_SOURCE[0]}")/../../lib/common.bash"

CLCTL=${CLVM_BIN:?run inside tests/vm/host/run}/clctl
ATTACH_WITH=clctl
PY=/usr/bin/python3

clvm_setup() {
	common_setup clt
	T=$TESTDIR
}

clvm_teardown() {
	common_teardown
}

# fails CMD...: succeed only if CMD fails.  Use this, not "! CMD": bash's
# errexit ignores a negated command, so "! CMD" in a test asserts nothing.
fails() {
	! "$@"
}

# Load the module under test if it is not loaded yet.
clvm_load() {
	if [ ! -e /sys/module/cryptoloop ]; then
		insmod "$CLVM_KO"
	fi
	udevadm settle 2>/dev/null || true
	[ -c /dev/cryptoloop-control ]
}

# free_dev: print a free /dev/cryptoloopN (creates one if needed); attach
# takes it when no device is named.
free_dev() {
	local n
	n=$("$CLCTL" getfree) || return 1
	echo "/dev/cryptoloop$n"
}

# dm_open NAME cryptsetup-open-args...: open a dm-crypt reference mapping.
dm_open() {
	local name=$1
	shift
	track_map "$name"
	cryptsetup open "$@" "$name"
}

dm_close() {
	cryptsetup close "$1"
}

# loopaes_keys TXT BIN KEYBYTES: derive raw keys from a loop-AES key file
# the way loop-AES and cryptsetup do (hash each line with SHA-256/384/512
# for 16/24/32-byte keys, cut, XOR the first byte with 0x55 for 64 keys or
# 0xF4 for 65), and lay them out as the multi-key ioctl wants: 32-byte
# slots, 64 or 65 of them.
loopaes_keys() {
	"$PY" - "$1" "$2" "$3" <<'PY'
import hashlib, sys
lines = open(sys.argv[1], 'rb').read().split(b'\n')
lines = [l for l in lines if l]
klen = int(sys.argv[3])
h = {16: 'sha256', 24: 'sha384', 32: 'sha512'}[klen]
tweak = {64: 0x55, 65: 0xF4}[len(lines)]
out = b''
for l in lines:
    k = bytearray(hashlib.new(h, l).digest()[:klen])
    k[0] ^= tweak
    out += bytes(k) + bytes(32 - klen)
open(sys.argv[2], 'wb').write(out)
PY
}

# loopaes_keyfile TXT N: N random lines of 32 base64 characters.
loopaes_keyfile() {
	"$PY" -c '
import base64, os, sys
with open(sys.argv[1], "w") as f:
    for _ in range(int(sys.argv[2])):
        f.write(base64.b64encode(os.urandom(24)).decode() + "\n")
' "$1" "$2"
}

# crypto_refs: live references to CBC and AES algorithms in /proc/crypto;
# each transform we allocate holds one, so a leaked transform shows here.
crypto_refs() {
	awk '/^name/ { n = $3 } /^refcnt/ { if (n ~ /cbc|aes/) s += $3 }
	     END { print s + 0 }' /proc/crypto
}

# mem_used_kb: memory in use that is neither page cache nor reclaimable
# slab, in kB; a leak of pages or unreclaimable objects shows up here.
mem_used_kb() {
	awk '/^(MemTotal):/ { t = $2 } /^(MemFree|Buffers|Cached|SReclaimable):/ { f += $2 }
	     END { print t - f }' /proc/meminfo
}

