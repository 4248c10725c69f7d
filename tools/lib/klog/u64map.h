/* SPDX-License-Identifier: GPL-2.0 */
/*
 * u64map.h - a small hash map of fixed-size entries keyed by a u64
 *
 * Each entry is a struct whose first member is its __u64 key; key 0
 * marks an empty slot, so 0 cannot be stored (callers map it to a value
 * that never occurs). Open addressing with linear probing, a
 * power-of-two number of slots kept at most half full; entries are never
 * removed. Entries move when the map grows: a pointer returned by
 * u64map_find() or u64map_add() is valid until the next add.
 */
#ifndef _U64MAP_H
#define _U64MAP_H

#include <stddef.h>
#include <linux/types.h>

struct u64map {
	unsigned char	*v;		/* cap entries of esize bytes */
	size_t		esize;		/* set before the first add */
	size_t		cap, n;
};

#define U64MAP_INIT(type)	{ .esize = sizeof(type) }

/* The key of the entry in slot @i (0: empty). */
static inline __u64 u64map_key(const struct u64map *m, size_t i)
{
	__u64 k;

	__builtin_memcpy(&k, m->v + i * m->esize, sizeof(k));
	return k;
}

/* The entry in slot @i, for walking every slot from 0 to cap - 1. */
static inline void *u64map_slot(const struct u64map *m, size_t i)
{
	return m->v + i * m->esize;
}

void *u64map_find(const struct u64map *m, __u64 key);
void *u64map_add(struct u64map *m, const void *entry);
void u64map_free(struct u64map *m);

#endif /* _U64MAP_H */
