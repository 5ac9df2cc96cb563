# cryptoloop-generator tests: run the generator on a sample fstab into a
# temp dir, then let systemd's own parser judge the units it wrote.
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.bash"

: "${top_builddir:=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}"
GENERATOR="$top_builddir/generator/cryptoloop-generator"
CHECK="$top_builddir/generator/cryptoloop-check-swap-source"

gen_setup() {
	common_setup cryptoloop-gen
	T=$TESTDIR
	mkdir -p "$T/normal" "$T/early" "$T/late" "$T/modules"
	# an installed module, as depmod lists a dkms build
	echo "updates/dkms/cryptoloop.ko.xz:" > "$T/modules/modules.dep"
	export CRYPTOLOOP_MODULES_DIR="$T/modules"
	export SYSTEMD_FSTAB="$T/fstab"
	# never the host's command line or /run/systemd/sleep.conf.d
	export SYSTEMD_PROC_CMDLINE="root=/dev/vda ro"
	export CRYPTOLOOP_SLEEP_CONF_DIR="$T/sleep.conf.d"
}

gen_teardown() {
	common_teardown
}

# generate LINE...: an fstab of these lines, and the generator run on it
generate() {
	printf '%s\n' "$@" > "$T/fstab"
	run --separate-stderr "$GENERATOR" "$T/normal" "$T/early" "$T/late"
}

# the words of a unit's Exec line KEY (first one), unquoted by the shell
exec_words() {
	local line
	line=$(grep "^$2=" "$1" | head -n 1)
	eval "printf '%s\n' ${line#*=}"
}

# run_check UNIT: run the unit's ExecStartPre, the source check, as the
# unit would, with this build's program in place of the installed one
run_check() {
	local w
	mapfile -t w < <(exec_words "$1" ExecStartPre)
	[[ "${w[0]}" == */cryptoloop-check-swap-source ]] || fail "ExecStartPre: ${w[*]}"
	run --separate-stderr "$CHECK" "${w[@]:1}"
}

# lines_clean UNIT: each line of the unit is one line to systemd too. Its
# reader also ends a line at CR (and NUL), and joins a line that ends in an
# unescaped backslash to the next one (systemd.syntax(7)); the generator
# writes every other byte as an escape, so the file is printable ASCII.
lines_clean() {
	local odd
	[ "$(LC_ALL=C tr -d '\n[:print:]' < "$1" | wc -c)" -eq 0 ] ||
		fail "$1: bytes outside printable ASCII: $(cat -A "$1")"
	odd=$(awk '{ if (match($0, /\\+$/) && RLENGTH % 2) print }' "$1")
	[ -z "$odd" ] || fail "$1: a line goes on in the next: $odd"
}

# verify UNIT...: systemd-analyze verify in a root holding systemd's own
# units, the generated ones in /etc/systemd/system, and the programs they
# run (verify checks that each Exec= path is executable in that root)
verify() {
	local root="$T/root" f w
	command -v systemd-analyze >/dev/null || skip "systemd-analyze is not installed"
	mkdir -p "$root/etc/systemd/system" "$root/usr/lib/systemd"
	cp -a /usr/lib/systemd/system "$root/usr/lib/systemd/"
	cp -a "$T/normal/." "$root/etc/systemd/system/"
	for f in "$T"/normal/*.service; do
		for w in $(grep -h '^Exec' "$f" | sed 's/^[^=]*="\([^"]*\)".*/\1/'); do
			mkdir -p "$root$(dirname "$w")"
			case "$w" in
			*/losetup) cp "$top_builddir/losetup/losetup" "$root$w" ;;
			*/cryptoloop-check-swap-source) cp "$CHECK" "$root$w" ;;
			*) cp -L "$w" "$root$w" ;;
			esac
		done
	done
	run systemd-analyze verify --root="$root" --man=no "$@"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

# no_setup_unit: the generator wrote no setup service
no_setup_unit() {
	[ -z "$(ls "$T/normal" | grep '^cryptoloop-setup-')" ]
}

# refused_in_place SOURCE REASON: the line of SOURCE was refused: a unit
# under swap.target fails at once with REASON on the console, and the
# swap unit (and, for a /dev/cryptoloopN, the device's job, which would
# wait 90 s for a device nobody makes) require it, so they fail with it
refused_in_place() {
	local swap dev u w
	swap=$(systemd-escape --path --suffix=swap "$1")
	u=cryptoloop-refused-${swap%.swap}.service
	[ -f "$T/normal/$u" ] || fail "no $u"
	[ "$(readlink "$T/normal/swap.target.wants/$u")" = "../$u" ] || fail "$u is not under swap.target"
	mapfile -t w < <(exec_words "$T/normal/$u" ExecStart)
	[ "${w[0]}" = /bin/echo ] || fail "ExecStart: ${w[*]}"
	[[ "${w[1]}" == *"swap line $1: $2"* ]] || fail "ExecStart: ${w[*]}"
	grep -qx 'ExecStart="/bin/false"' "$T/normal/$u" || fail "$u does not fail"
	grep -qx "Requires=$u" "$T/normal/$swap.d/50-cryptoloop-refused.conf" || fail "$swap does not require $u"
	grep -qx "After=$u" "$T/normal/$swap.d/50-cryptoloop-refused.conf" || fail "$swap is not after $u"
	# nothing is masked: swap.target requires the swap unit
	[ -z "$(ls -A "$T/early")" ] || fail "early-dir: $(ls "$T/early")"
	dev=$(systemd-escape --path --suffix=device "$1")
	if [[ "$1" == /dev/cryptoloop* ]]; then
		grep -qx "Requires=$u" "$T/normal/$dev.d/50-cryptoloop-refused.conf" || fail "$dev does not require $u"
	else
		[ ! -e "$T/normal/$dev.d" ] || fail "a real device's job must not fail: $dev.d"
	fi
}
