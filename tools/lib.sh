# Shared by tools/demo, tools/check and tools/bench.

die() {
	echo "${0##*/}: $*" >&2
	exit 1
}

need_root() {
	[ "$(id -u)" -eq 0 ] || die "run me as root: loop devices need it"
}

# Packages a build and the test suite need, by Debian name. clang only
# recommends its sanitizer and libFuzzer runtimes (libclang-rt-14-dev):
# tools/check-hardening and tools/fuzz need them. devscripts brings
# hardening-check (tools/check-installed-elf).
BUILD_PACKAGES="autoconf automake libtool pkg-config make gcc
	libsmartcols-dev libgcrypt20-dev libfuse3-dev fuse3 libcryptsetup-dev libdevmapper-dev
	cryptsetup-bin libmount-dev libblkid-dev
	bats bash-completion util-linux mount e2fsprogs systemd dosfstools fdisk
	aespipe gnupg openssl libcrypt-twofish-perl libcrypt-blowfish-perl strace
	clang libclang-rt-14-dev devscripts"

# apt_install PKG...: install what is missing, quietly, without prompts.
apt_install() {
	local missing="" p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
			missing="$missing $p"
	done
	[ -n "$missing" ] || return 0
	echo "== installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq || die "apt-get update failed"
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null ||
		die "apt-get install failed:$missing"
}

# build DIR: configure and build the tree out of source in DIR.
build() {
	local top builddir=$1
	top=$(cd "$(dirname "$0")/.." && pwd)
	[ -x "$top/configure" ] || (cd "$top" && ./autogen.sh >/dev/null 2>&1) ||
		die "autogen.sh failed"
	mkdir -p "$builddir"
	(cd "$builddir" &&
		{ [ -f Makefile ] || "$top/configure" -q; } &&
		make -j"$(nproc)" >/dev/null) || die "build failed in $builddir"
}

# skip_suite BUILD REASON: say that a whole suite did not run, and record
# it in BUILD/skipped.tap, which tools/check counts in its closing line
skip_suite() {
	echo "SKIP: $2"
	echo "ok 1 # SKIP $2" >>"$1/skipped.tap"
}
