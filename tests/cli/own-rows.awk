# SPDX-License-Identifier: GPL-2.0-or-later
# own-rows.awk: keep what a losetup listing says about the test's own
# devices, so that devices other users attach meanwhile (a FUSE engine's
# loop device lists differently in util-linux's and our losetup) do not
# enter the comparison.  Applied the same way to both listings.
#
#   awk -v own=FILE -v order=FILE -f own-rows.awk LISTING
#
# own:   the test's devices, one per line
# order: every device util-linux lists, in listing order; used when the
#        rows do not name their device (-O without NAME)
#
# A row is a "-a" line ("/dev/loopN: ..."), a table row (header kept), or
# a JSON object in "loopdevices" (rejoined with the separators
# util-linux prints).  Rows without names that do not match the order
# list are kept whole: the listing of one device or of -j FILE (the
# caller retakes the listings when the host's device set changed).

function ours_at(i) {
	return (i in dev) && (dev[i] in mine)
}

BEGIN {
	while ((getline l < own) > 0)
		mine[l] = 1
	ndev = 0
	while ((getline l < order) > 0)
		dev[++ndev] = l
}

{ line[++n] = $0 }

END {
	if (n == 0)
		exit 0
	if (line[1] == "{")
		json()
	else
		table()
}

function table(  i, named, rows, hdr, name) {
	# column names: upper case, "-" and ":" (BACK-FILE, MAJ:MIN)
	hdr = line[1] ~ /^[A-Z][A-Z:-]*( +[A-Z][A-Z:-]*)*$/
	named = 1
	for (i = 1 + hdr; i <= n; i++) {
		split(line[i], f, " ")
		if (f[1] !~ /^\/dev\//)
			named = 0
	}
	if (named) {
		for (i = 1; i <= n; i++) {
			split(line[i], f, " ")
			name = f[1]
			sub(/:$/, "", name)
			if ((i == 1 && hdr) || (name in mine))
				print line[i]
		}
		return
	}
	rows = n - hdr
	if (rows != ndev) {
		# not every device: the listing of one device or of -j FILE,
		# which names only what the test asked for
		for (i = 1; i <= n; i++)
			print line[i]
		return
	}
	for (i = 1; i <= n; i++)
		if ((i == 1 && hdr) || ours_at(i - hdr))
			print line[i]
}

# util-linux's JSON: "      {" opens the first object, "      },{"
# separates two, "      }" closes the last.
function json(  i, k, nobj, in_obj, body, nm, idx, kept, out) {
	nobj = 0
	in_obj = 0
	for (i = 1; i <= n; i++) {
		if (line[i] ~ /^ *\{$/ && i > 1 || line[i] ~ /^ *\},\{$/) {
			nobj++
			in_obj = 1
			body[nobj] = ""
			nm[nobj] = ""
			continue
		}
		if (in_obj && line[i] ~ /^ *\}$/) {
			in_obj = 0
			continue
		}
		if (in_obj) {
			body[nobj] = body[nobj] line[i] "\n"
			if (match(line[i], /^ *"name": "[^"]*"/)) {
				k = line[i]
				sub(/^ *"name": "/, "", k)
				sub(/".*/, "", k)
				nm[nobj] = k
			}
			continue
		}
		if (nobj == 0)
			head = head line[i] "\n"
		else
			tail = tail line[i] "\n"
	}
	if (nobj && nm[1] == "" && nobj != ndev) {
		for (i = 1; i <= n; i++)
			print line[i]
		return
	}
	printf "%s", head
	kept = 0
	for (i = 1; i <= nobj; i++) {
		if (nm[i] != "" ? !(nm[i] in mine) : !ours_at(i))
			continue
		printf "%s\n%s", kept ? "      },{" : "      {", body[i]
		kept++
	}
	if (kept)
		print "      }"
	printf "%s", tail
}
