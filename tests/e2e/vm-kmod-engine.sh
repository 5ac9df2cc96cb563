#!/bin/bash
# losetup's kmod engine end to end, inside the VM of tests/vm/run (this
# kernel cannot load modules). Checked against aespipe, as the FUSE
# engine is by the e2e suites. Run by hand, from the source tree:
#
#   make install DESTDIR=/var/tmp/clf-inst     # not under /tmp: the guest
#                                               # has its own /tmp
#   tests/vm/run -- tests/e2e/vm-kmod-engine.sh /var/tmp/clf-inst/usr/local
#
# Prints one "ok"/"not ok" line per check; exits 1 when any failed.
set -u
prefix=${1:?usage: vm-kmod-engine.sh INSTALL-PREFIX}
export LD_LIBRARY_PATH=$prefix/lib
L=$prefix/sbin/losetup
failed=0
check() {	# check NAME COMMAND...
	if "${@:2}"; then echo "ok - $1"; else echo "not ok - $1"; failed=1; fi
}

[ -e /dev/cryptoloop-control ] || insmod "${CLVM_KO:?not in the VM}" ||
	{ echo "not ok - cannot load cryptoloop.ko"; exit 1; }
T=$(mktemp -d /tmp/clf-kmod.XXXXXX)
truncate -s 32M "$T/img"
echo "passphrase for the kmod engine test" > "$T/pass"
head -c 4M /dev/urandom > "$T/data"
head -c 4096 /dev/urandom | base64 -w 40 | head -n 65 > "$T/keys65"
head -n 64 "$T/keys65" > "$T/keys64"

# write DATA through a kmod device attached with ARGS, detach, then let
# aespipe (AESPIPE-ARGS after --) decrypt the image
through() {
	local args=() dev
	while [ "$1" != -- ]; do args+=("$1"); shift; done
	shift
	dev=$("$L" --engine kmod "${args[@]}" -f --show "$T/img" 3< "$T/pass") || return 1
	case "$dev" in /dev/cryptoloop*) ;; *) "$L" -d "$dev"; return 1;; esac
	"$L" -l -n -O ENGINE "$dev" | grep -qx " *kmod *" || { "$L" -d "$dev"; return 1; }
	dd if="$T/data" of="$dev" bs=1M oflag=direct status=none || { "$L" -d "$dev"; return 1; }
	"$L" -d "$dev" || return 1
	aespipe -d "$@" < "$T/img" 3< "$T/pass" | head -c 4M | cmp -s - "$T/data"
}

check "AES256 single key, image equals aespipe's" through -e AES256 -p 3 -- -e aes256 -p 3
check "multi-key v3 (65 lines), image equals aespipe's" \
	through -e AES128 --cleartext-keyfile "$T/keys65" -- -e aes128 -P "$T/keys65"
check "multi-key v2 (64 lines), image equals aespipe's" \
	through -e AES192 --cleartext-keyfile "$T/keys64" -- -e aes192 -P "$T/keys64"

dev=$("$L" -e aes -p 3 -o 1M -f --show "$T/img" 3< "$T/pass")
check "auto picks kmod where the module is" test "$("$L" -l -n -O ENGINE "$dev" | tr -d ' ')" = kmod
check "-a shows the image, offset and cipher" \
	sh -c "'$L' -a | grep -q '^$dev: .*($T/img), offset 1048576, encryption aes (type 18)\$'"
check "-d detaches" "$L" -d "$dev"
check "no record left" sh -c "! grep -rqs 'image=$T/' /run/cryptoloop"
rm -rf "$T"
exit "$failed"
