/*
 * gpg-keyfile.c - loop-AES gpg-encrypted key files (`-K file`).
 *
 * Same protocol as loop-AES losetup and aespipe: gpg decrypts the key file
 * (on its stdin) with the passphrase we hand it on a separate descriptor,
 * and we read its stdout with the multi-line rule.  The passphrase goes
 * over a socketpair so that send(MSG_NOSIGNAL) can be used: a library must
 * not touch the process's SIGPIPE disposition.  Nothing decrypted is ever
 * written to a file, and no secret is in argv or the environment.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <limits.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "crypto/crypto-internal.h"
#include "secret/gpg-home.h"
#include "base/spawn.h"

/*
 * gpg gets a clean environment, not the caller's: only a fixed PATH,
 * and the HOME and GNUPGHOME that locate its keyring and agent (read with
 * secure_getenv, so that a setuid caller's user cannot point them
 * elsewhere). Whatever else the caller had (LD_*, GPG_AGENT_INFO, ...)
 * must not steer the program that sees the passphrase.
 */
#define GPG_PATH "PATH=/usr/local/bin:/usr/bin:/bin"

struct clean_env {
	char *envp[4];
	char *home, *gnupghome;
};

static int clean_env_build(struct clean_env *e)
{
	const char *home = secure_getenv("HOME"), *gh = secure_getenv("GNUPGHOME");
	int n = 0;

	memset(e, 0, sizeof(*e));
	e->envp[n++] = (char *)GPG_PATH;
	if (home && *home) {
		e->home = malloc(strlen(home) + sizeof("HOME="));
		if (!e->home)
			return -ENOMEM;
		strcpy(stpcpy(e->home, "HOME="), home);
		e->envp[n++] = e->home;
	}
	if (gh && *gh) {
		e->gnupghome = malloc(strlen(gh) + sizeof("GNUPGHOME="));
		if (!e->gnupghome) {
			free(e->home);
			return -ENOMEM;
		}
		strcpy(stpcpy(e->gnupghome, "GNUPGHOME="), gh);
		e->envp[n++] = e->gnupghome;
	}
	e->envp[n] = NULL;
	return 0;
}

static void clean_env_free(struct clean_env *e)
{
	free(e->home);
	free(e->gnupghome);
}

/* Fixed target descriptors in the child. */
#define CHILD_PASS_FD  3
#define CHILD_PASS_FD_STR "3"

static int send_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

static const char *find_gpg(const char *gpg_program)
{
	static const char *const candidates[] = {
		"/usr/bin/gpg", "/bin/gpg", "/usr/local/bin/gpg", NULL
	};
	int i;

	if (gpg_program)
		return access(gpg_program, X_OK) == 0 ? gpg_program : NULL;
	for (i = 0; candidates[i]; i++)
		if (access(candidates[i], X_OK) == 0)
			return candidates[i];
	return NULL;
}

/* gpg decrypts @keyfd (the caller's: not closed) from its start */
static int pass_from_gpg(struct loop_pass **pass, int keyfd,
			 const char *gpg_homedir, const char *gpg_program,
			 const struct loop_pass *gpg_pass)
{
	const char *argv[16], *gpg, *line;
	char tmphome[PATH_MAX];
	struct clean_env env;
	int out[2] = { -1, -1 }, sp[2] = { -1, -1 };
	struct loop_spawn_fd fds[3];
	struct loop_pass *result = NULL;
	size_t len;
	pid_t pid;
	int r, status, i = 0, made_home;

	if (!pass || keyfd < 0 || !gpg_pass)
		return -EINVAL;
	*pass = NULL;
	line = loop_pass_line(gpg_pass, 0, &len);
	if (!line)
		return -EINVAL;
	gpg = find_gpg(gpg_program);
	if (!gpg)
		return -ENOENT;
	made_home = gpg_home_fallback(gpg_homedir, tmphome, sizeof(tmphome));
	if (made_home < 0)
		return made_home;
	if (made_home)
		gpg_homedir = tmphome;

	argv[i++] = "gpg";
	if (gpg_homedir) {
		argv[i++] = "--homedir";
		argv[i++] = gpg_homedir;
	}
	argv[i++] = "--no-options";
	argv[i++] = "--quiet";
	argv[i++] = "--batch";
	argv[i++] = "--no-tty";
	/* gpg >= 2.1 only honours --passphrase-fd with loopback pinentry */
	argv[i++] = "--pinentry-mode";
	argv[i++] = "loopback";
	argv[i++] = "--passphrase-fd";
	argv[i++] = CHILD_PASS_FD_STR;
	argv[i++] = "--decrypt";
	argv[i] = NULL;

	r = clean_env_build(&env);
	if (r < 0)
		goto remove_home;
	/* gpg shares the offset: a second try (a wrong passphrase asked
	 * again) must not start where the first one ended. A pipe has no
	 * start to go back to, and is read once. */
	if (lseek(keyfd, 0, SEEK_SET) < 0 && errno != ESPIPE) {
		r = -errno;
		goto out;
	}
	if (pipe2(out, O_CLOEXEC) < 0 ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) < 0) {
		r = -errno;
		goto out;
	}
	/* stdin the key file, stdout the pipe, the passphrase on fd 3;
	 * stderr is /dev/null */
	fds[0] = (struct loop_spawn_fd){ keyfd, 0 };
	fds[1] = (struct loop_spawn_fd){ out[1], 1 };
	fds[2] = (struct loop_spawn_fd){ sp[1], CHILD_PASS_FD };
	r = loop_spawn(gpg, (char *const *)argv, env.envp, fds, 3, 0, &pid);
	if (r)
		goto out;
	close(out[1]);
	out[1] = -1;
	close(sp[1]);
	sp[1] = -1;

	r = send_all(sp[0], line, len);
	if (!r)
		r = send_all(sp[0], "\n", 1);
	/* gpg may already have died (not a gpg file); its status tells. */
	shutdown(sp[0], SHUT_WR);

	i = loop_pass_read_fd_multi_drain(&result, out[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (i < 0) {
		r = i;
		goto out;
	}
	line = loop_pass_line(result, 0, &len);
	if (!len) {
		/* Nothing came out: wrong passphrase, not encrypted, or empty. */
		r = (WIFEXITED(status) && WEXITSTATUS(status) == 127) ? -ENOENT :
		    (!WIFEXITED(status) || WEXITSTATUS(status)) ? -EKEYREJECTED : -EBADMSG;
		goto out;
	}
	/* Lines came out, but gpg failed: a truncated or damaged file gives
	 * the lines before the damage (48 of 65, say), and then an exit
	 * status of 2. They are not the key file; using them would set up a
	 * device over garbage. */
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		r = -EIO;
		goto out;
	}
	*pass = result;
	result = NULL;
	r = 0;
out:
	clean_env_free(&env);
	loop_pass_free(result);
	if (out[0] >= 0) close(out[0]);
	if (out[1] >= 0) close(out[1]);
	if (sp[0] >= 0) close(sp[0]);
	if (sp[1] >= 0) close(sp[1]);
remove_home:
	if (made_home)
		gpg_home_remove(tmphome);
	return r;
}

LIBLOOP_EXPORT int loop_pass_from_gpg_fd(struct loop_pass **pass, int keyfd,
					 const char *gpg_homedir, const char *gpg_program,
					 const struct loop_pass *gpg_pass)
{
	int r = pass_from_gpg(pass, keyfd, gpg_homedir, gpg_program, gpg_pass);

	/* the passphrase and the key lines went through the stack and registers */
	loop_secret_scrub();
	return r;
}

LIBLOOP_EXPORT int loop_pass_from_gpg(struct loop_pass **pass, const char *keyfile,
				      const char *gpg_homedir, const char *gpg_program,
				      const struct loop_pass *gpg_pass)
{
	int keyfd, r;

	if (!pass || !keyfile || !gpg_pass)
		return -EINVAL;
	*pass = NULL;
	keyfd = open(keyfile, O_RDONLY | O_CLOEXEC);
	if (keyfd < 0)
		return -errno;
	r = loop_pass_from_gpg_fd(pass, keyfd, gpg_homedir, gpg_program, gpg_pass);
	close(keyfd);
	return r;
}
