/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Binary form of a history, to ship it between hosts (coordinator posts)
 * and to store it.  Little endian, length-prefixed, no pointers:
 *
 *   "DTH1" u32:count  then per event:
 *   u16 host u16 thread u8 op|flags<<4 i32 result u64 start u64 end
 *   u64 fileid  u8 len name  u8 len name2  u32 nlist (0xffffffff = no list)
 *   per entry: u8 len name u64 fileid
 *
 * The event flags (DT_EVF_*, 4 bits) ride in the high nibble of the op
 * byte, which was always zero (DT_OP__COUNT <= 16): histories written
 * before flags existed decode unchanged, and every buffer still has exactly
 * one encoding.
 *
 * The decoder trusts nothing: every length is checked against the buffer
 * and the field sizes, so a damaged or hostile buffer gives -EBADMSG.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check/history.h"

_Static_assert(DT_OP__COUNT <= 16 && DT_EVF__ALL <= 0x0f,
	       "op and flags share one byte in the binary form");

struct wbuf {
	unsigned char *p;
	size_t n, cap;
	int err;
};

static void put(struct wbuf *w, const void *src, size_t len)
{
	if (w->err)
		return;
	if (w->n + len > w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 4096;

		while (cap < w->n + len)
			cap *= 2;
		unsigned char *np = realloc(w->p, cap);
		if (!np) {
			w->err = -ENOMEM;
			return;
		}
		w->p = np;
		w->cap = cap;
	}
	memcpy(w->p + w->n, src, len);
	w->n += len;
}

static void put_u8(struct wbuf *w, uint8_t v) { put(w, &v, 1); }

static void put_le(struct wbuf *w, uint64_t v, int bytes)
{
	unsigned char b[8];

	for (int i = 0; i < bytes; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	put(w, b, (size_t)bytes);
}

static void put_str(struct wbuf *w, const char *s, size_t cap)
{
	size_t len = strnlen(s, cap < 255 ? cap : 255);

	put_u8(w, (uint8_t)len);
	put(w, s, len);
}

int dt_history_encode(const struct dt_history *h, void **out, size_t *outlen)
{
	struct wbuf w = { 0 };

	put(&w, "DTH1", 4);
	put_le(&w, h->n, 4);
	for (size_t i = 0; i < h->n; i++) {
		const struct dt_event *e = &h->ev[i];

		put_le(&w, e->host, 2);
		put_le(&w, e->thread, 2);
		put_u8(&w, (uint8_t)((e->op & 0x0f) |
				     (e->flags & DT_EVF__ALL) << 4));
		put_le(&w, (uint32_t)e->result, 4);
		put_le(&w, e->start_ns, 8);
		put_le(&w, e->end_ns, 8);
		put_le(&w, e->fileid, 8);
		put_str(&w, e->name, sizeof(e->name));
		put_str(&w, e->name2, sizeof(e->name2));
		if (!e->list) {
			put_le(&w, 0xffffffffu, 4);
			continue;
		}
		put_le(&w, e->list->n, 4);
		for (size_t k = 0; k < e->list->n; k++) {
			put_str(&w, e->list->ent[k].name, 255);
			put_le(&w, e->list->ent[k].fileid, 8);
		}
	}
	if (w.err) {
		free(w.p);
		return w.err;
	}
	*out = w.p;
	*outlen = w.n;
	return 0;
}

struct rbuf {
	const unsigned char *p;
	size_t n, off;
	int err;
};

static uint64_t get_le(struct rbuf *r, int bytes)
{
	uint64_t v = 0;

	if (r->err || r->n - r->off < (size_t)bytes) {
		r->err = -EBADMSG;
		return 0;
	}
	for (int i = 0; i < bytes; i++)
		v |= (uint64_t)r->p[r->off + i] << (8 * i);
	r->off += (size_t)bytes;
	return v;
}

/* Copy a length-prefixed string into dst (size cap); returns dst. */
static char *get_str(struct rbuf *r, char *dst, size_t cap)
{
	size_t len = (size_t)get_le(r, 1);

	dst[0] = 0;
	if (r->err || len >= cap || r->n - r->off < len) {
		r->err = -EBADMSG;
		return dst;
	}
	memcpy(dst, r->p + r->off, len);
	dst[len] = 0;
	if (strlen(dst) != len)		/* embedded NUL */
		r->err = -EBADMSG;
	r->off += len;
	return dst;
}

int dt_history_decode(const void *buf, size_t len, struct dt_history *h)
{
	struct rbuf r = { .p = buf, .n = len };
	char name[256];

	if (len < 8 || memcmp(buf, "DTH1", 4))
		return -EBADMSG;
	r.off = 4;
	uint64_t count = get_le(&r, 4);
	/*
	 * every event takes at least 39 bytes (2+2+1+4+8+8+8, two empty
	 * names, the list count): reject absurd counts early.  (It said 43
	 * and refused histories of short names, e.g. four events on "s/f".)
	 */
	if (count > (len - 8) / 39)
		return -EBADMSG;
	for (uint64_t i = 0; i < count && !r.err; i++) {
		struct dt_event e;

		memset(&e, 0, sizeof(e));
		e.host = (uint16_t)get_le(&r, 2);
		e.thread = (uint16_t)get_le(&r, 2);
		uint8_t opbyte = (uint8_t)get_le(&r, 1);

		e.op = opbyte & 0x0f;
		e.flags = (uint8_t)(opbyte >> 4);
		e.result = (int32_t)(uint32_t)get_le(&r, 4);
		e.start_ns = get_le(&r, 8);
		e.end_ns = get_le(&r, 8);
		e.fileid = get_le(&r, 8);
		get_str(&r, e.name, sizeof(e.name));
		get_str(&r, e.name2, sizeof(e.name2));
		/* 0, -errno (MAX_ERRNO 4095) or a READ's byte count: a
		 * result below that is garbage, and negating INT32_MIN
		 * (dt_strerr, the oracles) would be undefined */
		if (e.op >= DT_OP__COUNT || e.result < -4095)
			r.err = -EBADMSG;
		uint64_t nlist = get_le(&r, 4);
		if (r.err)
			break;
		if (nlist != 0xffffffffu) {
			/* an entry takes at least 9 bytes */
			if (nlist > (r.n - r.off) / 9) {
				r.err = -EBADMSG;
				break;
			}
			e.list = calloc(1, sizeof(*e.list));
			if (!e.list) {
				r.err = -ENOMEM;
				break;
			}
			for (uint64_t k = 0; k < nlist && !r.err; k++) {
				get_str(&r, name, sizeof(name));
				uint64_t fid = get_le(&r, 8);
				if (!r.err && dt_dirlist_add(e.list, name, fid))
					r.err = -ENOMEM;
			}
		}
		/* dt_history_add takes the list even when it fails */
		if (r.err) {
			dt_dirlist_free(e.list);
			free(e.list);
			break;
		}
		if (dt_history_add(h, &e))
			r.err = -ENOMEM;
	}
	if (!r.err && r.off != r.n)
		r.err = -EBADMSG;
	return r.err;
}
