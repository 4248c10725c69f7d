// SPDX-License-Identifier: GPL-2.0
/*
 * u64map.c - a small hash map of fixed-size entries keyed by a u64
 *
 * See u64map.h.
 */
#include <stdlib.h>
#include <string.h>

#include "u64map.h"

#define U64MAP_MIN_CAP	1024

static size_t slot_of(__u64 key, size_t cap)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdULL;
	key ^= key >> 33;
	return key & (cap - 1);
}

/* The entry with @key, or NULL. */
void *u64map_find(const struct u64map *m, __u64 key)
{
	size_t i;
	__u64 k;

	if (!m->cap || !key)
		return NULL;
	for (i = slot_of(key, m->cap); (k = u64map_key(m, i));
	     i = (i + 1) & (m->cap - 1))
		if (k == key)
			return u64map_slot(m, i);
	return NULL;
}

static void *put(unsigned char *v, size_t cap, size_t esize,
		 const void *entry)
{
	__u64 key, k;
	size_t i;

	memcpy(&key, entry, sizeof(key));
	for (i = slot_of(key, cap);; i = (i + 1) & (cap - 1)) {
		memcpy(&k, v + i * esize, sizeof(k));
		if (!k)
			break;
	}
	return memcpy(v + i * esize, entry, esize);
}

/*
 * Add a copy of @entry, whose key is not 0 and not in @m yet. The new
 * entry, or NULL if out of memory (@m is unchanged).
 */
void *u64map_add(struct u64map *m, const void *entry)
{
	if (2 * (m->n + 1) > m->cap) {
		size_t cap = m->cap ? 2 * m->cap : U64MAP_MIN_CAP, i;
		unsigned char *v = calloc(cap, m->esize);

		if (!v)
			return NULL;
		for (i = 0; i < m->cap; i++)
			if (u64map_key(m, i))
				put(v, cap, m->esize, u64map_slot(m, i));
		free(m->v);
		m->v = v;
		m->cap = cap;
	}
	m->n++;
	return put(m->v, m->cap, m->esize, entry);
}

void u64map_free(struct u64map *m)
{
	free(m->v);
	m->v = NULL;
	m->cap = 0;
	m->n = 0;
}
