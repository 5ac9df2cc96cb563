#!/usr/bin/env bats
# The bash completion of completion/: each script loaded with
# bash-completion and its function driven as bash drives it (COMP_WORDS,
# COMP_CWORD), on the programs of the build tree, so that the candidates
# are the ones the code gives.

load helpers

BASH_COMPLETION=${BASH_COMPLETION:-/usr/share/bash-completion/bash_completion}
REENCRYPT="$top_builddir/reencrypt/cryptoloop-reencrypt"
UNLOCK="$top_builddir/mount/cryptoloop-unlock"

setup() {
	[ -f "$BASH_COMPLETION" ] || fail "no bash-completion at $BASH_COMPLETION (tools/lib.sh installs it)"
	common_setup completion-test
}
teardown() { common_teardown; }

# complete SCRIPT FUNCTION WORD...: the candidates, one a line, that
# SCRIPT's FUNCTION gives for the command line WORD... with the cursor at
# the end of its last word. Run in a bash of its own: bash-completion
# wants an interactive-like shell, not bats'. compopt works only under
# readline, so it is a no-op here. The build tree's losetup comes first
# in PATH, for the scripts that look it up by name.
complete_words() {
	local script=$1 fn=$2
	shift 2
	PATH="$top_builddir/losetup:$PATH" bash --norc -c '
		. "$1" || exit 1
		compopt() { :; }
		. "$2" || exit 1
		fn=$3
		shift 3
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"
		COMP_POINT=${#COMP_LINE}
		COMPREPLY=()
		"$fn" "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}" || exit 1
		printf "%s\n" "${COMPREPLY[@]}"
	' complete "$BASH_COMPLETION" "$top_srcdir/completion/$script" "$fn" "$@"
}
losetup_words() { complete_words losetup _cryptoloop_losetup "$OUR_LOSETUP" "$@"; }

# the -H names libloop/crypto/keyrule.c compares the argument with
keyrule_names() {
	grep -o 'strcasecmp([a-z]*, "[a-z0-9]*")' "$top_srcdir/libloop/crypto/keyrule.c" | cut -d'"' -f2 | sort -u
}

# has WORD: the candidates in $output include WORD
has() { grep -qxF -- "$1" <<<"$output" || fail "no candidate '$1' in: $(echo $output)"; }

@test "completion: the file registers its function for the name it is loaded under" {
	run bash --norc -c '. "$1"; . "$2"; complete -p losetup' x "$BASH_COMPLETION" "$top_srcdir/completion/losetup"
	[ "$status" -eq 0 ]
	[ "$output" = "complete -F _cryptoloop_losetup losetup" ]
	ln -s "$top_srcdir/completion/losetup" "$TESTDIR/cryptoloop-losetup"
	run bash --norc -c '. "$1"; . "$2"; complete -p cryptoloop-losetup' x "$BASH_COMPLETION" "$TESTDIR/cryptoloop-losetup"
	[ "$output" = "complete -F _cryptoloop_losetup cryptoloop-losetup" ]
	# as the Debian package installs it, loaded on demand by
	# bash-completion's own loader (2.11's name, or 2.12's)
	mkdir -p "$TESTDIR/bc/completions"
	mv "$TESTDIR/cryptoloop-losetup" "$TESTDIR/bc/completions/"
	run env BASH_COMPLETION_USER_DIR="$TESTDIR/bc" bash --norc -c '. "$1"
		if declare -F _comp_load >/dev/null; then _comp_load cryptoloop-losetup; else __load_completion cryptoloop-losetup; fi &&
		complete -p cryptoloop-losetup' x "$BASH_COMPLETION"
	[ "$status" -eq 0 ]
	[ "$output" = "complete -F _cryptoloop_losetup cryptoloop-losetup" ]
}

@test "completion: losetup --enc gives --encryption, -- gives util-linux's and our options" {
	run losetup_words --enc
	[ "$status" -eq 0 ]
	[ "$output" = --encryption ]
	run losetup_words --
	[ "$status" -eq 0 ]
	local o
	for o in --detach --remove --set-capacity --associated --sector-size --direct-io --loop-ref \
		--output-all --encryption --phash --gpgkey --gpghome --cleartext-keyfile --pseed \
		--itercountk --loinit --engine --swap --fstab --list-ciphers --header; do
		has "$o"
	done
}

@test "completion: losetup -e gives --list-ciphers' names (AES128, aes, luks2, ...)" {
	run losetup_words -e ''
	[ "$status" -eq 0 ]
	has AES128
	has aes
	has luks2
	[ "$output" = "$("$OUR_LOSETUP" --list-ciphers | awk '{ print $1 }')" ]
	run losetup_words --encryption AES2
	[ "$output" = AES256 ]
}

@test "completion: losetup --engine gives exactly the engines" {
	run losetup_words --engine ''
	[ "$status" -eq 0 ]
	[ "$(sort <<<"$output" | tr '\n' ' ')" = "auto dm fuse kmod xfer " ]
	run losetup_words --engine=f
	[ "$output" = fuse ]
}

@test "completion: losetup -O gives util-linux's and our columns, without those already given" {
	run losetup_words -O ''
	[ "$status" -eq 0 ]
	local c
	for c in NAME BACK-FILE MAJ:MIN REF LOG-SEC DIO CIPHER KEYBITS ENGINE MULTIKEY; do
		has "$c"
	done
	run losetup_words --output NAME,CI
	[ "$output" = NAME,CIPHER ]
	run losetup_words -O NAME,ENGINE,
	! grep -qx 'NAME,ENGINE,\(NAME\|ENGINE\)' <<<"$output" || false
	has NAME,ENGINE,KEYBITS
}

@test "completion: losetup -H gives every hash name libloop's rules know" {
	run losetup_words -H ''
	[ "$status" -eq 0 ]
	local h
	for h in $(keyrule_names); do
		has "$h"
	done
	has random
}

@test "completion: losetup key files and gpg home are files and directories" {
	mkdir "$TESTDIR/gnupg"
	: >"$TESTDIR/key.gpg"
	run losetup_words -K "$TESTDIR/key"
	[ "$output" = "$TESTDIR/key.gpg" ]
	run losetup_words --cleartext-keyfile "$TESTDIR/key"
	[ "$output" = "$TESTDIR/key.gpg" ]
	run losetup_words -G "$TESTDIR/"
	[ "$output" = "$TESTDIR/gnupg" ]
	run losetup_words --direct-io=o
	[ "$(echo $output)" = "on off" ]
}

@test "completion: losetup -d and -c give the attached devices, -j their images" {
	need_root
	local img dev
	img="$TESTDIR/disk.img"
	truncate -s 1M "$img"
	dev=$(attach "$img")
	run losetup_words -d /dev/
	has "$dev"
	run losetup_words --set-capacity /dev/
	has "$dev"
	run losetup_words -j "$TESTDIR/"
	has "$img"
}

@test "completion: cryptoloop-reencrypt gives its options, the key options and the cipher names" {
	run complete_words cryptoloop-reencrypt _cryptoloop_reencrypt "$REENCRYPT" --
	[ "$status" -eq 0 ]
	local o
	for o in --new --luks2 --journal --progress --verify --encryption --gpgkey --cleartext-keyfile; do
		has "$o"
	done
	run complete_words cryptoloop-reencrypt _cryptoloop_reencrypt "$REENCRYPT" --lu
	[ "$output" = --luks2 ]
	run complete_words cryptoloop-reencrypt _cryptoloop_reencrypt "$REENCRYPT" img --new -e AES12
	[ "$output" = AES128 ]
	run complete_words cryptoloop-reencrypt _cryptoloop_reencrypt "$REENCRYPT" --progress ''
	[ "$(echo $output)" = "auto always never" ]
	run complete_words cryptoloop-reencrypt _cryptoloop_reencrypt "$REENCRYPT" img --new -H ''
	local h
	for h in $(keyrule_names); do
		has "$h"
	done
}

@test "completion: cryptoloop-unlock gives its options and the cryptoloop mount points of its fstab" {
	[ -x "$UNLOCK" ] || skip "built without libmount (no cryptoloop-unlock)"
	run complete_words cryptoloop-unlock _cryptoloop_unlock "$UNLOCK" --ch
	[ "$output" = --check ]
	run complete_words cryptoloop-unlock _cryptoloop_unlock "$UNLOCK" --image
	[ "$output" = --image-list ]
	cat >"$TESTDIR/fstab" <<-EOT
	/dev/sdb2 /srv ext4 defaults 0 2
	# /dev/cryptoloop1 /old ext4 x-cryptoloop.source=/dev/sdc1 0 2
	/dev/cryptoloop0 /data ext4 noatime,x-cryptoloop.source=/dev/sdb1,x-cryptoloop.encryption=AES128 0 2
	EOT
	run complete_words cryptoloop-unlock _cryptoloop_unlock "$UNLOCK" --fstab "$TESTDIR/fstab" ''
	[ "$status" -eq 0 ]
	[ "$output" = /data ]
}
