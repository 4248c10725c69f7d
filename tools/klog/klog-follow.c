// SPDX-License-Identifier: GPL-2.0
/*
 * klog-follow.c - follow mode (-f): merge the readers' lines by timestamp,
 * and write them without ever waiting for their reader
 *
 * See "Follow mode" in the overview of klog.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* ---- Output: never waited for ----------------------------------------- */

int follow_out_open(struct klog *kl)
{
	const char *path = kl->o.follow_out;
	struct stat st;

	kl->fout = -1;
	kl->fout_flags = -1;
	if (path) {
		/*
		 * A terminal, FIFO or file of the user's: not through a link;
		 * a regular file emptied only once ra_out_claim() took it.
		 */
		kl->fout = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW |
				O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0600);
		if (kl->fout < 0) {
			ra_err("--follow-output %s: %s", path,
			       errno == ENXIO ? "a FIFO nobody reads (start its reader first)" :
			       errno == ELOOP ? "is a symbolic link (not followed)" :
			       strerror(errno));
		} else if (fstat(kl->fout, &st)) {
			ra_err("--follow-output %s: %s", path, strerror(errno));
			close(kl->fout);
			kl->fout = -1;
		} else if (S_ISREG(st.st_mode)) {
			char what[PATH_MAX + 20];

			snprintf(what, sizeof(what), "--follow-output %s", path);
			if (ra_out_claim(kl->fout, what, &st, 1)) {
				close(kl->fout);
				kl->fout = -1;
			}
		}
	} else if (!fstat(STDOUT_FILENO, &st) &&
		   (S_ISREG(st.st_mode) || S_ISBLK(st.st_mode))) {
		kl->fout = STDOUT_FILENO;	/* a write there never waits on a reader */
	} else {
		/* a description of our own: the COMMAND's stdout stays blocking */
		kl->fout = open("/proc/self/fd/1", O_WRONLY | O_NONBLOCK |
				O_NOCTTY | O_CLOEXEC);
		if (kl->fout < 0) {	/* a socket, or no /proc */
			kl->fout_flags = fcntl(STDOUT_FILENO, F_GETFL);
			if (kl->fout_flags < 0 ||
			    fcntl(STDOUT_FILENO, F_SETFL, kl->fout_flags | O_NONBLOCK)) {
				ra_err("stdout: %s", strerror(errno));
				return -1;
			}
			kl->fout = STDOUT_FILENO;
		}
	}
	kl->fout_color = color_on(kl->o.color, kl->fout);
	return kl->fout < 0 ? -1 : 0;
}

/*
 * A write failed. A closed pipe (klog -f | head) ends the collection
 * quietly, as it ends any filter: later lines are dropped and tick()
 * stops. Return: -1 (after a message) for any other error.
 */
static int follow_write_error(struct klog *kl)
{
	if (errno == EPIPE) {
		kl->stdout_closed = true;
		return 0;
	}
	ra_err("%s: write: %s", kl->o.follow_out ? kl->o.follow_out : "stdout",
	       strerror(errno));
	return -1;
}

/* Queue the line @text, or count it not shown when the queue is full. */
static int fout_queue(struct klog *kl, const char *text)
{
	struct ks_buf *b = &kl->fpend;
	size_t len = b->len;

	if (kl->stdout_closed)
		return 0;
	if (len - kl->fpend_off >= FOLLOW_PEND_MAX) {
		kl->fdropped++;
		return 0;
	}
	if (kl->fout_color ? color_line(b, text) : ks_buf_printf(b, "%s", text)) {
		ra_err("out of memory for follow output");
		return -1;
	}
	return 0;
}

/*
 * Write the queued lines the output takes now. Whole lines of at most
 * PIPE_BUF bytes at a time: a pipe takes them whole or not at all.
 * Return: the bytes written, or -1 after a message.
 */
static ssize_t fout_write(struct klog *kl)
{
	struct ks_buf *b = &kl->fpend;
	ssize_t done = 0;

	while (!kl->stdout_closed && kl->fpend_off < b->len) {
		const char *p = b->p + kl->fpend_off, *nl;
		size_t n = b->len - kl->fpend_off;
		ssize_t w;

		if (n > PIPE_BUF) {
			nl = memrchr(p, '\n', PIPE_BUF);
			if (!nl)
				nl = memchr(p, '\n', n);
			n = nl ? (size_t)(nl - p) + 1 : n;
		}
		w = write(kl->fout, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN)
			break;
		if (w < 0)
			return follow_write_error(kl);
		kl->fpend_off += w;
		done += w;
	}
	/* keep the rest at the start (none written: nothing to move) */
	if (kl->fpend_off && kl->fpend_off >= b->len / 2) {
		memmove(b->p, b->p + kl->fpend_off, b->len - kl->fpend_off);
		b->len -= kl->fpend_off;
		kl->fpend_off = 0;
	}
	return done;
}

int follow_out_end(struct klog *kl)
{
	struct ks_buf *b = &kl->fpend;
	__u64 last = ra_now_ns(), unshown = kl->fdropped;
	struct pollfd pfd = { .fd = kl->fout, .events = POLLOUT };
	ssize_t w = 0;
	size_t i;

	while (w >= 0 && !kl->stdout_closed && kl->fpend_off < b->len) {
		__u64 now;

		w = fout_write(kl);
		now = ra_now_ns();
		if (w)
			last = now;	/* the reader took some */
		if (now - last >= FOLLOW_DRAIN_NS)
			break;
		if (!w)
			poll(&pfd, 1, (FOLLOW_DRAIN_NS - (now - last)) / 1000000 + 1);
	}
	for (i = kl->fpend_off; i < b->len; i++)
		unshown += b->p[i] == '\n';
	if (unshown && !kl->stdout_closed)
		ra_err("%llu lines not shown: output too slow", (unsigned long long)unshown);
	if (kl->fout_flags >= 0)
		fcntl(STDOUT_FILENO, F_SETFL, kl->fout_flags);
	if (kl->fout > STDOUT_FILENO)
		close(kl->fout);
	kl->fout = -1;
	ks_buf_free(b);
	return w < 0 ? -1 : 0;
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
		if (fout_queue(kl, fl->text))
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
	return fout_write(kl) < 0 ? -1 : 0;
}
