// SPDX-License-Identifier: GPL-2.0
/*
 * klog-follow.c - follow mode (-f): merge the readers' lines by timestamp
 *
 * See "Follow mode" in the overview of klog.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "klog-app.h"

/* ---- Follow mode ----------------------------------------------------- */

static int fq_push(struct fqueue *q, const struct fline *fl)
{
	if (q->head == q->len) {
		q->head = 0;
		q->len = 0;
	}
	if (q->len == q->cap) {
		size_t cap = q->cap ? 2 * q->cap : 256;
		struct fline *v;

		if (q->head) {		/* reuse the popped space first */
			memmove(q->v, q->v + q->head,
				(q->len - q->head) * sizeof(*v));
			q->len -= q->head;
			q->head = 0;
			return fq_push(q, fl);
		}
		v = realloc(q->v, cap * sizeof(*v));
		if (!v)
			return -1;
		q->v = v;
		q->cap = cap;
	}
	q->v[q->len++] = *fl;
	return 0;
}

void fq_free(struct fqueue *q)
{
	size_t i;

	for (i = q->head; i < q->len; i++)
		free(q->v[i].text);
	free(q->v);
	memset(q, 0, sizeof(*q));
}

/* Reader thread (and ks_finish() after the readers): queue a line. */
int follow_event(const struct ks_event *ev_in, void *arg)
{
	struct ks_event ev_named, *ev = &ev_named;
	struct kcpu *k = arg;
	struct fline fl;
	int ret;

	if (!k->follow || ev_in->kind == KS_SUBBUF)
		return 0;
	*ev = *ev_in;
	/* a failed re-read was reported; the record shows site#N */
	if (k->sites)
		sites_resolve(k->sites, ev);
	k->line.len = 0;
	if (ks_format(ev, &k->line) < 0)
		goto oom;
	fl.ts = ev->ts;
	fl.arrival = ra_now_ns();
	fl.text = strdup(k->line.p);
	if (!fl.text)
		goto oom;
	pthread_mutex_lock(&k->lock);
	ret = fq_push(&k->in, &fl);
	if (!ret && ev->ts > k->wm)
		k->wm = ev->ts;
	pthread_mutex_unlock(&k->lock);
	if (!ret)
		return 0;
	free(fl.text);
oom:
	ra_err("cpu%d: out of memory for follow output", k->ks.cpu);
	return -1;
}

/*
 * A write to stdout failed. A closed pipe (klog -f | head) ends the
 * collection quietly, as it ends any filter: later lines are dropped
 * and tick() stops. Return: -1 (after a message) for any other error.
 */
static int follow_write_error(struct klog *kl)
{
	if (errno == EPIPE) {
		kl->stdout_closed = true;
		return 0;
	}
	ra_err("stdout: write: %s", strerror(errno));
	return -1;
}

/*
 * Print the lines that are safe to print: the oldest line (by timestamp)
 * goes out when every CPU with nothing queued has already handed over a
 * later timestamp, or when it has waited FOLLOW_HOLD_NS and nothing
 * written before it came can still be on its way: a flush returned
 * after it came, and every reader has drained since (a reader that a
 * loaded machine holds up holds the lines too). @final prints
 * everything.
 */
int follow_merge(struct klog *kl, bool final)
{
	__u64 now = ra_now_ns(), idle_wm = UINT64_MAX, ts;
	__u64 drained = ra_drained_since(kl->ra);
	/* lines that came before this are complete on every CPU */
	__u64 complete = kl->flush_failed ? drained :
			 drained > kl->flushed ? kl->flushed : 0;
	int i, s;

	for (i = 0; i < kl->ra->ncpus; i++) {
		struct kcpu *k = &kl->k[i];
		size_t j;
		int err = 0;

		pthread_mutex_lock(&k->lock);
		for (j = k->in.head; j < k->in.len; j++) {
			err = fq_push(&k->out, &k->in.v[j]);
			if (err)
				break;
		}
		k->in.head = j;
		k->out_wm = k->wm;
		pthread_mutex_unlock(&k->lock);
		if (err) {
			ra_err("out of memory for follow output");
			return -1;
		}
		if (k->out.head < k->out.len)
			ks_merge_set(&kl->merge, i, k->out.v[k->out.head].ts);
		else if (k->out_wm < idle_wm)
			idle_wm = k->out_wm;
	}
	while ((s = ks_merge_top(&kl->merge, &ts)) >= 0) {
		struct kcpu *k = &kl->k[s];
		struct fline *fl = &k->out.v[k->out.head];

		if (!final && ts > idle_wm &&
		    (now - fl->arrival < FOLLOW_HOLD_NS || fl->arrival >= complete))
			break;
		if (!kl->stdout_closed && fputs(fl->text, stdout) == EOF &&
		    follow_write_error(kl))
			return -1;
		free(fl->text);
		if (++k->out.head < k->out.len) {
			ks_merge_set(&kl->merge, s, k->out.v[k->out.head].ts);
			continue;
		}
		k->out.head = 0;
		k->out.len = 0;
		ks_merge_remove(&kl->merge, s);
		if (k->out_wm < idle_wm)
			idle_wm = k->out_wm;
	}
	if (!kl->stdout_closed && fflush(stdout) && follow_write_error(kl))
		return -1;
	return 0;
}
