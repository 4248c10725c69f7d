/* SPDX-License-Identifier: GPL-2.0 */
/*
 * klog_kunit.h - the capturing handler of the klog KUnit modules
 * (klog_kunit.c, klog_sites_kunit.c): it keeps the records of the module
 * that includes it and ignores every other (there should be none while
 * the tests run).
 */
#ifndef _KLOG_KUNIT_H
#define _KLOG_KUNIT_H

#include <kunit/test.h>
#include <linux/klog.h>
#include <linux/string.h>

#define CAPTURE_MAX	8

struct captured {
	struct klog_record	rec;
	char			payload[KLOG_TEXT_MAX];
};

struct capture {
	struct klog_handler	handler;
	int			n;		/* records seen */
	struct captured		recs[CAPTURE_MAX];
	void			(*hook)(struct capture *c,
					const struct klog_record *rec);
	int			*order;		/* shared fan-out log */
	int			*order_n;
	int			id;
};

/* Whether @rec was made by a call site of the including module. */
static inline bool from_this_module(const struct klog_record *rec)
{
	return !strcmp(rec->site->modname, KBUILD_MODNAME);
}

static inline void capture_write(struct klog_handler *h,
				 const struct klog_record *rec)
{
	struct capture *c = container_of(h, struct capture, handler);
	struct captured *slot;

	if (!from_this_module(rec))
		return;
	if (c->order)
		c->order[(*c->order_n)++] = c->id;
	if (c->n < CAPTURE_MAX) {
		slot = &c->recs[c->n];
		slot->rec = *rec;
		/* an argument record is kept as its text (its kind stays) */
		if (rec->kind == KLOG_KIND_ARGS)
			slot->rec.len = max(klog_record_format(rec, slot->payload,
							       KLOG_TEXT_MAX), 0);
		else
			memcpy(slot->payload, rec->payload,
			       min_t(size_t, rec->len, KLOG_TEXT_MAX));
		slot->rec.payload = slot->payload;
	}
	c->n++;
	if (c->hook)
		c->hook(c, rec);
}

static inline void unregister_action(void *h)
{
	unregister_klog_handler(h);
}

/* Register @c for the rest of the test; unregistered when it ends. */
static inline void capture_start(struct kunit *test, struct capture *c)
{
	c->handler.name = KBUILD_MODNAME;
	c->handler.write = capture_write;
	/* ->trigger, if any, was set by the test. */
	KUNIT_ASSERT_EQ(test, register_klog_handler(&c->handler), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, unregister_action,
							&c->handler), 0);
}

static inline struct capture *capture_alloc(struct kunit *test)
{
	struct capture *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	return c;
}

#endif /* _KLOG_KUNIT_H */
