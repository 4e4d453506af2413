/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dt_oracle_alias: the names of one file are one file on one client
 * (oracle_alias.h says why no cache bound excuses a client's own change).
 */
#include <inttypes.h>
#include <stdio.h>

#include "base/errname.h"
#include "check/oracle_alias.h"
#include "check/oracle_util.h"

const char *dt_alias_desc(const struct dt_alias_seen *e, uint64_t t0,
			  char *buf, size_t len)
{
	char rb[16];

	if (e->change)
		snprintf(buf, len, "h%u t%u change(%s): size %" PRIu64
			 " nlink %u @[+%" PRId64 ",+%" PRId64 "]ns", e->host,
			 e->thread, e->name, e->size, e->nlink,
			 (int64_t)(e->start_ns - t0), (int64_t)(e->end_ns - t0));
	else
		snprintf(buf, len, "h%u t%u stat(%s) = %s fileid %" PRIu64
			 " size %" PRIu64 " nlink %u @[+%" PRId64 ",+%" PRId64
			 "]ns", e->host, e->thread, e->name,
			 dt_resname(e->result, rb, sizeof(rb)), e->fileid,
			 e->size, e->nlink, (int64_t)(e->start_ns - t0),
			 (int64_t)(e->end_ns - t0));
	return buf;
}

/* the host's change that a stat starting at t must show: the latest one
 * done before t; NULL when none is, or when one of the host's changes
 * overlaps the stat (either state is then right) */
static const struct dt_alias_seen *
change_before(const struct dt_alias_seen *s, size_t n,
	      const struct dt_alias_seen *st)
{
	const struct dt_alias_seen *last = NULL;

	for (size_t i = 0; i < n; i++) {
		const struct dt_alias_seen *c = &s[i];

		if (!c->change || c->host != st->host)
			continue;
		if (c->start_ns < st->end_ns && c->end_ns > st->start_ns)
			return NULL;
		if (c->end_ns <= st->start_ns &&
		    (!last || c->end_ns > last->end_ns))
			last = c;
	}
	return last;
}

/* the host's first successful stat: the fileid every other must show */
static const struct dt_alias_seen *
first_stat(const struct dt_alias_seen *s, size_t n, uint16_t host)
{
	const struct dt_alias_seen *first = NULL;

	for (size_t i = 0; i < n; i++)
		if (!s[i].change && !s[i].result && s[i].host == host &&
		    (!first || s[i].start_ns < first->start_ns))
			first = &s[i];
	return first;
}

int dt_oracle_alias(const struct dt_alias_seen *s, size_t n,
		    struct dt_verdict *v)
{
	struct dt_verdict scratch;
	const struct dt_alias_seen *bad = NULL;
	char b[DT_EVLEN], b2[DT_EVLEN];
	uint64_t t0 = UINT64_MAX;
	size_t judged = 0;

	if (!v)
		v = &scratch;
	*v = (struct dt_verdict){ .event = DT_NO_EVENT };
	for (size_t i = 0; i < n; i++)
		if (s[i].start_ns < t0)
			t0 = s[i].start_ns;
	for (size_t i = 0; i < n; i++) {
		const struct dt_alias_seen *st = &s[i], *c, *first;
		bool same_id, same_attrs;

		if (st->change || st->result)
			continue;
		first = first_stat(s, n, st->host);
		c = change_before(s, n, st);
		same_id = st->fileid == first->fileid && st->dev == first->dev;
		same_attrs = !c || (st->size == c->size && st->nlink == c->nlink);
		judged += c != NULL;
		if (same_id && same_attrs)
			continue;
		v->violations++;
		/* the earliest is the one to read first */
		if (bad && bad->start_ns <= st->start_ns)
			continue;
		bad = st;
		v->event = i;
		if (!same_id) {
			dt_say(v->what, "host %u: two fileids for the names "
			       "of one file (%s and %s; dev %" PRIu64 " and %"
			       PRIu64 ")", st->host, first->name, st->name,
			       first->dev, st->dev);
			dt_say(v->expected, "fileid %" PRIu64 " dev %" PRIu64
			       " as %s", first->fileid, first->dev,
			       dt_alias_desc(first, t0, b2, sizeof(b2)));
		} else {
			dt_say(v->what, "host %u: after its own change of the "
			       "file through %s, a stat through %s shows "
			       "the file as before", st->host, c->name,
			       st->name);
			dt_say(v->expected, "size %" PRIu64 " nlink %u, as "
			       "this host set them: %s", c->size, c->nlink,
			       dt_alias_desc(c, t0, b2, sizeof(b2)));
		}
		dt_say(v->observed, "%s", dt_alias_desc(st, t0, b, sizeof(b)));
	}
	if (!judged && !v->violations) {
		v->violations = 1;
		dt_say(v->what, "no stat of the file after an own change of "
		       "it by the same host");
		dt_say(v->expected, "such stats to judge");
		dt_say(v->observed, "none (%zu entries)", n);
	}
	return v->violations;
}
