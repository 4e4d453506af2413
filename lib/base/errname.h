/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Private to libdentrace: symbolic errno names.  Evidence files and
 * verdicts are read by people and diffed across machines, where the text of
 * strerror() differs by libc and locale but "ESTALE" does not.
 */
#ifndef DT_ERRNAME_H
#define DT_ERRNAME_H

#include <errno.h>
#include <stddef.h>
#include <stdio.h>

/* Name of a positive errno, or NULL when it is not one we expect to see. */
static inline const char *dt_errname(int err)
{
	switch (err) {
	case EPERM:	return "EPERM";
	case ENOENT:	return "ENOENT";
	case ESRCH:	return "ESRCH";
	case EINTR:	return "EINTR";
	case EIO:	return "EIO";
	case ENXIO:	return "ENXIO";
	case E2BIG:	return "E2BIG";
	case EBADF:	return "EBADF";
	case EAGAIN:	return "EAGAIN";
	case ENOMEM:	return "ENOMEM";
	case EACCES:	return "EACCES";
	case EFAULT:	return "EFAULT";
	case EBUSY:	return "EBUSY";
	case EEXIST:	return "EEXIST";
	case EXDEV:	return "EXDEV";
	case ENODEV:	return "ENODEV";
	case ENOTDIR:	return "ENOTDIR";
	case EISDIR:	return "EISDIR";
	case EINVAL:	return "EINVAL";
	case ENFILE:	return "ENFILE";
	case EMFILE:	return "EMFILE";
	case ETXTBSY:	return "ETXTBSY";
	case EFBIG:	return "EFBIG";
	case ENOSPC:	return "ENOSPC";
	case ESPIPE:	return "ESPIPE";
	case EROFS:	return "EROFS";
	case EMLINK:	return "EMLINK";
	case EPIPE:	return "EPIPE";
	case ERANGE:	return "ERANGE";
	case EDEADLK:	return "EDEADLK";
	case ENAMETOOLONG: return "ENAMETOOLONG";
	case ENOLCK:	return "ENOLCK";
	case ENOSYS:	return "ENOSYS";
	case ENOTEMPTY:	return "ENOTEMPTY";
	case ELOOP:	return "ELOOP";
	case EOVERFLOW:	return "EOVERFLOW";
	case EBADMSG:	return "EBADMSG";
	case EPROTO:	return "EPROTO";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EADDRINUSE: return "EADDRINUSE";
	case ENETDOWN:	return "ENETDOWN";
	case ENETUNREACH: return "ENETUNREACH";
	case ECONNABORTED: return "ECONNABORTED";
	case ECONNRESET: return "ECONNRESET";
	case ENOTCONN:	return "ENOTCONN";
	case ETIMEDOUT:	return "ETIMEDOUT";
	case ECONNREFUSED: return "ECONNREFUSED";
	case EHOSTDOWN:	return "EHOSTDOWN";
	case EHOSTUNREACH: return "EHOSTUNREACH";
	case ESTALE:	return "ESTALE";
	case EDQUOT:	return "EDQUOT";
	case ECANCELED:	return "ECANCELED";
	case EREMOTEIO:	return "EREMOTEIO";
	default:	return NULL;
	}
}

/*
 * An op result as text: "0", "ENOENT" for -ENOENT, "-1234" for an errno we
 * have no name for, a plain count for positive results (READ bytes).
 */
static inline const char *dt_resname(int result, char *buf, size_t len)
{
	const char *s = result < 0 ? dt_errname(-result) : NULL;

	if (s)
		return s;
	snprintf(buf, len, "%d", result);
	return buf;
}

#endif /* DT_ERRNAME_H */
