#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# Attaching with every setup option, checked through sysfs, the data, and
# util-linux's own losetup.

load helpers

setup() { cli_setup; }
teardown() { common_teardown; }

@test "attach with -f --show prints the device and maps the whole file" {
	img=$(make_image a.img 1048576)
	dev=$(attach "$img")
	[[ "$dev" =~ ^/dev/loop[0-9]+$ ]]
	[ "$(sysattr "$dev" loop/backing_file)" = "$img" ]
	[ "$(blockdev --getsize64 "$dev")" -eq 1048576 ]
	cmp "$img" "$dev"
}

@test "offset and sizelimit select exactly that byte range" {
	img=$(make_image b.img 4194304)
	dev=$(attach -o 1M --sizelimit 512KiB "$img")
	[ "$(sysattr "$dev" loop/offset)" -eq 1048576 ]
	[ "$(sysattr "$dev" loop/sizelimit)" -eq 524288 ]
	[ "$(blockdev --getsize64 "$dev")" -eq 524288 ]
	cmp <(tail -c +1048577 "$img" | head -c 524288) "$dev"
	run "$UL_LOSETUP" -n -O OFFSET,SIZELIMIT "$dev"
	[ "$(echo $output)" = "1048576 524288" ]
}

@test "read-only: -r sets RO and writes fail" {
	img=$(make_image c.img 1048576)
	dev=$(attach -r "$img")
	[ "$(sysattr "$dev" ro)" -eq 1 ]
	run dd if=/dev/zero of="$dev" bs=512 count=1 oflag=direct status=none
	[ "$status" -ne 0 ]
	cmp "$img" "$dev"
}

@test "a file the user cannot write is attached read-only" {
	img=$(make_image ro.img 1048576)
	chmod 0444 "$img"
	# root ignores file modes, so make the filesystem refuse instead
	mkdir "$TESTDIR/mnt"
	mount -t tmpfs -o size=4m tmpfs "$TESTDIR/mnt"
	cp "$img" "$TESTDIR/mnt/ro.img"
	mount -o remount,ro "$TESTDIR/mnt"
	dev=$(attach "$TESTDIR/mnt/ro.img")
	[ "$(sysattr "$dev" ro)" -eq 1 ]
}

@test "sector size: -b 4096 sets the logical block size" {
	img=$(make_image d.img 1048576)
	dev=$(attach -b 4096 "$img")
	[ "$(blockdev --getss "$dev")" -eq 4096 ]
	[ "$(sysattr "$dev" queue/logical_block_size)" -eq 4096 ]
}

@test "partscan: -P sets the partscan flag" {
	dev=$(attach -P "$(make_image p.img 1048576)")
	[ "$(sysattr "$dev" loop/partscan)" -eq 1 ]
	run_both -n -O PARTSCAN "$dev"
	[ "$(echo $BOTH_OUT)" = 1 ]
	plain=$(attach "$(make_image q.img 1048576)")
	[ "$(sysattr "$plain" loop/partscan)" -eq 0 ]
}

@test "partscan: -P exposes the partitions of an MBR image" {
	if [ -r /proc/config.gz ] && ! zcat /proc/config.gz | grep -q '^CONFIG_MSDOS_PARTITION=y'; then
		skip "this kernel cannot parse MBR partition tables (CONFIG_MSDOS_PARTITION unset)"
	fi
	img="$TESTDIR/parts.img"
	truncate -s 8M "$img"
	# one Linux partition from sector 2048 to the end
	printf '\x00\x00\x00\x00\x83\x00\x00\x00\x00\x08\x00\x00\x00\x38\x00\x00' |
		dd of="$img" bs=1 seek=446 conv=notrunc status=none
	printf '\x55\xaa' | dd of="$img" bs=1 seek=510 conv=notrunc status=none
	dev=$(attach -P "$img")
	for _ in $(seq 50); do [ -e "/sys/block/${dev#/dev/}/${dev#/dev/}p1" ] && break; sleep 0.1; done
	[ "$(cat "/sys/block/${dev#/dev/}/${dev#/dev/}p1/size")" -eq $((0x3800)) ]
}

@test "direct-io: --direct-io=on sets DIO and --direct-io=off clears it" {
	img=$(make_image e.img 1048576)
	dev=$(attach --direct-io=on "$img")
	[ "$(sysattr "$dev" loop/dio)" -eq 1 ]
	"$OUR_LOSETUP" --direct-io=off "$dev"
	[ "$(sysattr "$dev" loop/dio)" -eq 0 ]
}

@test "attach to a named device, then -j finds it" {
	img=$(make_image f.img 1048576)
	dev=$("$UL_LOSETUP" -f)
	track "$dev"
	"$OUR_LOSETUP" "$dev" "$img"
	[ "$(sysattr "$dev" loop/backing_file)" = "$img" ]
	run_both -j "$img"
	[[ "$BOTH_OUT" == "$dev: "* ]]
	# a relative name finds the same device
	cd "$TESTDIR"
	run_both -j f.img
	[[ "$BOTH_OUT" == "$dev: "* ]]
}

@test "-c picks up a grown backing file" {
	img=$(make_image g.img 1048576)
	dev=$(attach "$img")
	truncate -s 2M "$img"
	[ "$(blockdev --getsize64 "$dev")" -eq 1048576 ]
	"$OUR_LOSETUP" -c "$dev"
	[ "$(blockdev --getsize64 "$dev")" -eq 2097152 ]
}

@test "-d detaches several devices at once" {
	a=$(attach "$(make_image h1.img 65536)")
	b=$(attach "$(make_image h2.img 65536)")
	"$OUR_LOSETUP" -d "$a" "$b"
	[ ! -e "/sys/block/${a#/dev/}/loop/backing_file" ]
	[ ! -e "/sys/block/${b#/dev/}/loop/backing_file" ]
}

@test "-L reuses an identical device and refuses an overlapping one" {
	img=$(make_image i.img 2097152)
	dev=$(attach -o 0 --sizelimit 1M "$img")
	again=$("$OUR_LOSETUP" -f --show -L -o 0 --sizelimit 1M "$img")
	[ "$again" = "$dev" ]
	run "$OUR_LOSETUP" -f --show -L -o 512K "$img"
	[ "$status" -eq 1 ]
	[ "$output" = "losetup: $img: overlapping loop device exists" ]
}

@test "files that do not fill a sector get util-linux's warnings" {
	small="$TESTDIR/small.img"
	head -c 100 /dev/zero > "$small"
	run --separate-stderr "$OUR_LOSETUP" -f --show "$small"
	track "$output"
	[ "$status" -eq 0 ]
	[ "$stderr" = "losetup: $small: Warning: file is smaller than 512 bytes; the loop device may be useless or invisible for system tools." ]
	odd="$TESTDIR/odd.img"
	head -c 1000 /dev/zero > "$odd"
	run --separate-stderr "$OUR_LOSETUP" -f --show "$odd"
	track "$output"
	# util-linux 2.40's wording (2.38 said "does not fit into a 512-byte sector")
	[ "$stderr" = "losetup: $odd: Warning: file does not end on a 512-byte sector boundary; the remaining end of the file will be ignored." ]
}

@test "--swap on a kernel loop device is refused, and the device is not left attached" {
	img=$(make_image swap.img 1048576)
	run "$OUR_LOSETUP" -f --show --swap "$img"
	[ "$status" -ne 0 ]
	[[ "$output" == *"--swap needs the kmod engine"* ]]
	[ -z "$("$UL_LOSETUP" -j "$img")" ]
	run "$OUR_LOSETUP" --swap -c /dev/loop0
	[ "$status" -ne 0 ]
	[[ "$output" == *"--swap is allowed during loop device setup only"* ]]
}
