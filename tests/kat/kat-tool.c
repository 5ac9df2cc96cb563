/*
 * kat-tool - drive libloop's crypto core from the command line, the way
 * aespipe is driven, so tests/kat can put both through the same inputs.
 *
 *   kat-tool -e NAME [-k BITS] [-H HASH] [-S SEED] [-C N] [-I IVOFF]
 *            [-o OFFSET_BYTES] [-p FD | -P KEYFILE] [-K GPGFILE [-G HOME]]
 *            [-h CRYPTSETUP_HASH] [-s] [-d] [-L] [-X] [-i] <in >out
 *   kat-tool -N | -W
 *
 * -H is a loop-AES option (implies loop-AES semantics, like -S -C -K -P
 * and -L); -h is cryptsetup's --hash.  -X prints the derived key(s) in
 * hex, one per line, instead of transferring data.  -i names the code
 * path the context runs (loop_crypt_impl_name()) on standard error.
 * -N / -W print the lmk lanes / AES width this CPU runs after
 * LIBLOOP_CRYPTO_MD5_LANES / LIBLOOP_CRYPTO_AES_WIDTH (0: no AES-NI),
 * for the tests' TAP lines.
 *
 * Whole 512-byte sectors only.  -s allows short passphrases.  The
 * passphrase is only ever read from a file descriptor or a file.
 * Exit: 0 ok, 1 library error (message on stderr), 2 usage.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libloop-crypto.h"
#include "crypto/crypto-internal.h"

static int die(const char *what, int r)
{
	fprintf(stderr, "kat-tool: %s: %s\n", what, strerror(-r));
	return 1;
}

static int read_full(int fd, unsigned char *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = read(fd, buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		done += (size_t)n;
	}
	return (int)done;
}

int main(int argc, char **argv)
{
	const char *name = NULL, *keyfile = NULL, *gpgfile = NULL, *gpghome = NULL;
	struct loop_key_params kp = { 0 };
	struct loop_cipher_spec spec;
	struct loop_pass *pass = NULL, *gpgpass = NULL;
	struct loop_key *key = NULL;
	struct loop_crypt *x = NULL;
	unsigned int bits = 0, flags = 0;
	long long ivoff = -1;
	unsigned long long offset = 0, sector = 0;
	int c, fd = -1, decrypt = 0, dump_key = 0, say_impl = 0, r;
	static unsigned char buf[1 << 20];

	while ((c = getopt(argc, argv, "e:k:H:h:S:C:I:o:p:P:K:G:sdLXNWi")) != -1) {
		switch (c) {
		case 'e': name = optarg; break;
		case 'k': bits = (unsigned int)strtoul(optarg, NULL, 10); break;
		case 'H': kp.hash = optarg; flags |= LOOP_SPEC_LOOPAES; break;
		case 'h': kp.hash = optarg; break;
		case 'X': dump_key = 1; break;
		case 'S': kp.seed = optarg; flags |= LOOP_SPEC_LOOPAES; break;
		case 'C': kp.iter_thousands = strtoul(optarg, NULL, 10); flags |= LOOP_SPEC_LOOPAES; break;
		case 'I': ivoff = strtoll(optarg, NULL, 10); break;
		case 'o': offset = strtoull(optarg, NULL, 10); break;
		case 'p': fd = atoi(optarg); break;
		case 'P': keyfile = optarg; flags |= LOOP_SPEC_LOOPAES; break;
		case 'K': gpgfile = optarg; flags |= LOOP_SPEC_LOOPAES; break;
		case 'G': gpghome = optarg; break;
		case 's': kp.allow_short = 1; break;
		case 'd': decrypt = 1; break;
		case 'L': flags |= LOOP_SPEC_LOOPAES; break;
		/* how many lmk IVs this CPU hashes at once (after
		 * LIBLOOP_CRYPTO_MD5_LANES), for the tests' TAP lines */
		case 'N': printf("%u\n", loop_md5_lanes()); return 0;
		case 'W': printf("%u\n", loop_aesni_available() ? loop_aes_width() : 0); return 0;
		case 'i': say_impl = 1; break;
		default: return 2;
		}
	}
	if (!name)
		return 2;
	r = loop_cipher_spec_parse(&spec, name, bits, flags);
	if (r)
		return die("cipher", r < 0 ? r : -EINVAL);

	if (gpgfile) {
		if (fd < 0)
			return 2;
		r = loop_pass_read_fd(&gpgpass, fd, LOOP_PASS_ONE_LINE);
		if (!r)
			r = loop_pass_from_gpg(&pass, gpgfile, gpghome, NULL, gpgpass);
		loop_pass_free(gpgpass);
	} else if (keyfile) {
		r = loop_pass_read_file(&pass, keyfile);
	} else if (fd >= 0) {
		r = loop_pass_read_fd(&pass, fd, spec.format == LOOP_FORMAT_LOOPAES ?
				      LOOP_PASS_MULTI_LINE : LOOP_PASS_ONE_LINE);
	} else {
		r = loop_pass_read_tty(&pass, "Password: ", 0);
	}
	if (r)
		return die("passphrase", r);
	r = loop_key_derive(&key, &spec, &kp, pass);
	loop_pass_free(pass);
	if (r)
		return die("key", r);
	if (dump_key) {
		unsigned int i, j;

		for (i = 0; i < loop_key_count(key); i++) {
			const uint8_t *d = loop_key_data(key, i);

			for (j = 0; j < loop_key_size(key); j++)
				printf("%02x", d[j]);
			printf("\n");
		}
		loop_key_free(key);
		return 0;
	}
	r = loop_crypt_new(&x, &spec, key, loop_crypt_iv_offset(offset, ivoff));
	loop_key_free(key);
	if (r)
		return die("crypt", r);
	if (say_impl)
		fprintf(stderr, "kat-tool: %s\n", loop_crypt_impl_name(x));
	for (;;) {
		int n = read_full(0, buf, sizeof(buf));
		size_t ns;

		if (n <= 0)
			break;
		if (n % LOOP_SECTOR_SIZE) {
			fprintf(stderr, "kat-tool: input is not whole sectors\n");
			loop_crypt_free(x);
			return 2;
		}
		ns = (size_t)n / LOOP_SECTOR_SIZE;
		r = decrypt ? loop_crypt_decrypt(x, sector, buf, buf, ns)
			    : loop_crypt_encrypt(x, sector, buf, buf, ns);
		if (r) {
			loop_crypt_free(x);
			return die("transfer", r);
		}
		if (write(1, buf, (size_t)n) != n) {
			loop_crypt_free(x);
			return die("write", -EIO);
		}
		sector += ns;
	}
	loop_crypt_free(x);
	return 0;
}
