/* SPDX-License-Identifier: GPL-2.0-or-later */
/* "host:port" and "[v6]:port" as the coordinator and its clients take them. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "coord/coord.h"

int dt_coord_split_addr(const char *spec, char *host, size_t hlen,
			 char *port, size_t plen)
{
	const char *colon;
	size_t n;

	if (spec[0] == '[') {
		const char *end = strchr(spec, ']');

		if (!end || end[1] != ':')
			return -EINVAL;
		n = (size_t)(end - spec - 1);
		colon = end + 1;
		spec++;
	} else {
		colon = strrchr(spec, ':');
		if (!colon)
			return -EINVAL;
		n = (size_t)(colon - spec);
	}
	if (!n || n >= hlen || !colon[1] || strlen(colon + 1) >= plen)
		return -EINVAL;
	memcpy(host, spec, n);
	host[n] = '\0';
	snprintf(port, plen, "%s", colon + 1);
	return 0;
}
