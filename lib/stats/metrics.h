/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Metrics: JSON lines next to the TAP (the perf engine in core/perf.h
 * produces them, tools/dtcompare reads them).
 *
 * Where the lines go: the file named by $DT_METRICS (appended, one write()
 * per line, so several test processes can share one file); nowhere when
 * it is unset.  Each line is one JSON object with "kind" first:
 *   "perf"      one sweep point of a perf test: threads, ops, ops_per_s,
 *               per-window rates (win_ops_per_s: the raw samples a
 *               baseline keeps), the same per CPU second of the workers
 *               (ops_per_cpu_s, win_ops_per_cpu_s), per-window latency
 *               p10 / p50 / p90 (win_p10_ns, ...), latency percentiles
 *               of the point and its log-bucket histogram (lat_ns)
 *   "overhead"  the perf driver against a bare loop of the same calls
 * Every line also carries test, case, target (label), spec, host,
 * clients, seed, time, load1 (the machine's load average: context for a
 * noisy figure), and $DT_PERF_CONFIG / $DT_RUN_ID when set.
 */
#ifndef DENTRACE_METRICS_H
#define DENTRACE_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/base.h"
#include "stats/stats.h"

/* most windows (samples) one perf line carries: win_ops_per_s etc. */
#define DT_PERF_MAX_WIN		64

/* ---- a small JSON writer -------------------------------------------------- */

#define DT_JSON_DEPTH 16

struct dt_json {
	char *buf;
	size_t len, cap;
	bool oom;			/* an allocation failed: output invalid */
	int depth;
	bool first[DT_JSON_DEPTH];	/* no member written yet at depth */
};

void dt_json_init(struct dt_json *j);
void dt_json_free(struct dt_json *j);
/* key NULL: inside an array (or the top-level object) */
void dt_json_obj_begin(struct dt_json *j, const char *key);
void dt_json_obj_end(struct dt_json *j);
void dt_json_arr_begin(struct dt_json *j, const char *key);
void dt_json_arr_end(struct dt_json *j);
void dt_json_str(struct dt_json *j, const char *key, const char *s);
void dt_json_int(struct dt_json *j, const char *key, long long v);
void dt_json_u64(struct dt_json *j, const char *key, uint64_t v);
/* finite doubles with 9 significant digits; NaN and inf as null */
void dt_json_num(struct dt_json *j, const char *key, double v);
/* fixed point: decimals after the point (e.g. a Unix time in s) */
void dt_json_fixed(struct dt_json *j, const char *key, double v, int decimals);
void dt_json_bool(struct dt_json *j, const char *key, bool v);
/* a fragment of members ("\"a\":1,\"b\":2") inserted as they are */
void dt_json_raw_members(struct dt_json *j, const char *members);
/*
 * A histogram: {"n","mean","min","p50","p90","p99","p999","max" (ns),
 * "buckets":[[lo,count],...]} with only the non-empty buckets.
 */
void dt_json_hist(struct dt_json *j, const char *key, const struct dt_hist *h);

/*
 * Append j's text and a newline to $DT_METRICS in one write().
 * 0 (also when DT_METRICS is unset), or -errno.
 */
int dt_metrics_write(const struct dt_json *j);
/* Whether metrics go anywhere. */
bool dt_metrics_enabled(void);

#endif /* DENTRACE_METRICS_H */
