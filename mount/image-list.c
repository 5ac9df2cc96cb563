// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What an initramfs needs to unlock a root line, decided once.
 *
 * initramfs-tools and dracut build the image in different languages and
 * with different helpers; when each decided what goes in, they drifted
 * apart, and a missing module or library is a machine that does not
 * boot. Both now copy this list and decide nothing. The list is read off
 * the system that builds the image: libraries are where the dynamic
 * loader finds them, the module is there if depmod knows it for the
 * kernel the image is for.
 *
 *   program PATH          an executable, with the libraries it links
 *   library PATH          a library loaded with dlopen(), with what it links
 *   module NAME           a kernel module the unlock cannot do without
 *   module-optional NAME  a module that helps where the kernel has it
 *   keyfile PATH          a key file, at the same path, readable by root alone
 *   udev-rules NAME       a rules file from the system's rules directories
 *   warning TEXT          something the admin must hear while the image builds
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <libloop-engine.h>

#include "image-list.h"

#define GCRYPT_SONAME		"libgcrypt.so.20"
#define SMARTCOLS_SONAME	"libsmartcols.so.1"
#define KMOD_SONAME		"libkmod.so.2"
#define UDEV_RULES		"60-cryptoloop.rules"

/* the dm engine: dm-crypt, its ciphers as the engine names them (aes,
 * twofish or serpent in CBC, multi-key's lmk IV from md5), a loop device
 * under an image file */
static const char *const dm_required[] = { "dm_mod", "dm_crypt", NULL };
static const char *const dm_helpers[] = {
	"loop", "twofish_generic", "twofish-x86_64", "serpent_generic",
	"serpent-sse2-x86_64", "cbc", "md5", NULL
};
/* a key device: a USB stick and what it may be formatted with */
static const char *const keydev_modules[] = {
	"usb_storage", "uas", "xhci_pci", "xhci_hcd", "ehci_pci", "ohci_pci",
	"ext4", "vfat", "nls_cp437", "nls_iso8859_1", "nls_utf8", NULL
};

bool is_cryptoloop_device(const char *path)
{
	const char *n = path;

	if (strncmp(n, "/dev/cryptoloop", 15))
		return false;
	n += 15;
	return *n && strspn(n, "0123456789") == strlen(n);
}

/* One line; a value with a newline would split it, and names no file
 * anyone should boot from. */
static int put(const struct root_line *l, const char *kind, const char *value)
{
	if (strchr(value, '\n'))
		return root_line_error(l, "%s: a newline in a path cannot go into the image list",
				       value);
	printf("%s %s\n", kind, value);
	return 0;
}

static void put_modules(const char *kind, const char *const *names)
{
	for (; *names; names++)
		printf("%s %s\n", kind, *names);
}

/* The first of @dirs holding an executable @name, or NULL. */
static char *find_exec(const char *const *dirs, const char *name)
{
	char *path;

	for (; *dirs; dirs++) {
		if (asprintf(&path, "%s/%s", *dirs, name) < 0)
			return NULL;
		if (access(path, X_OK) == 0)
			return path;
		free(path);
	}
	return NULL;
}

static const char *const sbin_dirs[] = { "/usr/sbin", "/sbin", NULL };

/* Where the dynamic loader finds @soname, as dlopen() would: the path the
 * image needs it at. 0, or -ENOENT. */
static int library_path(const char *soname, char *buf, size_t size)
{
	struct link_map *map = NULL;
	void *h = dlopen(soname, RTLD_LAZY | RTLD_LOCAL);
	int rc = -ENOENT;

	if (!h)
		return rc;
	if (dlinfo(h, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name && *map->l_name &&
	    (size_t)snprintf(buf, size, "%s", map->l_name) < size)
		rc = 0;
	dlclose(h);
	return rc;
}

/* libloop's own directory, where its engines are: the loader found
 * libloop there through this program's RUNPATH. */
static int engine_dir(char *buf, size_t size)
{
	Dl_info info;
	char *slash;

	if (!dladdr((void *)loop_state_foreach, &info) || !info.dli_fname ||
	    (size_t)snprintf(buf, size, "%s", info.dli_fname) >= size)
		return -ENOENT;
	slash = strrchr(buf, '/');
	if (!slash)
		return -ENOENT;
	*slash = '\0';
	return 0;
}

/* Whether depmod knows a cryptoloop module for @kver (DKMS runs it). */
static bool have_module(const char *kver)
{
	char path[PATH_MAX], *line = NULL, *colon, *base, *dot;
	size_t cap = 0;
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/lib/modules/%s/modules.dep", kver);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!found && getline(&line, &cap, f) > 0) {
		colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = '\0';
		base = strrchr(line, '/');
		base = base ? base + 1 : line;
		dot = strstr(base, ".ko");
		found = dot && (size_t)(dot - base) == strlen("cryptoloop") &&
			!strncmp(base, "cryptoloop", dot - base);
	}
	free(line);
	fclose(f);
	return found;
}

static int put_programs(const struct root_line *l)
{
	static const char *const bin_dirs[] = { "/usr/bin", "/bin", NULL };
	char self[PATH_MAX], *p;
	ssize_t n;
	int rc = 0;

	/* the installed program, or this one where it is not installed yet */
	p = find_exec((const char *const[]){ SBINDIR, NULL }, "cryptoloop-unlock");
	if (!p) {
		n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (n <= 0)
			return root_line_error(l, "/proc/self/exe: %s", strerror(errno));
		self[n] = '\0';
		p = strdup(self);
	}
	if (!p || put(l, "program", p))
		rc = -1;
	free(p);
	/* for the emergency shell: losetup -a shows what is set up */
	p = find_exec((const char *const[]){ SBINDIR, NULL }, LOSETUP_NAME);
	if (p && put(l, "program", p))
		rc = -1;
	free(p);
	if (l->gpgkey) {
		/* gpg decrypts the key file: symmetric, no agent, no keyring */
		p = find_exec(bin_dirs, "gpg");
		if (!p)
			return root_line_error(l, "x-cryptoloop.gpgkey= for %s, but gpg is not "
					       "installed (install gpg)", l->target);
		if (put(l, "program", p))
			rc = -1;
		free(p);
	}
	/* initramfs-tools and dracut find the root's filesystem type by
	 * probing its device, which exists only once unlocked: its fsck
	 * comes from the line */
	if (strcmp(l->fstype, "auto")) {
		char name[64];

		snprintf(name, sizeof(name), "fsck.%s", l->fstype);
		p = find_exec(sbin_dirs, name);
		if (p) {
			char *fsck = find_exec(sbin_dirs, "fsck");
			char *logsave = find_exec(sbin_dirs, "logsave");

			if ((fsck && put(l, "program", fsck)) ||
			    (logsave && put(l, "program", logsave)) || put(l, "program", p))
				rc = -1;
			free(fsck);
			free(logsave);
			free(p);
		}
	}
	return rc;
}

static int put_libraries(const struct root_line *l, bool dm)
{
	char path[PATH_MAX], dir[PATH_MAX];

	/* every key is derived through libgcrypt, which libloop dlopens */
	if (library_path(GCRYPT_SONAME, path, sizeof(path)))
		return root_line_error(l, "%s not found: it derives the key of %s",
				       GCRYPT_SONAME, l->target);
	if (put(l, "library", path))
		return -1;
	/* losetup -l in the emergency shell lists through it */
	if (!library_path(SMARTCOLS_SONAME, path, sizeof(path)) && put(l, "library", path))
		return -1;
	if (!dm)
		return 0;
	if (engine_dir(dir, sizeof(dir)) ||
	    (size_t)snprintf(path, sizeof(path), "%s/engine-dm.so", dir) >= sizeof(path) ||
	    access(path, R_OK))
		return root_line_error(l, "the dm engine (engine-dm.so beside libloop) is not "
				       "installed, and %s may need it", l->target);
	return put(l, "library", path);
}

static int put_key(const struct root_line *l)
{
	if (l->req.keydev) {
		put_modules("module-optional", keydev_modules);
		return 0;
	}
	if (l->keyfile)
		return root_line_error(l, "x-cryptoloop.keyfile=%s: a cleartext key file in the "
				       "initramfs, next to it on an unencrypted /boot, protects "
				       "nothing; keep it on a key device (x-cryptoloop.keydev=) or "
				       "use a gpg key file", l->keyfile);
	if (!l->gpgkey)
		return 0;
	if (l->gpgkey[0] != '/')
		return root_line_error(l, "x-cryptoloop.gpgkey=%s: an absolute path is needed "
				       "without x-cryptoloop.keydev=", l->gpgkey);
	if (access(l->gpgkey, R_OK))
		return root_line_error(l, "the gpg key file %s cannot be read: %s", l->gpgkey,
				       strerror(errno));
	return put(l, "keyfile", l->gpgkey);
}

int image_list_print(const struct root_line *l, const char *kver)
{
	bool module = have_module(kver);
	bool kmod = !strcasecmp(l->engine, "kmod"), dm = !strcasecmp(l->engine, "dm");

	if (kmod && !module)
		return root_line_error(l, "x-cryptoloop.engine=kmod for %s, but there is no "
				       "cryptoloop module for %s (cryptoloop-dkms and the "
				       "headers of %s installed?)", l->target, kver, kver);
	if (put_programs(l) || put_libraries(l, !kmod) || put_key(l))
		return -1;
	if (module && !dm) {
		char path[PATH_MAX];

		printf("module cryptoloop\n");
		/* cryptoloop-unlock loads the module through it, to say why
		 * a kernel that enforces signatures refused it */
		if (!library_path(KMOD_SONAME, path, sizeof(path)) && put(l, "library", path))
			return -1;
	}
	if (!kmod) {
		put_modules("module", dm_required);
		put_modules("module-optional", dm_helpers);
	}
	/* the kernel's AES for both engines, where the CPU has AES-NI */
	printf("module-optional aesni_intel\n");
	/* /dev/cryptoloopN and the dm mappings get the links of the decrypted
	 * filesystem, so that UUID= of / resolves */
	printf("udev-rules %s\n", UDEV_RULES);
	if (!kmod && !module && !dm)
		printf("warning no cryptoloop module for %s: %s will be unlocked through "
		       "dm-crypt\n", kver, l->target);
	if ((dm || (!kmod && !module)) && is_cryptoloop_device(l->device))
		printf("warning %s will be set up through dm-crypt, and %s (the first field of "
		       "its line) will not exist; name it by UUID= instead\n", l->target,
		       l->device);
	return 0;
}
