#!/usr/bin/perl
# cbc-unchain.pl ECB CIPHERTEXT: the plaintext of CBC-plain64 data (512-byte
# sectors, IV = le64(sector)) from openssl's ECB decryption of it and the
# ciphertext itself: P[i] = D(C[i]) xor C[i-1], with C[-1] the IV. openssl
# does all of the AES; this only undoes the chaining, so that one openssl
# run checks a whole image instead of one run a sector.
use strict;
use warnings;

open(my $d, '<:raw', $ARGV[0]) or die "$ARGV[0]: $!";
open(my $c, '<:raw', $ARGV[1]) or die "$ARGV[1]: $!";
binmode(STDOUT);
my $s = 0;
while ((my $n = read($d, my $dd, 512)) > 0) {
	die "partial sector $s" if $n != 512;
	read($c, my $cc, 512) == 512 or die "ciphertext shorter than its decryption";
	print $dd ^ (pack('Q<', $s) . ("\0" x 8) . substr($cc, 0, 496));
	$s++;
}
