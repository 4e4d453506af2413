// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz dt_target_parse() (lib/backend/target.c): the --target spec comes straight
 * from the command line or $DT_TARGET.
 *
 * Input: the spec bytes (a NUL inside ends the C string early, as it would
 * from argv).  Checked on every input, beyond the sanitizers:
 *   - the result is 0 or -EINVAL;
 *   - on success: ops, label and spec are set, spec is the input, a posix
 *     root is absolute, an NFS target has a server and version 3 or 4,
 *     ports are 0 or 1..65535;
 *   - on failure: *t is all zero and err is one printable line that
 *     starts with "target '";
 *   - a small err buffer is never overrun (ASan) and is NUL-terminated;
 *     err == NULL is accepted.
 */
#include <errno.h>
#include <string.h>

#include "dentrace.h"
#include "fuzz.h"

static int tp_all_zero(const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i])
			return 0;
	return 1;
}

static void tp_check_err(const char *err, size_t len)
{
	size_t n = strnlen(err, len);

	fuzz_check(n < len, "err not terminated");
	for (size_t i = 0; i < n; i++)
		fuzz_check(err[i] >= 0x20 && err[i] < 0x7f,
			   "byte 0x%02x at %zu of the message", err[i] & 0xff,
			   i);
}

int DT_FUZZ_INIT(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

int DT_FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	/* an exact-size copy so that ASan sees any read past the end */
	char *spec = malloc(size + 1);
	struct dt_target *t = malloc(sizeof(*t));
	char err[256], *small = malloc(8);
	int rc, rc2;

	if (!spec || !t || !small)
		abort();
	memcpy(spec, data, size);
	spec[size] = '\0';
	memset(t, 0xa5, sizeof(*t));
	rc = dt_target_parse(spec, t, err, sizeof(err));
	fuzz_check(rc == 0 || rc == -EINVAL, "rc %d", rc);
	tp_check_err(err, sizeof(err));
	if (rc == 0) {
		fuzz_check(err[0] == '\0', "message on success: %s", err);
		fuzz_check(t->ops == &dt_posix_ops || t->ops == &dt_libnfs_ops,
			   "no ops");
		fuzz_check(!strcmp(t->spec, spec), "spec not kept");
		fuzz_check(t->label[0] && memchr(t->label, 0,
						 sizeof(t->label)), "label");
		fuzz_check(memchr(t->root, 0, sizeof(t->root)) &&
			   memchr(t->server, 0, sizeof(t->server)),
			   "unterminated field");
		fuzz_check(t->nfsport >= 0 && t->nfsport <= 65535 &&
			   t->mountport >= 0 && t->mountport <= 65535,
			   "ports %d %d", t->nfsport, t->mountport);
		if (t->ops == &dt_posix_ops) {
			fuzz_check(t->root[0] == '/' && t->nfs_version == 0,
				   "posix root '%s'", t->root);
		} else {
			fuzz_check(t->server[0] && (t->nfs_version == 3 ||
						    t->nfs_version == 4),
				   "nfs server '%s' v%d", t->server,
				   t->nfs_version);
			fuzz_check(t->root[0] == '/', "export '%s'", t->root);
		}
	} else {
		fuzz_check(tp_all_zero(t, sizeof(*t)),
			   "target not cleared after a rejection");
		fuzz_check(!strncmp(err, "target '", 8), "message '%s'", err);
	}

	/* the same verdict with a tiny message buffer, and without one */
	rc2 = dt_target_parse(spec, t, small, 8);
	fuzz_check(rc2 == rc, "verdict %d then %d", rc, rc2);
	tp_check_err(small, 8);
	rc2 = dt_target_parse(spec, t, NULL, 0);
	fuzz_check(rc2 == rc, "verdict %d then %d without err", rc, rc2);
	free(small);
	free(t);
	free(spec);
	return 0;
}
