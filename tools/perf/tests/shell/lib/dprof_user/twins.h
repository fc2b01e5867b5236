/* SPDX-License-Identifier: GPL-2.0 */
/* perf dprof test program twins.c and its library twins-lib.c */
#ifndef DPROF_TEST_TWINS_H
#define DPROF_TEST_TWINS_H

struct worker;

void lib_work(struct worker *w, long n);

#endif
