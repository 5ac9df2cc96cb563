#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The DKMS path users take: Debian's dkms, inside a suite's chroot from
# tests/vm/host/fetch-kernel, builds and signs the module from kmod/ the way
# `dkms add` + `dkms build` do on a Debian machine.  Runs on the host:
#   CLVM_KROOT=/var/cache/cryptoloop-vm/sid/root CLVM_BUILD=_build bats tests/vm/suites/dkms.bats

setup_file() {
	: "${CLVM_KROOT:?set CLVM_KROOT to a tests/vm/host/fetch-kernel tree}"
	R=$CLVM_KROOT
	K=$(cat "$R/kver")
	: "${CLVM_BUILD:?set CLVM_BUILD to the configured build directory}"
	# The version dkms.conf declares (configure takes it from AC_INIT) is
	# the directory name dkms wants.
	V=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$CLVM_BUILD/kmod/dkms.conf")
	[ -n "$V" ]
	export R K V
	in_chroot dkms remove "cryptoloop/$V" --all >/dev/null 2>&1 || true
	rm -rf "$R/usr/src/cryptoloop-$V" "$R/usr/src/cryptoloop-xfer-$V"
	# the trees users get from `make dkms-source` (both modules)
	make -s -C "$CLVM_BUILD" dkms-source DESTDIR="$R" DKMS_SRCDIR="/usr/src/cryptoloop-$V" \
		LEGACY_DKMS_SRCDIR="/usr/src/cryptoloop-xfer-$V"
	in_chroot dkms add "cryptoloop/$V" >"$BATS_FILE_TMPDIR/dkms.log" 2>&1
	in_chroot dkms build "cryptoloop/$V" -k "$K" >>"$BATS_FILE_TMPDIR/dkms.log" 2>&1 ||
		{ cat "$BATS_FILE_TMPDIR/dkms.log" >&2; return 1; }
}

teardown_file() {
	in_chroot dkms remove "cryptoloop/$V" --all >/dev/null 2>&1 || true
	rm -rf "$R/usr/src/cryptoloop-$V" "$R/usr/src/cryptoloop-xfer-$V"
}

# in_chroot CMD...: run CMD in the chroot with its own /proc, mounted in a
# private mount namespace so nothing stays mounted afterwards.
in_chroot() {
	unshare --mount --propagation private sh -c '
		r=$1; shift
		mount -t proc proc "$r/proc" && exec chroot "$r" "$@"' sh "$R" \
		/usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"
}

built_ko() {
	ls "$R/var/lib/dkms/cryptoloop/$V/$K/x86_64/module/"cryptoloop.ko*
}

@test "dkms build in the chroot builds cryptoloop for the suite's kernel without a warning" {
	ko=$(built_ko)
	[ -s "$ko" ]
	log=$R/var/lib/dkms/cryptoloop/$V/$K/x86_64/log/make.log
	[ -s "$log" ]
	grep -q 'cryptoloop.ko' "$log"
	run grep -i 'warning:' "$log"
	[ "$status" -eq 1 ]
	[ "$(in_chroot modinfo -F vermagic "${ko#"$R"}" | cut -d' ' -f1)" = "$K" ]
}

@test "the DKMS-built module carries a valid signature by dkms's MOK key (/var/lib/dkms/mok.pub)" {
	ko=$(built_ko)
	mod=${ko#"$R"}
	# What modinfo reports...
	signer=$(in_chroot modinfo -F signer "$mod")
	[ -n "$signer" ]
	in_chroot openssl x509 -inform DER -in /var/lib/dkms/mok.pub -noout \
		-subject -serial >"$BATS_TEST_TMPDIR/cert"
	grep -qx "subject=CN *= *$signer" "$BATS_TEST_TMPDIR/cert"
	key=$(in_chroot modinfo -F sig_key "$mod" | tr -d ':')
	grep -qix "serial=$key" "$BATS_TEST_TMPDIR/cert"
	# ...and the signature itself: the PKCS#7 blob sign-file appended must
	# verify over the rest of the module with that certificate alone.
	case "$ko" in
	*.xz) xz -dc "$ko" >"$BATS_TEST_TMPDIR/m.ko" ;;
	*.zst) zstd -qdc "$ko" >"$BATS_TEST_TMPDIR/m.ko" ;;
	*) cp "$ko" "$BATS_TEST_TMPDIR/m.ko" ;;
	esac
	python3 - "$BATS_TEST_TMPDIR" <<'EOF'
import struct, sys
d = sys.argv[1]
m = open(d + "/m.ko", "rb").read()
magic = b"~Module signature appended~\n"
assert m.endswith(magic), "no appended signature"
m = m[:-len(magic)]
# struct module_signature: 12 bytes, sig_len big-endian at the end.
siglen = struct.unpack(">I", m[-4:])[0]
open(d + "/sig.der", "wb").write(m[-12 - siglen:-12])
open(d + "/payload", "wb").write(m[:-12 - siglen])
EOF
	openssl x509 -inform DER -in "$R/var/lib/dkms/mok.pub" -out "$BATS_TEST_TMPDIR/mok.pem"
	openssl cms -verify -binary -inform DER -in "$BATS_TEST_TMPDIR/sig.der" \
		-content "$BATS_TEST_TMPDIR/payload" -certfile "$BATS_TEST_TMPDIR/mok.pem" \
		-nointern -noverify -out /dev/null
	# A changed byte must break it, or the check above proves nothing.
	printf 'x' >>"$BATS_TEST_TMPDIR/payload"
	run openssl cms -verify -binary -inform DER -in "$BATS_TEST_TMPDIR/sig.der" \
		-content "$BATS_TEST_TMPDIR/payload" -certfile "$BATS_TEST_TMPDIR/mok.pem" \
		-nointern -noverify -out /dev/null
	[ "$status" -ne 0 ]
}

@test "dkms.conf's BUILD_EXCLUSIVE_KERNEL takes exactly the tested range, 6.1 to 7.3" {
	re=$(sed -n 's/^BUILD_EXCLUSIVE_KERNEL="\(.*\)"/\1/p' "$R/usr/src/cryptoloop-$V/dkms.conf")
	[ -n "$re" ]
	for k in 6.1.0-57-amd64 6.12.117+deb13-amd64 7.2.13+deb14-amd64 7.3.4+deb13-amd64 "$K"; do
		[[ "$k" =~ $re ]] || { echo "refuses $k" >&2; return 1; }
	done
	for k in 5.10.0-35-amd64 5.15.0 6.0.19 7.4.0 16.1.0; do
		if [[ "$k" =~ $re ]]; then echo "takes $k" >&2; return 1; fi
	done
}

@test "the cryptoloop-xfer dkms tree builds cryptoloop_xfer.ko on 5.10's headers with its dkms.conf's MAKE line" {
	local src=$R/usr/src/cryptoloop-xfer-$V
	local b510=${CLVM_LEGACY_CACHE:-/var/cache/cryptoloop-vm/bullseye}/root k510 make0
	[ -e "$b510/.complete" ] ||
		skip "no 5.10 tree (tests/vm/legacy/fetch-5.10 has not run)"
	k510=$(cat "$b510/kver")
	# The format code comes along in format/, as the module's Kbuild wants.
	[ -f "$src/format/crypt.c" ]
	[ -f "$src/format/md5.c" ]
	[ -f "$src/format/clo_format.h" ]
	[ -f "$src/format.c" ]
	grep -q '^PACKAGE_NAME="cryptoloop-xfer"' "$src/dkms.conf"
	make0=$(sed -n 's/^MAKE\[0\]="\(.*\)"/\1/p' "$src/dkms.conf")
	[ "$make0" = 'make KDIR=${kernel_source_dir} modules' ]
	cp -r "$src" "$BATS_TEST_TMPDIR/x"
	make -C "$BATS_TEST_TMPDIR/x" KDIR="$b510/usr/src/linux-headers-$k510" modules \
		>"$BATS_TEST_TMPDIR/make.log" 2>&1 || { cat "$BATS_TEST_TMPDIR/make.log" >&2; return 1; }
	run grep -i 'warning:' "$BATS_TEST_TMPDIR/make.log"
	[ "$status" -eq 1 ]
	[ "$(modinfo -F vermagic "$BATS_TEST_TMPDIR/x/cryptoloop_xfer.ko" | cut -d' ' -f1)" = "$k510" ]
}
