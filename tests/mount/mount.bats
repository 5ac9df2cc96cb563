#!/usr/bin/env bats
# mount.cryptoloop / umount.cryptoloop through stock mount(8), with a
# temporary fstab, on the FUSE engine. Passphrases go through fd 3.
bats_require_minimum_version 1.5.0

load helpers

setup_file() {
	helpers_install
}

teardown_file() {
	helpers_remove
}

setup() {
	mount_setup
	echo "$IMG $MNT cryptoloop cipher=AES256,passfd=3,noauto 0 0" > "$FSTAB"
}

teardown() {
	[ -z "${AGENT_PID:-}" ] || kill "$AGENT_PID" 2>/dev/null || true
	e2e_teardown
}

@test "fstab: mount and umount cycles keep the data and leave no device" {
	for i in 1 2 3; do
		LIBMOUNT_FSTAB="$FSTAB" mount "$MNT" 3< "$TESTDIR/pass"
		mountpoint -q "$MNT"
		grep -q "TARGET=$MNT .*uhelper=cryptoloop" /run/mount/utab
		if [ "$i" -gt 1 ]; then
			[ "$(cat "$MNT/round")" = $((i - 1)) ]
		fi
		echo "$i" > "$MNT/round"
		# a plain umount comes back to umount.cryptoloop, which detaches
		umount "$MNT"
		run ! mountpoint -q "$MNT"
		nothing_attached
	done
}

@test "a wrong passphrase never mounts and never writes" {
	before=$(sha256sum < "$IMG")
	printf '%s\n' "this is not the passphrase at all" > "$TESTDIR/wrong"
	run --separate-stderr env LIBMOUNT_FSTAB="$FSTAB" mount "$MNT" 3< "$TESTDIR/wrong"
	[ "$status" -eq 32 ]
	[[ "$stderr" == *"no filesystem found on the decrypted device"*"wrong passphrase or cipher?"* ]]
	run ! mountpoint -q "$MNT"
	nothing_attached
	[ "$(sha256sum < "$IMG")" = "$before" ]
}

@test "mount -t cryptoloop from the command line, read-only" {
	mount -t cryptoloop -o cipher=AES256,passfd=3,ro "$IMG" "$MNT" 3< "$TESTDIR/pass"
	[ "$(findmnt -n -o OPTIONS "$MNT" | cut -d, -f1)" = ro ]
	dev=$(findmnt -n -o SOURCE "$MNT")
	[ "$("$LOSETUP" -n -O RO "$dev" | tr -d ' ')" = 1 ]
	run touch "$MNT/new"
	[ "$status" -ne 0 ]
	umount "$MNT"
	nothing_attached
}

@test "legacy encryption= in fstab is found by the helper's own lookup" {
	# libmount strips encryption= before the helper runs
	echo "$IMG $MNT cryptoloop encryption=AES256,passfd=3,noauto 0 0" > "$FSTAB"
	LIBMOUNT_FSTAB="$FSTAB" mount "$MNT" 3< "$TESTDIR/pass"
	mountpoint -q "$MNT"
	umount "$MNT"
	nothing_attached
}

@test "bad and conflicting options: clear errors, nothing mounted or attached" {
	# mount(8) strips encryption= itself; the helper sees it when run directly
	run --separate-stderr /sbin/mount.cryptoloop "$IMG" "$MNT" \
		-o cipher=AES256,encryption=aes,passfd=3 3< "$TESTDIR/pass"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"bad option 'encryption=aes'"* ]]
	run --separate-stderr mount -t cryptoloop -o cipher=AES256,cipher=aes,passfd=3 \
		"$IMG" "$MNT" 3< "$TESTDIR/pass"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"bad option 'cipher=aes'"* ]]
	run --separate-stderr mount -t cryptoloop -o passfd=3 "$IMG" "$MNT" 3< "$TESTDIR/pass"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"no cipher given"* ]]
	run --separate-stderr mount -t cryptoloop -o cipher=AES256,keybits "$IMG" "$MNT"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"bad option 'keybits'"* ]]
	run --separate-stderr mount -t cryptoloop -o cipher=rot13,passfd=3 "$IMG" "$MNT" 3< "$TESTDIR/pass"
	[ "$status" -eq 32 ]
	[[ "$stderr" == *rot13* ]]
	run --separate-stderr mount -t cryptoloop -o cipher=AES256,passfd=3 \
		"$TESTDIR/missing.img" "$MNT" 3< "$TESTDIR/pass"
	[ "$status" -eq 32 ]
	[[ "$stderr" == *"$TESTDIR/missing.img"* ]]
	run ! mountpoint -q "$MNT"
	nothing_attached
}

@test "mount -a: noauto entries stay unmounted, nofail tolerates a missing image" {
	mkdir -p "$TESTDIR/m2"
	cat > "$FSTAB" <<-EOT
	$IMG $MNT cryptoloop cipher=AES256,passfd=3,noauto 0 0
	$TESTDIR/missing.img $TESTDIR/m2 cryptoloop cipher=AES256,passfd=3,nofail 0 0
	EOT
	mount -a -T "$FSTAB" 3< "$TESTDIR/pass"
	run ! mountpoint -q "$MNT"
	run ! mountpoint -q "$TESTDIR/m2"
	nothing_attached
}

@test "user mounts are refused up front, before any passphrase or device" {
	command -v setpriv > /dev/null || skip "setpriv (util-linux) missing"
	chmod 755 "$TESTDIR"
	# a user (as mount(8) runs the helper of a "user" line): refused
	# before anything is read or attached, whatever the options say
	run --separate-stderr setpriv --reuid=nobody --regid=nogroup --clear-groups \
		/sbin/mount.cryptoloop "$IMG" "$MNT" -o cipher=AES256,user
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"$IMG: user mounts of encrypted images are not supported"* ]]
	[[ "$stderr" != *Password* ]]
	run ! mountpoint -q "$MNT"
	nothing_attached

	# a setuid-root copy (an administrator's mistake), run by a user: the
	# real uid decides, before the passphrase fd is read (a read of it
	# would hang), and nothing is attached. The copy finds the build's
	# libloop by RUNPATH: for setuid programs the loader ignores
	# LD_LIBRARY_PATH.
	install -o root -m 4755 /usr/bin/id "$TESTDIR/id"
	[ "$(setpriv --reuid=nobody --regid=nogroup --clear-groups "$TESTDIR/id" -u)" = 0 ] ||
		skip "setuid programs do not run setuid under $TESTDIR (nosuid?)"
	install -o root -m 4755 "$top_builddir/tests/mount/mount.cryptoloop-setuid" \
		"$TESTDIR/mount.cryptoloop"
	run --separate-stderr timeout 20 setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$TESTDIR/mount.cryptoloop" "$IMG" "$MNT" -o cipher=AES256,passfd=3,user \
		3< <(sleep 30)
	[ "$status" -eq 1 ] || fail "exit status $status: $stderr"
	[ "$stderr" = "mount.cryptoloop: $IMG: user mounts of encrypted images are not supported (\"user\"/\"users\" in fstab): only root can mount it" ] ||
		fail "$stderr"
	run ! mountpoint -q "$MNT"
	nothing_attached
}

# setuid_copy HELPER: a setuid-root copy of the build's HELPER in
# $TESTDIR (an administrator's mistake), found by RUNPATH (the loader
# ignores LD_LIBRARY_PATH for setuid programs); skip where setuid
# programs do not run setuid
setuid_copy() {
	command -v setpriv > /dev/null || skip "setpriv (util-linux) missing"
	chmod 755 "$TESTDIR"
	install -o root -m 4755 /usr/bin/id "$TESTDIR/id"
	[ "$(setpriv --reuid=nobody --regid=nogroup --clear-groups "$TESTDIR/id" -u)" = 0 ] ||
		skip "setuid programs do not run setuid under $TESTDIR (nosuid?)"
	install -o root -m 4755 "$top_builddir/tests/mount/$1-setuid" "$TESTDIR/$1"
}

@test "a setuid mount.cryptoloop run by a user reads no file for them: refused before any argument" {
	setuid_copy mount.cryptoloop
	# root's fstab, 0600, with a secret in a loop-AES line
	echo "/srv/a.img /mnt/a ext4 loop,encryption=AES128,pseed=RootOnlySeed42,noauto 0 0" \
		> "$TESTDIR/fstab.root"
	chmod 600 "$TESTDIR/fstab.root"
	for args in "--convert-fstab $TESTDIR/fstab.root" --help --version; do
		# shellcheck disable=SC2086
		run --separate-stderr timeout 20 setpriv --reuid=nobody --regid=nogroup \
			--clear-groups "$TESTDIR/mount.cryptoloop" $args
		[ "$status" -eq 1 ] || fail "$args: exit status $status: $output $stderr"
		[ -z "$output" ] || fail "$args: printed: $output"
		[ "$stderr" = "mount.cryptoloop: only root can run mount.cryptoloop" ] ||
			fail "$args: $stderr"
	done
	# not setuid, the same: only root runs the helper
	run --separate-stderr setpriv --reuid=nobody --regid=nogroup --clear-groups \
		/sbin/mount.cryptoloop --convert-fstab "$TESTDIR/fstab.root"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[ "$stderr" = "mount.cryptoloop: only root can run mount.cryptoloop" ] || fail "$stderr"
	# root still converts it
	run /sbin/mount.cryptoloop --convert-fstab "$TESTDIR/fstab.root"
	[ "$status" -eq 0 ]
	[[ "$output" == *"pseed=RootOnlySeed42"* ]]
}

@test "umount.cryptoloop run by a user, setuid or not, unmounts and detaches nothing" {
	LIBMOUNT_FSTAB="$FSTAB" mount "$MNT" 3< "$TESTDIR/pass"
	dev=$(findmnt -n -o SOURCE "$MNT")
	setuid_copy umount.cryptoloop
	for helper in "$TESTDIR/umount.cryptoloop" /sbin/umount.cryptoloop; do
		for name in "$MNT" "$IMG" "$dev"; do
			run --separate-stderr setpriv --reuid=nobody --regid=nogroup --clear-groups \
				"$helper" "$name"
			[ "$status" -eq 1 ] || fail "$helper $name: exit status $status: $stderr"
			[ "$stderr" = "umount.cryptoloop: $name: only root can unmount an encrypted image and detach its device" ] ||
				fail "$helper $name: $stderr"
		done
		run --separate-stderr setpriv --reuid=nobody --regid=nogroup --clear-groups \
			"$helper" --help
		[ "$status" -eq 1 ]
		[ "$stderr" = "umount.cryptoloop: only root can run umount.cryptoloop" ] || fail "$stderr"
	done
	mountpoint -q "$MNT"
	[ "$(findmnt -n -o SOURCE "$MNT")" = "$dev" ]
	umount "$MNT"
	nothing_attached
}

@test "mount.cryptoloop attaches through libloop: it links it and runs no losetup" {
	command -v strace > /dev/null || skip "strace missing"
	helper="$top_builddir/mount/.libs/mount.cryptoloop"
	ldd "$helper" | grep -q 'libloop\.so'
	# every program the helper starts is in the trace (-b execve lets go
	# of it there: the FUSE daemon outlives the helper)
	LD_LIBRARY_PATH="$top_builddir/libloop/.libs" strace -f -b execve -qq -e trace=execve \
		-o "$TESTDIR/trace" "$helper" "$IMG" "$MNT" -o cipher=AES256,passfd=3 \
		3< "$TESTDIR/pass"
	mountpoint -q "$MNT"
	[ "$(grep -c execve "$TESTDIR/trace")" -ge 1 ] || fail "nothing traced"
	! grep -q 'losetup' "$TESTDIR/trace" || fail "the helper ran losetup: $(grep losetup "$TESTDIR/trace")"
	umount "$MNT"
	nothing_attached
}

@test "remount ro and back rw keeps the device, asks for nothing, keeps the data" {
	LIBMOUNT_FSTAB="$FSTAB" mount "$MNT" 3< "$TESTDIR/pass"
	dev=$(findmnt -n -o SOURCE "$MNT")
	echo before > "$MNT/f"
	# no fd 3 now: a second setup would fail on passfd=3
	LIBMOUNT_FSTAB="$FSTAB" mount -o remount,ro "$MNT"
	[ "$(findmnt -n -o SOURCE "$MNT")" = "$dev" ]
	[[ ",$(findmnt -n -o VFS-OPTIONS "$MNT")," == *,ro,* ]]
	run touch "$MNT/g"
	[ "$status" -ne 0 ]
	LIBMOUNT_FSTAB="$FSTAB" mount -o remount,rw "$MNT"
	[[ ",$(findmnt -n -o VFS-OPTIONS "$MNT")," == *,rw,* ]]
	echo after >> "$MNT/f"
	[ "$(findmnt -n -o SOURCE "$MNT")" = "$dev" ]
	# still ours: a plain umount detaches
	grep -q "TARGET=$MNT .*uhelper=cryptoloop" /run/mount/utab
	umount "$MNT"
	nothing_attached
	LIBMOUNT_FSTAB="$FSTAB" mount "$MNT" 3< "$TESTDIR/pass"
	[ "$(cat "$MNT/f")" = "$(printf 'before\nafter')" ]
	umount "$MNT"
}

@test "a second mount -a leaves mounted lines alone; an explicit second mount says so" {
	sed -i 's/,noauto//' "$FSTAB"
	mount -a -T "$FSTAB" 3< "$TESTDIR/pass"
	dev=$(findmnt -n -o SOURCE "$MNT")
	echo 1 > "$MNT/f"
	run --separate-stderr mount -a -T "$FSTAB" 3< "$TESTDIR/pass"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$(findmnt -n -o SOURCE "$MNT" | wc -l)" -eq 1 ]
	[ "$(findmnt -n -o SOURCE "$MNT")" = "$dev" ]
	run --separate-stderr env LIBMOUNT_FSTAB="$FSTAB" mount "$MNT" 3< "$TESTDIR/pass"
	[ "$status" -eq 32 ]
	[[ "$stderr" == *"$IMG is already mounted on $MNT"* ]]
	[ "$(cat "$MNT/f")" = 1 ]
	[ "$("$LOSETUP" -a | grep -c "$TESTDIR/")" -eq 1 ]
	umount "$MNT"
	nothing_attached
}

@test "umount by mount point, by device and by image (umount.cryptoloop)" {
	LIBMOUNT_FSTAB="$FSTAB" mount "$MNT" 3< "$TESTDIR/pass"
	dev=$(findmnt -n -o SOURCE "$MNT")
	umount "$dev"
	run ! mountpoint -q "$MNT"
	nothing_attached
	LIBMOUNT_FSTAB="$FSTAB" mount "$MNT" 3< "$TESTDIR/pass"
	/sbin/umount.cryptoloop "$IMG"
	run ! mountpoint -q "$MNT"
	nothing_attached
	LIBMOUNT_FSTAB="$FSTAB" mount "$MNT" 3< "$TESTDIR/pass"
	/sbin/umount.cryptoloop "$MNT"
	run ! mountpoint -q "$MNT"
	nothing_attached
	run --separate-stderr /sbin/umount.cryptoloop "$IMG"
	[ "$status" -eq 32 ]
	[[ "$stderr" == *"$IMG: not mounted"* ]]
}

@test "x-systemd.* options are for systemd: the line mounts and the filesystem never sees them" {
	echo "$IMG $MNT cryptoloop cipher=AES256,passfd=3,noauto,x-systemd.device-timeout=5s,x-systemd.requires=foo.service 0 0" > "$FSTAB"
	LIBMOUNT_FSTAB="$FSTAB" mount "$MNT" 3< "$TESTDIR/pass"
	[[ "$(findmnt -n -o OPTIONS "$MNT")" != *x-systemd* ]]
	umount "$MNT"
	nothing_attached
}

@test "failures name the fstab line and its option, not losetup's flags" {
	# passfd=3 with no descriptor 3 (bats has one: close it)
	run --separate-stderr env LIBMOUNT_FSTAB="$FSTAB" mount "$MNT" 3<&-
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"$FSTAB:1: $IMG: passfd=3: no such open descriptor"* ]]
	# an empty passphrase on it: losetup's "fd 3" becomes passfd=3
	run --separate-stderr env LIBMOUNT_FSTAB="$FSTAB" mount "$MNT" 3< /dev/null
	[ "$status" -eq 32 ]
	[[ "$stderr" == *"$FSTAB:1: passfd=3: empty passphrase"* ]]
	[[ "$stderr" != *"losetup"* && "$stderr" != *"--pass-fd"* && "$stderr" != *"fd 3"* ]]
	# a bad key size: keybits=, not -k or --keybits
	printf '# a comment\n\n%s %s cryptoloop cipher=AES256,keybits=100,passfd=3,noauto 0 0\n' \
		"$IMG" "$MNT" > "$FSTAB"
	run --separate-stderr env LIBMOUNT_FSTAB="$FSTAB" mount "$MNT" 3< "$TESTDIR/pass"
	[ "$status" -eq 32 ]
	[[ "$stderr" == *"$FSTAB:3: "* ]]
	[[ "$stderr" != *"--keybits"* ]]
	run ! mountpoint -q "$MNT"
	nothing_attached
}

@test "fstype= still probes: a wrong passphrase or a wrong type is refused" {
	echo "$IMG $MNT cryptoloop cipher=AES256,passfd=3,fstype=ext4,noauto 0 0" > "$FSTAB"
	printf '%s\n' "this is not the passphrase at all" > "$TESTDIR/wrong"
	before=$(sha256sum < "$IMG")
	run --separate-stderr env LIBMOUNT_FSTAB="$FSTAB" mount "$MNT" 3< "$TESTDIR/wrong"
	[ "$status" -eq 32 ]
	[[ "$stderr" == *"no filesystem found on the decrypted device"* ]]
	[ "$(sha256sum < "$IMG")" = "$before" ]
	sed -i 's/fstype=ext4/fstype=xfs/' "$FSTAB"
	run --separate-stderr env LIBMOUNT_FSTAB="$FSTAB" mount "$MNT" 3< "$TESTDIR/pass"
	[ "$status" -eq 32 ]
	[[ "$stderr" == *"no xfs filesystem on the decrypted device"*"(found ext4)"* ]]
	nothing_attached
	sed -i 's/fstype=xfs/fstype=ext4/' "$FSTAB"
	LIBMOUNT_FSTAB="$FSTAB" mount "$MNT" 3< "$TESTDIR/pass"
	umount "$MNT"
	nothing_attached
}

@test "a converted loop-AES line mounts with the helper (cleartextkey= became keyfile=)" {
	head -c 45 /dev/urandom | base64 -w0 > "$TESTDIR/key.txt"
	echo >> "$TESTDIR/key.txt"
	img2=$(image 32M "my image.img")
	mkdir "$TESTDIR/m 2"
	dev=$(attach -e AES128 --cleartext-keyfile "$TESTDIR/key.txt" "$img2")
	mkfs.ext4 -q "$dev"
	detach "$dev"
	esc() { sed 's/ /\\040/g' <<< "$1"; }
	echo "$(esc "$img2") $(esc "$TESTDIR/m 2") ext4 loop,encryption=AES128,cleartextkey=$TESTDIR/key.txt,noauto 0 0" \
		> "$TESTDIR/old"
	/sbin/mount.cryptoloop --convert-fstab "$TESTDIR/old" | grep -v '^#' > "$FSTAB"
	grep -q " cryptoloop cipher=AES128,keyfile=$TESTDIR/key.txt,noauto,fstype=ext4 0 0" "$FSTAB"
	LIBMOUNT_FSTAB="$FSTAB" mount "$TESTDIR/m 2"
	mountpoint -q "$TESTDIR/m 2"
	umount "$TESTDIR/m 2"
	nothing_attached
}

@test "cipher=luks: fstab's header= reaches the attach, in the fstab's words" {
	# a missing detached header is named before any passphrase is read
	echo "$IMG $MNT cryptoloop cipher=luks,header=$TESTDIR/missing.hdr,passfd=3,noauto 0 0" > "$FSTAB"
	run --separate-stderr env LIBMOUNT_FSTAB="$FSTAB" mount "$MNT" 3< "$TESTDIR/pass"
	[ "$status" -eq 32 ]
	[[ "$stderr" == *"$FSTAB:1: $TESTDIR/missing.hdr: No such file or directory"* ]] ||
		fail "$stderr"
	# a header that is no LUKS header, and one beside a loop cipher
	echo "$IMG $MNT cryptoloop cipher=luks2,header=$IMG,passfd=3,noauto 0 0" > "$FSTAB"
	run --separate-stderr env LIBMOUNT_FSTAB="$FSTAB" mount "$MNT" 3< "$TESTDIR/pass"
	[ "$status" -eq 32 ]
	[[ "$stderr" == *"$FSTAB:1: $IMG: no LUKS header"* ]] || fail "$stderr"
	[[ "$stderr" != *"a detached one"* ]] || fail "$stderr"
	echo "$IMG $MNT cryptoloop cipher=AES256,header=$IMG,passfd=3,noauto 0 0" > "$FSTAB"
	run --separate-stderr env LIBMOUNT_FSTAB="$FSTAB" mount "$MNT" 3< "$TESTDIR/pass"
	[ "$status" -eq 32 ]
	[[ "$stderr" == *"$FSTAB:1: header=: a detached header is for cipher=luks only"* ]] ||
		fail "$stderr"
	run ! mountpoint -q "$MNT"
	nothing_attached
}

# mount_says OPTIONS: mounting $IMG with OPTIONS fails (32); the message
# of the line, after "FSTAB:1: ", in $said
mount_says() {
	echo "$IMG $MNT cryptoloop $1,passfd=3,noauto 0 0" > "$FSTAB"
	run --separate-stderr env LIBMOUNT_FSTAB="$FSTAB" mount "$MNT" 3< "$TESTDIR/pass"
	[ "$status" -eq 32 ] || fail "$1: exit status $status: $stderr"
	[[ "$stderr" == *"$FSTAB:1: "* ]] || fail "$1: $stderr"
	said=${stderr#*"$FSTAB:1: "}
}

@test "cipher=luks refusals read in fstab words, no losetup flags" {
	local opt name
	while IFS='|' read -r opt name; do
		mount_says "cipher=luks,$opt"
		[ "$said" = "$IMG: $name does not apply to LUKS (its header says where the data is and how it is encrypted)" ] ||
			fail "$opt: $said"
	done <<-EOT
	keybits=256|keybits=
	phash=sha512|phash=
	pseed=seed|pseed=
	itercountk=10|itercountk=
	loinit=8|loinit=
	crypt_offset=1M|crypt_offset=
	crypt_sizelimit=4M|crypt_sizelimit=
	EOT
	mount_says "cipher=luks,engine=fuse"
	[ "$said" = "$IMG: LUKS opens through the dm engine only, not engine=fuse" ] || fail "$said"
	mount_says "cipher=luks"
	[ "$said" = "$IMG: no LUKS header (a detached one is given with header=)" ] || fail "$said"
	# a LUKS volume named with a loop cipher: fstab has no --force
	printf '%s' "$PASS" | cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 \
		--pbkdf-force-iterations 1000 --key-file - "$IMG"
	mount_says "cipher=AES256"
	[ "$said" = "$IMG: has a LUKS header: open it with cipher=luks, not cipher=AES256" ] ||
		fail "$said"
	run ! mountpoint -q "$MNT"
	nothing_attached
}

# at_boot ANSWERS: mount $MNT as systemd's mount job does (no terminal,
# nothing on stdin), the questions answered by the test agent from the
# lines of the file ANSWERS, one line per question
at_boot() {
	local answers=$1
	export LIBLOOP_ASK_PASSWORD_DIR="$TESTDIR/ask"
	mkdir -p -m 755 "$LIBLOOP_ASK_PASSWORD_DIR"
	"$top_builddir/tests/agent/test-agent" --count 3 --timeout 30 \
		"$LIBLOOP_ASK_PASSWORD_DIR" "$answers" > "$TESTDIR/agent.out" &
	AGENT_PID=$!
	run --separate-stderr env LIBMOUNT_FSTAB="$FSTAB" setsid -w mount "$MNT" < /dev/null
	if [ "$(grep -c '^asked: ' "$TESTDIR/agent.out")" -lt 3 ]; then
		kill "$AGENT_PID" 2>/dev/null || true
	fi
	wait "$AGENT_PID" || true
}

@test "at boot, a wrong gpg passphrase is asked again, up to three times, with no time limit" {
	kat_gpgkey
	printf '%s\n' "$gp" > "$TESTDIR/gp"
	dev=$(PASSFILE="$TESTDIR/gp" attach -e AES128 -K "$kf" -p 3 "$IMG")
	mkfs.ext4 -q "$dev"
	detach "$dev"
	echo "$IMG $MNT cryptoloop cipher=AES128,gpgkey=$kf,noauto 0 0" > "$FSTAB"
	printf 'typo\n%s\n' "$gp" > "$TESTDIR/answers"
	at_boot "$TESTDIR/answers"
	[ "$status" -eq 0 ]
	mountpoint -q "$MNT"
	[ "$(grep -c '^asked: ' "$TESTDIR/agent.out")" -eq 2 ]
	[[ "$stderr" == *"gpg cannot decrypt the key file"*"try again (2 of 3)"* ]]
	# systemd-ask-password's NotAfter=0: the question never times out
	[ "$(grep -c '^not-after: 0$' "$TESTDIR/agent.out")" -eq 2 ]
	umount "$MNT"
	nothing_attached
	# three wrong answers: no fourth question, nothing mounted
	printf 'typo\n' > "$TESTDIR/answers"
	at_boot "$TESTDIR/answers"
	[ "$status" -eq 32 ]
	[ "$(grep -c '^asked: ' "$TESTDIR/agent.out")" -eq 3 ]
	[[ "$stderr" == *"try again (3 of 3)"* ]]
	run ! mountpoint -q "$MNT"
	nothing_attached
}

@test "at boot, a wrong plain passphrase (garbage) is never mounted and is asked again" {
	echo "$IMG $MNT cryptoloop cipher=AES256,noauto 0 0" > "$FSTAB"
	before=$(sha256sum < "$IMG")
	printf 'this is not the passphrase at all\n%s\n' "$(cat "$TESTDIR/pass")" > "$TESTDIR/answers"
	at_boot "$TESTDIR/answers"
	[ "$status" -eq 0 ]
	[ "$(grep -c '^asked: ' "$TESTDIR/agent.out")" -eq 2 ]
	[[ "$stderr" == *"no filesystem found on the decrypted device"*"try again (2 of 3)"* ]]
	umount "$MNT"
	nothing_attached
	# passfd=: nothing can be asked again, one try
	echo "$IMG $MNT cryptoloop cipher=AES256,passfd=3,noauto 0 0" > "$FSTAB"
	printf '%s\n' "this is not the passphrase at all" > "$TESTDIR/wrong"
	run --separate-stderr env LIBMOUNT_FSTAB="$FSTAB" mount "$MNT" 3< "$TESTDIR/wrong"
	[ "$status" -eq 32 ]
	[[ "$stderr" != *"try again"* ]]
	nothing_attached
}
