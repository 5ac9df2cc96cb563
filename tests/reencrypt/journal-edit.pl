#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
#
# journal-edit.pl FILE [FIELD=VALUE...]: rewrite fields of a
# cryptoloop-reencrypt journal with valid checksums, as a crafted journal
# would have them; without FIELD=VALUE, print the fields.
#
# Header fields: version chunk data_off data_len kdf_iter new_off luks2.
# Fields of the current slot (the valid one with the higher sequence
# number): slot (its index, 0 or 1) seq done inflight nsect. Values are
# decimal or 0x-hex. The layout is journal.h's: a 4 KiB header whose
# first bytes end in a SHA-256 of them, then two slots, each ending in a
# SHA-256 of its fixed fields and fingerprints. The slots are laid out
# again for the chunk and version written, the other slot kept only when
# its size stays the same.
use strict;
use warnings;
use Digest::SHA qw(sha256);

my ($file, @edits) = @ARGV;
die "usage: $0 FILE [FIELD=VALUE...]\n" unless defined $file;
open(my $fh, '<:raw', $file) or die "$file: $!\n";
my $data = do { local $/; <$fh> };
close $fh;

my %hdr_at = (chunk => [12, 'V'], data_off => [16, 'Q<'], data_len => [24, 'Q<'],
	      kdf_iter => [32, 'V'], new_off => [232, 'Q<'], luks2 => [240, 'V']);
my @slot_fields = qw(slot seq done inflight nsect);

sub used_of { my $v = shift; $v == 1 ? 232 : $v == 2 ? 240 : 240 + 8 + 32 + 1024 }
sub fp_per_sector { $_[0] <= 3 ? 2 : 1 }
sub slot_size_of {
	my ($v, $chunk) = @_;
	my $window = $v <= 3 ? 1 : 2;
	my $used = 32 + 8 * fp_per_sector($v) * $window * int($chunk / 512) + 32;
	return ($used + 4095) & ~4095;
}

die "$file: not a journal\n" unless substr($data, 0, 8) eq 'CLREENC1';
my %f;
$f{version} = unpack('V', substr($data, 8, 4));
for my $k (keys %hdr_at) {
	my ($at, $t) = @{$hdr_at{$k}};
	$f{$k} = unpack($t, substr($data, $at, $t eq 'V' ? 4 : 8));
}
my $hdr = substr($data, 0, 4096);
my $old_size = slot_size_of($f{version}, $f{chunk});

# the current slot, as journal.c picks it
my ($cur, @fps);
for my $i (0, 1) {
	my $s = substr($data, 4096 + $i * $old_size, $old_size);
	next unless length($s) == $old_size && substr($s, 0, 8) eq 'CLRSLOT1';
	my ($seq, $done, $infl, $nsect) = unpack('Q< Q< V V', substr($s, 8, 24));
	my $used = 32 + 8 * fp_per_sector($f{version}) * $nsect;
	next if $used + 32 > $old_size || sha256(substr($s, 0, $used)) ne substr($s, $used, 32);
	next if defined $cur && $f{seq} >= $seq;
	($cur, $f{seq}, $f{done}, $f{inflight}, $f{nsect}) = ($i, $seq, $done, $infl, $nsect);
	@fps = unpack('Q<*', substr($s, 32, $used - 32));
}
$f{slot} = $cur;

unless (@edits) {
	for my $k (qw(version chunk data_off data_len kdf_iter new_off luks2), @slot_fields) {
		print "$k=", defined $f{$k} ? $f{$k} : 'none', "\n";
	}
	exit 0;
}
my $slot_edited = 0;
for my $e (@edits) {
	my ($k, $v) = $e =~ /^(\w+)=(\w+)$/ or die "not FIELD=VALUE: $e\n";
	die "no field $k\n" unless exists $hdr_at{$k} || $k eq 'version' || grep { $_ eq $k } @slot_fields;
	$f{$k} = $v =~ /^0x/i ? oct($v) : $v;
	$slot_edited = 1 if grep { $_ eq $k } @slot_fields;
}

substr($hdr, 8, 4) = pack('V', $f{version});
for my $k (keys %hdr_at) {
	my ($at, $t) = @{$hdr_at{$k}};
	substr($hdr, $at, $t eq 'V' ? 4 : 8) = pack($t, $f{$k});
}
my $used = used_of($f{version});
substr($hdr, $used, 32) = sha256(substr($hdr, 0, $used));

my $size = slot_size_of($f{version}, $f{chunk});
my @slots = map { substr($data, 4096 + $_ * $old_size, $old_size) } 0, 1;
@slots = ("\0" x $size) x 2 if $size != $old_size;
if (defined $cur || $slot_edited) {
	$f{seq} //= 1;
	$f{$_} //= 0 for qw(done inflight nsect);
	$f{slot} //= $f{seq} % 2;
	my $nfp = fp_per_sector($f{version}) * $f{nsect};
	push @fps, 0 while @fps < $nfp;
	my $s = 'CLRSLOT1' . pack('Q< Q< V V', $f{seq}, $f{done}, $f{inflight}, $f{nsect}) .
		pack('Q<*', @fps[0 .. $nfp - 1]);
	$s .= sha256($s);
	die "nsect=$f{nsect}: the slot cannot hold it\n" if length($s) > $size;
	$slots[$f{slot}] = $s . ("\0" x ($size - length($s)));
}
open($fh, '>:raw', $file) or die "$file: $!\n";
print $fh $hdr, @slots;
close $fh or die "$file: $!\n";
