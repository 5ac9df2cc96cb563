#!/usr/bin/env bats
# Journals of an older format still resume. journal-v3.gz.b64 is a
# version 3 journal (two fingerprints per sector: of the old and of the
# new ciphertext) as the release before version 4 wrote it when it was
# killed with the second of four 64 KiB chunks in flight, converting a
# 256 KiB image of fixture_plain with
#   cryptoloop-reencrypt -e AES256 -p 3 IMG --new -e AES256 -p 4
# and the passphrases of helpers.bash. The image states around it are
# made here from aespipe's encryptions under the old and the new key.

load helpers

setup() {
	reenc_setup
	FIXTURE="$BATS_TEST_DIRNAME/journal-v3.gz.b64"
	plain_fixture
	aespipe_enc "$TESTDIR/orig" "$TESTDIR/p_old" -e AES256
	aespipe_enc "$TESTDIR/expect" "$TESTDIR/p_new" -e AES256
	base64 -d "$FIXTURE" | gunzip > "$IMG.reencrypt"
}

teardown() {
	reenc_teardown
}

# 8192 numbered lines of 32 bytes
plain_fixture() {
	perl -e 'printf "%031d\n", $_ for 0 .. 8191' > "$TESTDIR/plain"
}

# crashed_image TORN: the first chunk new, in the second the even sectors
# new and the odd ones old (a device that reordered them), the rest old;
# with TORN=1, sector 131 holds 256 bytes of each
crashed_image() {
	perl -e '
		my ($orig, $new, $torn) = @ARGV;
		local $/;
		open(my $o, "<", $orig) or die; my $O = <$o>;
		open(my $n, "<", $new) or die; my $N = <$n>;
		my $img = substr($N, 0, 65536);
		for my $s (128 .. 255) {
			$img .= substr($s % 2 ? $O : $N, $s * 512, 512);
		}
		$img .= substr($O, 131072);
		substr($img, 131 * 512 + 256, 256) = substr($N, 131 * 512 + 256, 256) if $torn;
		print $img;
	' "$TESTDIR/orig" "$TESTDIR/expect" "$1" > "$IMG"
}

journal_version() {
	od -An -tu4 -j 8 -N 4 "$IMG.reencrypt" | tr -d ' '
}

@test "a version 3 journal resumes: the chunk in flight, half old and half new, ends as aespipe's image" {
	crashed_image 0
	[ "$(journal_version)" = 3 ]
	run "$REENC" --progress=never -e AES256 -p 3 "$IMG" --new -e AES256 -p 4 \
		3<"$TESTDIR/p_old" 4<"$TESTDIR/p_new"
	[ "$status" -eq 0 ]
	cmp "$IMG" "$TESTDIR/expect"
	# carried on in its own format, and it says the work is done
	[ "$(journal_version)" = 3 ]
	run "$REENC" --progress=never -e AES256 -p 3 "$IMG" --new -e AES256 -p 4 \
		3<"$TESTDIR/p_old" 4<"$TESTDIR/p_new"
	[ "$status" -eq 0 ]
	[[ "$output" == *"already re-encrypted"* ]]
	cmp "$IMG" "$TESTDIR/expect"
}

@test "a version 3 journal with a torn sector in flight: the resume refuses and writes nothing" {
	crashed_image 1
	cp "$IMG" "$TESTDIR/before"
	run "$REENC" --progress=never -e AES256 -p 3 "$IMG" --new -e AES256 -p 4 \
		3<"$TESTDIR/p_old" 4<"$TESTDIR/p_new"
	[ "$status" -eq 1 ]
	[[ "$output" == *"sector 131 holds neither its old nor its new ciphertext"* ]]
	cmp "$IMG" "$TESTDIR/before"
}

@test "a new journal is version 4: one fingerprint per sector" {
	cp "$TESTDIR/orig" "$IMG"
	rm "$IMG.reencrypt"
	run "$REENC" --progress=never -e AES256 -p 3 "$IMG" --new -e AES256 -p 4 \
		3<"$TESTDIR/p_old" 4<"$TESTDIR/p_new"
	[ "$status" -eq 0 ]
	cmp "$IMG" "$TESTDIR/expect"
	[ "$(journal_version)" = 4 ]
}
