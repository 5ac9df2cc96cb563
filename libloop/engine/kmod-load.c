// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Loading the cryptoloop module with libkmod, so that a refusal keeps its
 * errno. modprobe(8) says why only in words on its stderr; an admin whose
 * kernel enforces module signatures (Secure Boot's lockdown, or
 * module.sig_enforce=1) must hear that the key DKMS signed the module
 * with is not enrolled, not that an engine "cannot run here".
 *
 * libkmod is opened on first use, as libgcrypt is (gcrypt-load.c): a
 * plain losetup loads no more than libc.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <libkmod.h>

#include "base/private.h"

/* libkmod's ABI since kmod 1 (2011) */
#define KMOD_SONAME	"libkmod.so.2"
#define MODULE_NAME	"cryptoloop"
#define LOCKDOWN_FILE	"/sys/kernel/security/lockdown"

#define KMOD_FUNCS(X) \
	X(kmod_new) X(kmod_unref) X(kmod_module_new_from_name) \
	X(kmod_module_probe_insert_module) X(kmod_module_unref)

struct kmod_api {
#define FIELD(f) __typeof__(&f) f;
	KMOD_FUNCS(FIELD)
#undef FIELD
};

/*
 * Before 5.19 the name is the kernel's own cryptoloop transfer, which
 * takes transfer type 18 from cryptoloop_xfer (the xfer engine) and has
 * no /dev/cryptoloop-control: never load that one.
 */
static int kernel_has_our_name(void)
{
	struct utsname u;
	unsigned int major, minor;

	if (uname(&u) || sscanf(u.release, "%u.%u", &major, &minor) != 2)
		return 0;
	return major > 5 || (major == 5 && minor >= 19);
}

static int insert(const struct kmod_api *k)
{
	struct kmod_ctx *ctx = k->kmod_new(NULL, NULL);
	struct kmod_module *mod = NULL;
	int rc;

	if (!ctx)
		return -ENOMEM;
	rc = k->kmod_module_new_from_name(ctx, MODULE_NAME, &mod);
	if (!rc) {
		/* no install commands: a library runs no shell lines of
		 * modprobe.d; a blacklisted module stays out (rc > 0) */
		rc = k->kmod_module_probe_insert_module(mod, KMOD_PROBE_IGNORE_COMMAND |
							 KMOD_PROBE_APPLY_BLACKLIST,
							 NULL, NULL, NULL, NULL);
		if (rc > 0)
			rc = -EPERM;
		k->kmod_module_unref(mod);
	}
	k->kmod_unref(ctx);
	return rc;
}

LIBLOOP_EXPORT int loop_kmod_load(void)
{
	struct kmod_api k;
	void *h;
	int rc;

	if (access("/sys/module/" MODULE_NAME, F_OK) == 0)
		return 0;
	if (!kernel_has_our_name())
		return -ENOENT;
	/* what the kernel would answer anyone without CAP_SYS_MODULE */
	if (geteuid())
		return -EPERM;
	h = dlopen(KMOD_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		DBG(ENGINE, "kmod", "cannot load %s: %s", KMOD_SONAME, dlerror());
		return -ELIBACC;
	}
#define LOOKUP(f) \
	*(void **)&k.f = dlsym(h, #f); \
	if (!k.f) { \
		dlclose(h); \
		return -ELIBACC; \
	}
	KMOD_FUNCS(LOOKUP)
#undef LOOKUP
	rc = insert(&k);
	dlclose(h);
	DBG(ENGINE, "kmod", "load " MODULE_NAME ": %d", rc);
	return rc;
}

/* A lockdown level other than "[none]" is in force. */
static int locked_down(void)
{
	char buf[128];
	FILE *f = fopen(LOCKDOWN_FILE, "re");
	size_t n;

	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return strchr(buf, '[') && !strstr(buf, "[none]");
}

LIBLOOP_EXPORT int loop_kmod_refusal(int rc, char *text, size_t size)
{
	/* EKEYREJECTED: signatures enforced, the key unknown or the module
	 * unsigned; EPERM: lockdown refused it, for root only, since
	 * anyone else lacks CAP_SYS_MODULE anyway */
	if (rc != -EKEYREJECTED && !(rc == -EPERM && geteuid() == 0 && locked_down()))
		return 0;
	snprintf(text, size, "the kernel refused the cryptoloop module (%s): it enforces "
		 "module signatures (Secure Boot, or module.sig_enforce=1) and does not trust "
		 "the key the module is signed with; enrol DKMS's key with \"mokutil --import "
		 "/var/lib/dkms/mok.pub\" and confirm it in MokManager at the next boot",
		 strerror(-rc));
	return 1;
}
