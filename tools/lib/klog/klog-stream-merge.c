// SPDX-License-Identifier: GPL-2.0
/*
 * klog-stream-merge.c - the k-way merge of streams by time
 *
 * struct ks_merge is a binary min-heap of sources (one per CPU's stream),
 * each keyed by the timestamp of its next event, ties broken by the
 * lower source: the order klog -r prints the CPUs' records in. A source
 * is in the heap at most once; pos[] finds it, so that its key can be
 * changed or it can be removed in O(log n).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "klog-stream.h"

int ks_merge_init(struct ks_merge *m, int nsrc)
{
	int i;

	m->n = 0;
	m->heap = calloc(nsrc ? nsrc : 1, sizeof(*m->heap));
	m->pos = calloc(nsrc ? nsrc : 1, sizeof(*m->pos));
	m->key = calloc(nsrc ? nsrc : 1, sizeof(*m->key));
	if (!m->heap || !m->pos || !m->key) {
		ks_merge_free(m);
		return -1;
	}
	for (i = 0; i < nsrc; i++)
		m->pos[i] = -1;
	return 0;
}

void ks_merge_free(struct ks_merge *m)
{
	free(m->heap);
	free(m->pos);
	free(m->key);
	memset(m, 0, sizeof(*m));
}

static bool merge_less(const struct ks_merge *m, int a, int b)
{
	return m->key[a] < m->key[b] || (m->key[a] == m->key[b] && a < b);
}

static void merge_swap(struct ks_merge *m, int i, int j)
{
	int t = m->heap[i];

	m->heap[i] = m->heap[j];
	m->heap[j] = t;
	m->pos[m->heap[i]] = i;
	m->pos[m->heap[j]] = j;
}

static void merge_fix(struct ks_merge *m, int i)
{
	while (i > 0 && merge_less(m, m->heap[i], m->heap[(i - 1) / 2])) {
		merge_swap(m, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
	for (;;) {
		int l = 2 * i + 1, r = l + 1, min = i;

		if (l < m->n && merge_less(m, m->heap[l], m->heap[min]))
			min = l;
		if (r < m->n && merge_less(m, m->heap[r], m->heap[min]))
			min = r;
		if (min == i)
			return;
		merge_swap(m, i, min);
		i = min;
	}
}

void ks_merge_set(struct ks_merge *m, int src, __u64 ts)
{
	m->key[src] = ts;
	if (m->pos[src] < 0) {
		m->heap[m->n] = src;
		m->pos[src] = m->n++;
	}
	merge_fix(m, m->pos[src]);
}

void ks_merge_remove(struct ks_merge *m, int src)
{
	int i = m->pos[src];

	if (i < 0)
		return;
	merge_swap(m, i, --m->n);
	m->pos[src] = -1;
	if (i < m->n)
		merge_fix(m, i);
}

int ks_merge_top(const struct ks_merge *m, __u64 *ts)
{
	if (!m->n)
		return -1;
	if (ts)
		*ts = m->key[m->heap[0]];
	return m->heap[0];
}
