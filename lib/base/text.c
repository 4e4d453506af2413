/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Message helpers: formatting into rotating buffers, errno names. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/base.h"
#include "base/errname.h"

/* Rotating thread-local buffers so several dt_fmt() fit in one call. */
const char *dt_fmt(const char *fmt, ...)
{
	static __thread char bufs[4][512];
	static __thread unsigned next;
	char *b = bufs[next++ % 4];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b, sizeof(bufs[0]), fmt, ap);
	va_end(ap);
	return b;
}

const char *dt_strerr(int negerr)
{
	int e = negerr < 0 ? -negerr : negerr;
	const char *name;

	if (e == 0)
		return "0";
	name = dt_errname(e);
	return name ? name : dt_fmt("errno %d (%s)", e, strerror(e));
}
