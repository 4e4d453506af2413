// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz dt_history_decode() (lib/check/histio.c): in a multi-host run every host
 * decodes the histories the other hosts posted to the coordinator, so the
 * bytes come from the network.
 *
 * Input: the encoded history.  Checked beyond the sanitizers:
 *   - the result is 0, -EBADMSG or -ENOMEM, and a failed decode leaves a
 *     history that dt_history_free() frees (LeakSanitizer);
 *   - every accepted buffer is canonical: encoding the decoded history
 *     gives back the same bytes;
 *   - the oracles that judge a decoded history in a multi-host run
 *     (dentrace.h) survive whatever was decoded: same_answer, one_winner,
 *     rename_chain, name_lifetime, readdir on names taken from the input.
 */
#include <errno.h>
#include <string.h>

#include "dentrace.h"
#include "fuzz.h"

/* oracles are O(n^2) in places: judge only histories of modest size */
#define HI_ORACLE_MAX_EVENTS 512

int DT_FUZZ_INIT(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

static void hi_oracles(struct dt_history *h)
{
	static const int allowed[] = { ENOENT, EEXIST, ENOTEMPTY, 0 };
	struct dt_verdict v;
	char name[DT_EV_NAME] = "x", dir[DT_EV_NAME] = "d";
	uint64_t fid = h->n ? h->ev[0].fileid : 1;
	int n;

	/* copies: sorting may move the events */
	if (h->n) {
		memcpy(name, h->ev[0].name, sizeof(name));
		memcpy(dir, h->ev[h->n - 1].name, sizeof(dir));
	}
	dt_history_sort(h);
	memset(&v, 0, sizeof(v));
	n = dt_oracle_same_answer(h, name, &v);
	fuzz_check(n >= 0, "same_answer %d", n);
	for (int op = 0; op < DT_OP__COUNT; op++) {
		memset(&v, 0, sizeof(v));
		n = dt_oracle_one_winner(h, (enum dt_opcode)op, name, allowed,
					 &v);
		fuzz_check(n >= 0, "one_winner %d", n);
	}
	memset(&v, 0, sizeof(v));
	n = dt_oracle_rename_chain(h, name, fid, &v);
	fuzz_check(n >= 0, "rename_chain %d", n);
	memset(&v, 0, sizeof(v));
	n = dt_oracle_name_lifetime(h, &v);
	fuzz_check(n >= 0, "name_lifetime %d", n);
	memset(&v, 0, sizeof(v));
	n = dt_oracle_readdir(h, dir, &v);
	fuzz_check(n >= 0, "readdir %d", n);
	memset(&v, 0, sizeof(v));
	n = dt_oracle_readdir(h, "", &v);
	fuzz_check(n >= 0, "readdir root %d", n);
}

int DT_FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	struct dt_history h = { 0 };
	void *buf = malloc(size ? size : 1), *enc = NULL;
	size_t enclen = 0;
	int rc;

	if (!buf)
		abort();
	memcpy(buf, data, size);
	rc = dt_history_decode(buf, size, &h);
	fuzz_check(rc == 0 || rc == -EBADMSG || rc == -ENOMEM, "rc %d", rc);
	if (rc == 0) {
		rc = dt_history_encode(&h, &enc, &enclen);
		fuzz_check(rc == 0, "re-encode: %d", rc);
		fuzz_check(enclen == size && !memcmp(enc, data, size),
			   "decode+encode changed %zu bytes into %zu", size,
			   enclen);
		free(enc);
		for (size_t i = 0; i < h.n; i++) {
			fuzz_check(h.ev[i].op < DT_OP__COUNT, "op %u",
				   h.ev[i].op);
			fuzz_check(memchr(h.ev[i].name, 0, DT_EV_NAME) &&
				   memchr(h.ev[i].name2, 0, DT_EV_NAME),
				   "unterminated name");
		}
		if (h.n <= HI_ORACLE_MAX_EVENTS)
			hi_oracles(&h);
	}
	dt_history_free(&h);
	free(buf);
	return 0;
}
