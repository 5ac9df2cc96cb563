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
	libsmartcols-dev libgcrypt20-dev libkmod-dev libfuse3-dev fuse3 libcryptsetup-dev libdevmapper-dev
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
# it in BUILD/skipped-TIER.tap (TIER from CHECK_TIER, default host), which
# tools/check counts and names in its closing table
skip_suite() {
	echo "SKIP: $2"
	echo "ok 1 # SKIP $2" >>"$1/skipped-${CHECK_TIER:-host}.tap"
}

# run_suite WHAT LOG SKIP_REASON CMD...: CMD's output goes to LOG, whose
# end is shown; exit 77 means the whole suite could not run (a skipped
# suite, with SKIP_REASON), anything else but 0 is a failure: it sets the
# caller's status to 1 and returns 1. BUILD is the caller's build
# directory.
run_suite() {
	local what=$1 log=$2 why=$3 rc=0
	shift 3
	"$@" >"$log" 2>&1 || rc=$?
	case $rc in
	0) tail -n 6 "$log" ;;
	77) tail -n 6 "$log"; skip_suite "$BUILD" "$why" ;;
	*) tail -n 40 "$log"; echo "FAIL: $what (exit $rc, $log)"; status=1; return 1 ;;
	esac
}

# child_cpu: cpu=the CPU seconds (user and system) of the calling shell's
# finished children. Not to be called in $(...), whose shell has no
# children of its own.
clk_tck=$(getconf CLK_TCK)
child_cpu() {
	local f
	read -r -a f <"/proc/$BASHPID/stat"
	cpu=$(((f[15] + f[16]) / clk_tck))
}

# run_job BASE CMD...: run CMD, then write its wall seconds, its CPU
# seconds (user and system, of what it ran) and its exit status into
# BASE.secs, BASE.cpu and BASE.rc, for the shell that started it in the
# background to read once it is gone. In a subshell of its own: bash
# reaps a background job whenever it ends, and the CPU time of a job
# run in the caller's shell would count in the caller's.
run_job() {
	local base=$1
	shift
	(
		s=$SECONDS rc=0
		"$@" || rc=$?
		child_cpu
		echo $((SECONDS - s)) >"$base.secs"
		echo "$cpu" >"$base.cpu"
		echo "$rc" >"$base.rc"
	)
}
