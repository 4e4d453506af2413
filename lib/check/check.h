/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Layer "check": judging what the system under test did.
 *
 * Offers histories (history.h: what each operation saw; text dump and a
 * binary form for shipping between hosts), the per-test oracles that
 * judge one POSIX directory invariant each (oracle.h, oracle_race.h,
 * oracle_coherence.h; oracle_alias.h: the names of one file on one
 * client), and the general history checker that judges a
 * whole history against one sequential directory, linearizable or stale
 * within a bound (histcheck.h).  Everything here is pure: it reads a
 * history and returns a verdict, so t/check/ feeds it bad histories.
 *
 * May call: base.  oracle_util.h holds helpers private to this layer.
 */
#ifndef DT_CHECK_H
#define DT_CHECK_H

#include "check/history.h"
#include "check/oracle.h"
#include "check/oracle_race.h"
#include "check/oracle_coherence.h"
#include "check/oracle_alias.h"
#include "check/histcheck.h"
#include "check/settle.h"

#endif /* DT_CHECK_H */
