# shellcheck shell=bash disable=SC2034 # what the stage files read
# SPDX-License-Identifier: GPL-2.0-or-later
# What the pkg tier's stages share (tests/pkg/check sources it, in the
# source tree's root, with BUILD set): the cache of chroots, throwaway
# overlays over them, commands inside them, and the stages' TAP.
CACHE=${CLVM_PKG_CACHE:-${CLVM_KERNEL_CACHE:-/var/cache/cryptoloop-vm}/pkg}
MIRROR=$(tools/debian-mirror) || exit 1
# CLVM_PKG_SUITES=trixie: one suite only (for a quick rerun)
SUITES=${CLVM_PKG_SUITES:-bookworm trixie}
VERSION=$(dpkg-parsechangelog -l debian/changelog -S Version)
# the previous version the upgrade starts from: these packages, repacked
UPVER=${VERSION%%-*}
PREV=${VERSION}~prev1
t0=$SECONDS
say() { echo "pkg: [+$((SECONDS - t0))s] $*"; }

mounts=()
tmpdirs=()
cleanup() {
	local i
	for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
		umount "${mounts[$i]}" 2>/dev/null || umount -l "${mounts[$i]}" 2>/dev/null || true
	done
	for i in "${tmpdirs[@]}"; do rm -rf "$i"; done
}
trap cleanup EXIT

in_chroot() {
	local root=$1
	shift
	chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive INITRD=No "$@"
}
apt_in() {
	local root=$1
	shift
	in_chroot "$root" apt-get -q -y -o APT::Install-Recommends=false \
		-o Dpkg::Use-Pty=false "$@"
}

# overlay LOWER SUITE NAME: a throwaway chroot over LOWER, with /proc and
# the suite's persistent apt archive, in $root. Not in a $(...) subshell:
# cleanup must see what it mounted.
overlay() {
	local lower=$1 suite=$2 name=$3 t
	t=$(mktemp -d "/var/tmp/cryptoloop-pkg-$name.XXXXXX")
	tmpdirs+=("$t")
	mkdir -p "$t/upper" "$t/work" "$t/root" "$CACHE/$suite/archives/partial"
	mount -t overlay overlay -o "lowerdir=$lower,upperdir=$t/upper,workdir=$t/work" "$t/root"
	mounts+=("$t/root")
	mount -t proc proc "$t/root/proc"
	mounts+=("$t/root/proc")
	mount --bind "$CACHE/$suite/archives" "$t/root/var/cache/apt/archives"
	mounts+=("$t/root/var/cache/apt/archives")
	root=$t/root
}

# bootstrap SUITE VARIANT DIR: a cached debootstrap tree (stamp .bootstrapped)
bootstrap() {
	local suite=$1 variant=$2 dir=$3
	[ -e "$dir/.bootstrapped" ] && return 0
	curl -fsS -m 30 -o /dev/null "$MIRROR/dists/$suite/Release" ||
		{ echo "pkg: SKIP: cannot reach $MIRROR/dists/$suite" >&2; exit 77; }
	rm -rf "$dir"
	say "debootstrap --variant=$variant $suite"
	debootstrap --variant="$variant" "$suite" "$dir" "$MIRROR" >"$dir.log" 2>&1 ||
		{ tail -n 15 "$dir.log" >&2; die "debootstrap $variant $suite failed"; }
	touch "$dir/.bootstrapped"
}

# build_deps SUITE: what SUITE's buildd chroot holds beyond debootstrap's:
# this tree's Build-Depends, ccache (a rerun compiles nothing the last one
# did: build_suite) and, in trixie's, lintian and the reproducibility
# stage's faketime and diffoscope
build_deps() {
	local deps
	deps=$(sed -n '/^Build-Depends:/,/^[^ ]/p' debian/control | sed '$d' |
		sed 's/^Build-Depends://' | tr -d '\n' | tr -s ' ' | sed 's/^ //; s/,$//')
	if [ "$1" = trixie ]; then
		echo "$deps, ccache, lintian, faketime, diffoscope-minimal"
	else
		echo "$deps, ccache"
	fi
}

# build_root_ready SUITE: its buildd chroot is cached with what build_deps
# names, so that the build stage makes no chroot and installs nothing
build_root_ready() {
	local dir=$CACHE/$1/build
	[ -e "$dir/.bootstrapped" ] && [ "$(cat "$dir/.deps" 2>/dev/null)" = "$(build_deps "$1")" ]
}

# build_root SUITE: the buildd chroot with build_deps, cached; a change of
# debian/control adds what is new
build_root() {
	local suite=$1 dir=$CACHE/$1/build want
	bootstrap "$suite" buildd "$dir"
	! build_root_ready "$suite" || return 0
	want=$(build_deps "$suite")
	say "installing the build dependencies in the $suite buildd chroot"
	{ apt_in "$dir" update && apt_in "$dir" satisfy "$want"; } >"$CACHE/$suite/deps.log" 2>&1 ||
		{ tail -n 15 "$CACHE/$suite/deps.log" >&2; die "installing $suite's build dependencies failed"; }
	echo "$want" >"$dir/.deps"
}

# the tree as git sees it (tracked and new files, not what is ignored),
# without BUILD if it is inside the tree
tree_tar() {
	local rel=${BUILD#"$PWD"/}
	[ "$rel" != "$BUILD" ] || rel=//
	git ls-files -z --cached --others --exclude-standard |
		grep -zv -e "^$rel/" | tar -c --null --no-recursion -T -
}

# chroot_tree DIR CCACHE: the tree at DIR in the chroot $root, with the
# compiler cache CCACHE (outside the chroot, so that it outlives it)
# bound at /var/cache/ccache; with DIR the same every run, an unchanged
# file hits
chroot_tree() {
	mkdir -p "$root$1"
	tree_tar | tar -x -C "$root$1"
	mkdir -p "$2" "$root/var/cache/ccache"
	mount --bind "$2" "$root/var/cache/ccache"
	mounts+=("$root/var/cache/ccache")
}


# What the chroot $root shows of our packages, for the diversion, dkms
# and upgrade stages. ours, theirs: the first word of `losetup --version`
# as root's PATH finds it; same_as PATH SUM: PATH's sha256sum is SUM
ours() { in_chroot "$root" losetup --version | grep -q '^losetup from cryptoloop '; }
theirs() { in_chroot "$root" losetup --version | grep -q 'util-linux'; }
same_as() { [ "$(sha256sum <"$root$1")" = "$2" ]; }
diversions() { in_chroot "$root" dpkg-divert --list | grep -c 'by cryptoloop-losetup' || true; }
no_diversion() { [ "$(diversions)" = 0 ]; }
four_diversions() { [ "$(diversions)" = 4 ]; }
# dkms_ko K: the installed cryptoloop.ko for kernel release K;
# no_module_left: no module, DKMS tree or source of ours anywhere
dkms_ko() { ls "$root/usr/lib/modules/$1/updates/dkms/"cryptoloop.ko* 2>/dev/null; }
no_module_left() {
	! find "$root/usr/lib/modules" -path '*/updates/dkms/cryptoloop*' | grep . &&
		[ -z "$(in_chroot "$root" dkms status cryptoloop)" ] &&
		[ ! -e "$root/usr/src/cryptoloop-$UPVER" ] && [ ! -e "$root/var/lib/dkms/cryptoloop" ]
}

# TAP into BUILD/vm-pkg-NAME.tap (tests/lib/tap.sh), shown as it comes:
# pkg_tap NAME, then check DESC CMD... (output to $tap_log), pkg_tap_close
# shellcheck source=tests/lib/tap.sh
. tests/lib/tap.sh
TAP_TEE=1
tap_log=/dev/null
failed=0
pkg_tap() { tap_open "$BUILD/vm-pkg-$1.tap"; }
check() {
	TAP_LOG=$tap_log
	tap_check "$@"
}
pkg_tap_close() { tap_close || failed=1; }

# debs DIR PKG...: the chroot's paths of these packages' .debs in /debs/DIR
debs() {
	local dir=$1 p
	shift
	for p; do
		echo "/debs/$dir/$(cd "$root/debs/$dir" && ls "${p}"_*.deb)"
	done
}
