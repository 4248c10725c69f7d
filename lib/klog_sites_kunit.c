// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the klog call-site table and its queries: the sites of
 * this module enumerated with their module, file, line, function, format
 * and kind; a disabled site makes no record and evaluates no argument
 * while the others do; every selector and flag of the control grammar,
 * alone and combined; bad queries refused with nothing changed. The
 * handler API itself is tested by klog_kunit.c.
 *
 * Records from other klog call sites are ignored: the capturing handler
 * (klog_kunit.h) keeps only records whose call site is in this module.
 */
#include <kunit/test.h>
#include <linux/klog.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "klog_kunit.h"
#include "../kernel/klog_query.h"
#include "../kernel/klog_sites.h"

static int kt_evals;

static int kt_eval(void)
{
	return ++kt_evals;
}

static size_t kt_raw_len(void)
{
	kt_evals++;
	return sizeof(kt_evals);
}

/* Three sites in this order (their lines grow): alpha, beta, raw. */
static unsigned int kt_alpha_line, kt_beta_line, kt_raw_line;

static noinline void kt_site_alpha(void)
{
	kt_alpha_line = __LINE__; klog_printk("kt alpha %d\n", kt_eval());
}

static noinline void kt_site_beta(void)
{
	kt_beta_line = __LINE__; klog_printk("kt beta %d\n", kt_eval());
}

static noinline void kt_site_raw(void)
{
	kt_raw_line = __LINE__; klog_raw(&kt_evals, kt_raw_len());
}

/* A guarded block: its statements run only behind its own site's key. */
static noinline void kt_site_block(void)
{
	klog_raw_block(&v, sizeof(v), const int v = kt_eval());
}

struct kt_sites {
	const struct klog_site	*alpha, *beta, *raw;
};

/* The site a call of @fn uses, found through the record it makes. */
static const struct klog_site *kt_site_of(struct kunit *test, void (*fn)(void))
{
	struct capture *c = capture_alloc(test);
	const struct klog_site *site;

	c->handler.name = "klog_kunit_sites";
	c->handler.write = capture_write;
	KUNIT_ASSERT_EQ(test, register_klog_handler(&c->handler), 0);
	fn();
	KUNIT_ASSERT_EQ(test, unregister_klog_handler(&c->handler), 0);
	KUNIT_ASSERT_EQ(test, c->n, 1);
	site = c->recs[0].rec.site;
	KUNIT_ASSERT_NOT_NULL(test, site);
	return site;
}

static void kt_restore_sites(void *unused)
{
	klog_query("=p", KBUILD_MODNAME);
}

/* Enable all of this module's sites and find the three test sites. */
static void kt_sites_get(struct kunit *test, struct kt_sites *s)
{
	KUNIT_ASSERT_GE(test, klog_query("=p", KBUILD_MODNAME), 3);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kt_restore_sites,
							NULL), 0);
	s->alpha = kt_site_of(test, kt_site_alpha);
	s->beta = kt_site_of(test, kt_site_beta);
	s->raw = kt_site_of(test, kt_site_raw);
}

static bool kt_on(const struct klog_site *site)
{
	return site->flags & KLOG_SITE_ENABLED;
}

static void klog_sites_enumerated(struct kunit *test)
{
	const struct klog_site *sites[3];
	struct kt_sites s;
	int i, j;
	u32 id;

	kt_sites_get(test, &s);
	sites[0] = s.alpha;
	sites[1] = s.beta;
	sites[2] = s.raw;
	for (i = 0; i < 3; i++) {
		KUNIT_EXPECT_STREQ(test, sites[i]->modname, KBUILD_MODNAME);
		/* relative to the source tree, also in a make O= build */
		KUNIT_EXPECT_STREQ(test, sites[i]->file, "lib/" KBUILD_BASENAME ".c");
		KUNIT_EXPECT_NE(test, sites[i]->id, 0);
		KUNIT_EXPECT_TRUE(test, kt_on(sites[i]));
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_NE(test, sites[i]->id, sites[j]->id);
#ifdef MODULE
		/* In this module's table, where the loader found them. */
		KUNIT_EXPECT_GE(test, (uintptr_t)sites[i],
				(uintptr_t)THIS_MODULE->klog_sites);
		KUNIT_EXPECT_LT(test, (uintptr_t)sites[i],
				(uintptr_t)(THIS_MODULE->klog_sites +
					    THIS_MODULE->num_klog_sites));
		KUNIT_EXPECT_GE(test, sites[i]->id,
				THIS_MODULE->klog_sites[0].id);
		KUNIT_EXPECT_LT(test, sites[i]->id,
				THIS_MODULE->klog_sites[0].id +
				THIS_MODULE->num_klog_sites);
#endif
	}
	KUNIT_EXPECT_STREQ(test, s.alpha->func, "kt_site_alpha");
	KUNIT_EXPECT_EQ(test, s.alpha->line, kt_alpha_line);
	KUNIT_EXPECT_STREQ(test, s.alpha->fmt, "kt alpha %d\n");
	KUNIT_EXPECT_EQ(test, s.alpha->kind, KLOG_KIND_TEXT);
	KUNIT_EXPECT_STREQ(test, s.beta->func, "kt_site_beta");
	KUNIT_EXPECT_EQ(test, s.beta->line, kt_beta_line);
	KUNIT_EXPECT_STREQ(test, s.beta->fmt, "kt beta %d\n");
	KUNIT_EXPECT_STREQ(test, s.raw->func, "kt_site_raw");
	KUNIT_EXPECT_EQ(test, s.raw->line, kt_raw_line);
	KUNIT_EXPECT_NULL(test, s.raw->fmt);
	KUNIT_EXPECT_EQ(test, s.raw->kind, KLOG_KIND_RAW);

	/* Ids are stable: a flag change and another record keep them. */
	id = s.alpha->id;
	KUNIT_EXPECT_EQ(test, klog_query("func kt_site_alpha -p", NULL), 1);
	KUNIT_EXPECT_EQ(test, klog_query("func kt_site_alpha +p", NULL), 1);
	KUNIT_EXPECT_PTR_EQ(test, kt_site_of(test, kt_site_alpha), s.alpha);
	KUNIT_EXPECT_EQ(test, s.alpha->id, id);
}

static void klog_site_disabled(struct kunit *test)
{
	struct capture *c = capture_alloc(test);
	unsigned long alpha0, beta0;
	struct kt_sites s;

	kt_sites_get(test, &s);
	alpha0 = klog_site_records(s.alpha);
	beta0 = klog_site_records(s.beta);
	capture_start(test, c);
	KUNIT_ASSERT_EQ(test, klog_query("func kt_site_alpha -p",
					 KBUILD_MODNAME), 1);
	KUNIT_EXPECT_FALSE(test, kt_on(s.alpha));
	KUNIT_EXPECT_FALSE(test, static_key_enabled(&s.alpha->key));
	KUNIT_EXPECT_TRUE(test, static_key_enabled(&s.beta->key));
	KUNIT_EXPECT_TRUE(test, klog_enabled());

	kt_evals = 0;
	kt_site_alpha();
	kt_site_beta();
	kt_site_alpha();
	/* Only beta's argument was evaluated, only beta made a record. */
	KUNIT_EXPECT_EQ(test, kt_evals, 1);
	KUNIT_ASSERT_EQ(test, c->n, 1);
	KUNIT_EXPECT_PTR_EQ(test, c->recs[0].rec.site, s.beta);
	KUNIT_EXPECT_MEMEQ(test, c->recs[0].payload, "kt beta 1\n", 10);
	KUNIT_EXPECT_EQ(test, klog_site_records(s.alpha), alpha0);
	KUNIT_EXPECT_EQ(test, klog_site_records(s.beta), beta0 + 1);

	KUNIT_ASSERT_EQ(test, klog_query("func kt_site_alpha +p",
					 KBUILD_MODNAME), 1);
	KUNIT_EXPECT_TRUE(test, static_key_enabled(&s.alpha->key));
	kt_site_alpha();
	kt_site_raw();
	KUNIT_EXPECT_EQ(test, kt_evals, 3);
	KUNIT_EXPECT_EQ(test, c->n, 3);
	KUNIT_EXPECT_EQ(test, klog_site_records(s.alpha), alpha0 + 1);

	/*
	 * No handler: the core's keys are off, and with them every call; the
	 * sites' own keys say only that they are enabled, and are not
	 * touched by (un)registering.
	 */
	KUNIT_ASSERT_EQ(test, unregister_klog_handler(&c->handler), 0);
	KUNIT_EXPECT_FALSE(test, klog_enabled());
	KUNIT_EXPECT_TRUE(test, static_key_enabled(&s.alpha->key));
	KUNIT_EXPECT_TRUE(test, static_key_enabled(&s.beta->key));
	KUNIT_EXPECT_TRUE(test, kt_on(s.alpha));
	kt_site_alpha();
	KUNIT_EXPECT_EQ(test, kt_evals, 3);
	KUNIT_EXPECT_EQ(test, klog_site_records(s.alpha), alpha0 + 1);
	KUNIT_ASSERT_EQ(test, register_klog_handler(&c->handler), 0);
	KUNIT_EXPECT_TRUE(test, klog_enabled());
	kt_site_alpha();
	KUNIT_EXPECT_EQ(test, kt_evals, 4);
	KUNIT_EXPECT_EQ(test, klog_site_records(s.alpha), alpha0 + 2);
}

/*
 * klog_raw_block(): with its site turned off through a query, its
 * statements do not run and it makes no record, while a handler is
 * registered (klog_enabled(), which knows no sites, stays true).
 */
static void klog_raw_block_per_site(struct kunit *test)
{
	struct capture *c = capture_alloc(test);
	struct kt_sites s;
	int v;

	kt_sites_get(test, &s);
	capture_start(test, c);
	kt_evals = 0;
	kt_site_block();
	KUNIT_EXPECT_EQ(test, kt_evals, 1);
	KUNIT_ASSERT_EQ(test, c->n, 1);
	KUNIT_EXPECT_EQ(test, c->recs[0].rec.kind, KLOG_KIND_RAW);
	KUNIT_EXPECT_EQ(test, c->recs[0].rec.len, sizeof(int));
	memcpy(&v, c->recs[0].payload, sizeof(v));
	KUNIT_EXPECT_EQ(test, v, 1);

	KUNIT_ASSERT_EQ(test, klog_query("func kt_site_block -p",
					 KBUILD_MODNAME), 1);
	KUNIT_EXPECT_TRUE(test, klog_enabled());
	kt_site_block();
	KUNIT_EXPECT_EQ(test, kt_evals, 1);
	KUNIT_EXPECT_EQ(test, c->n, 1);
}

/* Expected state of alpha, beta, raw after "=p" then a query: a bitmask. */
#define KT_A	1
#define KT_B	2
#define KT_R	4

static int kt_state(const struct kt_sites *s)
{
	return (kt_on(s->alpha) ? KT_A : 0) | (kt_on(s->beta) ? KT_B : 0) |
	       (kt_on(s->raw) ? KT_R : 0);
}

static __printf(5, 6)
void kt_expect_query(struct kunit *test, const struct kt_sites *s,
		     const char *scope, int off, const char *fmt, ...)
{
	va_list args;
	char *q;

	va_start(args, fmt);
	q = kvasprintf(GFP_KERNEL, fmt, args);
	va_end(args);
	KUNIT_ASSERT_NOT_NULL(test, q);
	KUNIT_ASSERT_GE(test, klog_query("=p", KBUILD_MODNAME), 3);
	KUNIT_EXPECT_GE_MSG(test, klog_query(q, scope), 0, "query: %s", q);
	KUNIT_EXPECT_EQ_MSG(test, kt_state(s), (KT_A | KT_B | KT_R) & ~off,
			    "query: %s", q);
	kfree(q);
}

static void klog_query_selectors(struct kunit *test)
{
	const char *m = KBUILD_MODNAME;
	struct kt_sites s;

	kt_sites_get(test, &s);
	/* Each selector alone (scoped or with module), then combined. */
	kt_expect_query(test, &s, NULL, KT_A,
			"module %s func kt_site_alpha -p", m);
	kt_expect_query(test, &s, NULL, 0,
			"module %sx func kt_site_alpha -p", m);
	kt_expect_query(test, &s, NULL, KT_A | KT_B | KT_R, "module %s -p", m);
	kt_expect_query(test, &s, NULL, KT_A | KT_B | KT_R,
			"module klog_sites_k?nit* -p");
	kt_expect_query(test, &s, m, KT_A | KT_B | KT_R,
			"file lib/" KBUILD_BASENAME ".c -p");
	kt_expect_query(test, &s, m, KT_A | KT_B | KT_R, "file lib/* -p");
	kt_expect_query(test, &s, m, KT_A | KT_B | KT_R,
			"file klog_sites_kunit.c -p");
	kt_expect_query(test, &s, m, KT_A | KT_B | KT_R, "file *kunit.? -p");
	kt_expect_query(test, &s, m, 0, "file klog.c -p");
	kt_expect_query(test, &s, m, KT_B, "func kt_site_beta -p");
	kt_expect_query(test, &s, m, KT_A, "func kt_site_?????  -p");
	kt_expect_query(test, &s, m, KT_B, "func kt_site_?eta -p");
	kt_expect_query(test, &s, m, KT_A | KT_B | KT_R, "func kt_site_* -p");
	kt_expect_query(test, &s, m, KT_A, "line %u -p", kt_alpha_line);
	kt_expect_query(test, &s, m, KT_A | KT_B, "line %u-%u -p",
			kt_alpha_line, kt_beta_line);
	kt_expect_query(test, &s, m, KT_B | KT_R, "line %u- -p",
			kt_beta_line);
	kt_expect_query(test, &s, m, KT_A | KT_B, "line -%u -p",
			kt_beta_line);
	kt_expect_query(test, &s, m, KT_A, "format \"kt alpha\" -p");
	kt_expect_query(test, &s, m, KT_A | KT_B, "format kt -p");
	kt_expect_query(test, &s, m, KT_B, "format \"kt\\040beta %%d\\n\" -p");
	kt_expect_query(test, &s, m, KT_B, "format \"beta\" line %u-%u -p",
			kt_alpha_line, kt_raw_line);
	kt_expect_query(test, &s, NULL, KT_R,
			"module %s file klog_sites_kunit.c func kt_site_* line %u- -p",
			m, kt_raw_line);
	/* Flags: =_ and -p turn off, =p and +p on, +_ changes nothing. */
	kt_expect_query(test, &s, m, KT_A | KT_B | KT_R, "=_");
	kt_expect_query(test, &s, m, 0, "=p");
	kt_expect_query(test, &s, m, 0, "+_");
	kt_expect_query(test, &s, m, KT_B | KT_R,
			"=_; func kt_site_alpha +p;func kt_site_beta =p\n func kt_site_beta -p");
	/* Several queries, blank lines, comments, quoted keywords' values. */
	kt_expect_query(test, &s, m, KT_A | KT_R,
			"# off:\n\nfunc \"kt_site_alpha\" -p # alpha\n;;func kt_site_raw -p\n");
	/* Ids: one site, a range, open ranges. */
	kt_expect_query(test, &s, m, KT_B, "id %u -p", s.beta->id);
	kt_expect_query(test, &s, NULL, KT_R, "id %u-%u -p", s.raw->id,
			s.raw->id);
	kt_expect_query(test, &s, m, KT_A | KT_B | KT_R, "id %u- -p",
			min3(s.alpha->id, s.beta->id, s.raw->id));
	kt_expect_query(test, &s, m, KT_A | KT_B | KT_R, "id -%u -p",
			max3(s.alpha->id, s.beta->id, s.raw->id));
	kt_expect_query(test, &s, m, KT_A, "id %u func kt_site_alpha -p",
			s.alpha->id);
	kt_expect_query(test, &s, m, 0, "id %u func kt_site_beta -p",
			s.alpha->id);
	/* A value of any length: leading zeros, the largest id. */
	kt_expect_query(test, &s, m, KT_A, "line 00000000000000000%u -p",
			kt_alpha_line);
	kt_expect_query(test, &s, m, KT_B,
			"id +0000000%u-+4294967295 func kt_site_beta -p",
			s.beta->id);
	/*
	 * The kernel's library steps, which the collector's build of
	 * kernel/klog_query.h takes from tools/lib/klog/klog_compat.h: a
	 * '+' before a number (kstrtouint()), only one trailing '*'
	 * skipped past the end of the name (match_wildcard()), 0xa0 as a
	 * blank (isspace()), an octal escape that stops once its value
	 * reaches 32 (string_unescape()).
	 */
	kt_expect_query(test, &s, m, KT_A, "line +%u -p", kt_alpha_line);
	kt_expect_query(test, &s, m, KT_A, "line %u-+%u -p", kt_alpha_line,
			kt_alpha_line);
	kt_expect_query(test, &s, m, KT_A, "func kt_site_alpha* -p");
	kt_expect_query(test, &s, m, 0, "func kt_site_alpha** -p");
	kt_expect_query(test, &s, m, KT_A, "func\xa0kt_site_alpha -p");
	kt_expect_query(test, &s, m, KT_A, "format \"kt \\141lpha\" -p");
	kt_expect_query(test, &s, m, 0, "format \"\\541lpha\" -p");
	/* A query that matches nothing is no error. */
	KUNIT_EXPECT_EQ(test, klog_query("func no_such_function -p", m), 0);
	/* Scope: another module's name selects none of these sites. */
	kt_expect_query(test, &s, "klog_kunit_other", 0, "-p");
}

static void klog_query_errors(struct kunit *test)
{
	static const char *const bad[] = {
		"modules klog_kunit +p",		/* unknown keyword */
		"func kt_site_alpha line 9-3 +p",	/* bad range */
		"line x +p",
		"line - +p",
		"line 1-2-3 +p",
		"line 99999999999 +p",
		"format \"kt alpha +p",			/* unterminated quote */
		"module \"\" +p",			/* empty value */
		"func \"\" +p",
		"func kt_site_alpha",			/* missing flags */
		"func kt_site_alpha p",
		"func kt_site_alpha +",
		"func kt_site_alpha +x",
		"func +p",				/* keyword, no value */
		"func a func b +p",			/* twice */
		"format \"a\"b +p",
		"func a\"b +p",
		"func kt_site_alpha +p; func kt_site_beta -p; modules x +p",
		"func kt_site_alpha +p\nfunc kt_site_beta -p\n\"unterminated",
		"module a file b func c line 1 format d id 1 module e +p",
		"id x +p",				/* bad id range */
		"id 9-3 +p",
		"id 4294967296 +p",
		"id 1 id 2 +p",
		"id \"1\n\" +p",			/* a newline in a number */
		"line \"1-2\n\" +p",
	};
	struct kt_sites s;
	char *garbage;
	u32 x = 12345;
	int i;

	kt_sites_get(test, &s);
	KUNIT_ASSERT_EQ(test, klog_query("func kt_site_alpha -p",
					 KBUILD_MODNAME), 1);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		KUNIT_EXPECT_EQ_MSG(test, klog_query(bad[i], NULL), -EINVAL,
				    "query: %s", bad[i]);
		KUNIT_EXPECT_EQ_MSG(test, kt_state(&s), KT_B | KT_R,
				    "query: %s", bad[i]);
	}
	/* 4 KiB of garbage: bytes 1..255 from a fixed generator. */
	garbage = kunit_kzalloc(test, 4097, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, garbage);
	for (i = 0; i < 4096; i++) {
		x = x * 1103515245 + 12345;
		garbage[i] = 1 + (x >> 16) % 255;
	}
	KUNIT_EXPECT_EQ(test, klog_query(garbage, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, kt_state(&s), KT_B | KT_R);
	KUNIT_EXPECT_EQ(test, klog_query(NULL, NULL), -EINVAL);
}

/* Split and parse the first query of @text (a control query). */
static int kt_parse(char *text, struct klog_query *q, struct klog_query_err *e)
{
	char *words[KLOG_QUERY_WORDS];
	int n, ret;

	ret = klog_query_split(&text, words, KLOG_QUERY_WORDS, &n, NULL, e);
	if (ret <= 0)
		return ret ? ret : -ENOENT;
	return klog_query_parse(q, words, n, true, e);
}

/*
 * The parser's messages, as the control file logs them after "query N: "
 * and the collector prints them (both take them from klog_query.h):
 * klog.rst quotes the first three.
 */
static void klog_query_messages(struct kunit *test)
{
	static const struct {
		const char	*query;
		const char	*msg;
	} cases[] = {
		{ "modules x +p",
		  "unknown keyword \"modules\" (module, file, func, line, format, id)" },
		{ "line 9-3 +p", "bad line range \"9-3\" (N, N-M, N- or -M, N <= M)" },
		{ "format \"tick %u", "unterminated quote: \"tick %u" },
		{ "id x +p", "bad id range \"x\" (N, N-M, N- or -M, N <= M)" },
		{ "func a", "no flags at the end (+p, -p, =p or =_), found \"a\"" },
		{ "func a +", "no flag after '+'" },
		{ "func a +x", "unknown flag \"x\" in \"+x\"" },
		{ "func +p", "keyword \"func\" has no value" },
		{ "func a func b +p", "keyword \"func\" given twice" },
		{ "func \"\" +p", "empty value for \"func\"" },
		/* the word not yet cut: the text from its start is shown */
		{ "func a\"b +p", "quote inside a word: a\"b +p" },
		{ "func \"a\"b +p", "text right after the closing quote of \"a\"" },
		{ "a b c d e f g h i j k l m n", "more than 13 words" },
		/* words shown as %pE shows them, at most 40 bytes */
		{ "\"\x01\t\x1b\\\xff\x80\" +p",
		  "keyword \"\\001\\t\\e\\\xff\\200\" has no value" },
		{ "aaaaaaaaaabbbbbbbbbbccccccccccddddddddddeeeeeeeeee +p",
		  "keyword \"aaaaaaaaaabbbbbbbbbbccccccccccdddddddddd\" has no value" },
	};
	struct klog_query_err *e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);
	struct klog_query q;
	char *text;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, e);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		text = kunit_kstrdup(test, cases[i].query, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, text);
		KUNIT_EXPECT_EQ_MSG(test, kt_parse(text, &q, e), -EINVAL,
				    "query: %s", cases[i].query);
		KUNIT_EXPECT_STREQ_MSG(test, e->msg, cases[i].msg,
				       "query: %s", cases[i].query);
	}
}

/*
 * Words are separated by any isspace() (\v, \f and 0xa0 too), as they
 * end at one: no empty word between two of them, the same query parsed.
 */
static void klog_query_whitespace(struct kunit *test)
{
	struct klog_query_err *e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);
	char text[] = "\v func\f\fkt_site_alpha \xa0\v line  7-9\r +p\f";
	struct klog_query q;

	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_ASSERT_EQ_MSG(test, kt_parse(text, &q, e), 0, "%s", e->msg);
	KUNIT_EXPECT_STREQ(test, q.func, "kt_site_alpha");
	KUNIT_EXPECT_EQ(test, q.first, 7);
	KUNIT_EXPECT_EQ(test, q.last, 9);
	KUNIT_EXPECT_EQ(test, q.op, '+');
	KUNIT_EXPECT_EQ(test, q.flags, KLOG_QUERY_P);
}

/*
 * Site ids never wrap: klog_ids_alloc() on a counter injected near
 * U32_MAX hands out the last ids, then refuses and takes nothing.
 */
static void klog_ids_no_wrap(struct kunit *test)
{
	u64 next = (u64)U32_MAX - 2;
	u32 first = 0;

	KUNIT_EXPECT_EQ(test, klog_ids_alloc(&next, 2, &first), 0);
	KUNIT_EXPECT_EQ(test, first, U32_MAX - 2);
	KUNIT_EXPECT_EQ(test, next, (u64)U32_MAX);
	first = 7;
	KUNIT_EXPECT_EQ(test, klog_ids_alloc(&next, 2, &first), -EOVERFLOW);
	KUNIT_EXPECT_EQ(test, first, 7);
	KUNIT_EXPECT_EQ(test, next, (u64)U32_MAX);
	KUNIT_EXPECT_EQ(test, klog_ids_alloc(&next, 1, &first), 0);
	KUNIT_EXPECT_EQ(test, first, U32_MAX);
	KUNIT_EXPECT_EQ(test, klog_ids_alloc(&next, 1, &first), -EOVERFLOW);
	KUNIT_EXPECT_EQ(test, klog_ids_alloc(&next, 0, &first), -EOVERFLOW);
	KUNIT_EXPECT_EQ(test, next, (u64)U32_MAX + 1);
	/* From the start: a whole table of U32_MAX ids fits, one more not. */
	next = 1;
	KUNIT_EXPECT_EQ(test, klog_ids_alloc(&next, U32_MAX, &first), 0);
	KUNIT_EXPECT_EQ(test, first, 1);
	next = 2;
	KUNIT_EXPECT_EQ(test, klog_ids_alloc(&next, U32_MAX, &first),
			-EOVERFLOW);
	next = 0;	/* not a counter: 0 is no id */
	KUNIT_EXPECT_EQ(test, klog_ids_alloc(&next, 1, &first), -EOVERFLOW);
}

/*
 * A module's table retired (its module goes): every key off and every
 * record counter taken away before the counters are freed, so that a
 * call still passing its key counts into no freed memory; the sites are
 * then named by id from the kept descriptions, without a lock
 * (klog_site_func(), klog_site_fmt()).
 */
static void klog_table_retired(struct kunit *test)
{
	static struct klog_site sites[2] = {
		KLOG_SITE("kt retire %d\n", KLOG_KIND_TEXT),
		KLOG_SITE("kt retire %s\n", KLOG_KIND_TEXT),
	};
	struct capture *c = capture_alloc(test);
	struct klog_table *t;
	const char *func = NULL;
	unsigned int line = 0;

	t = kzalloc(sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	c->handler.name = "klog_kunit_retire";
	c->handler.write = capture_write;
	KUNIT_ASSERT_EQ(test, register_klog_handler(&c->handler), 0);
	KUNIT_ASSERT_EQ(test, klog_kunit_table_add(t, sites, 2), 0);
	KUNIT_EXPECT_TRUE(test, static_key_enabled(&sites[0].key));
	KUNIT_EXPECT_TRUE(test, !!READ_ONCE(sites[0].records));

	/* retired: keys off, counts gone, freed after a grace period */
	klog_kunit_table_retire(t);
	KUNIT_EXPECT_FALSE(test, static_key_enabled(&sites[0].key));
	KUNIT_EXPECT_FALSE(test, static_key_enabled(&sites[1].key));
	KUNIT_EXPECT_FALSE(test, !!READ_ONCE(sites[0].records));

	/* A straggler that passed the key: a record, counted nowhere. */
	__klog_raw(&sites[0], &line, sizeof(line));
	KUNIT_EXPECT_EQ(test, unregister_klog_handler(&c->handler), 0);
	KUNIT_EXPECT_EQ(test, c->n, 1);
	KUNIT_EXPECT_EQ(test, klog_site_records(&sites[0]), 0);

	rcu_read_lock();
	KUNIT_EXPECT_TRUE(test, klog_site_func(sites[0].id, &func, &line));
	KUNIT_EXPECT_STREQ(test, func, "klog_table_retired");
	KUNIT_EXPECT_EQ(test, line, sites[0].line);
	KUNIT_EXPECT_STREQ(test, klog_site_fmt(sites[1].id),
			   "kt retire %s\n");
	rcu_read_unlock();
	klog_kunit_table_remove(t);
	rcu_read_lock();
	KUNIT_EXPECT_FALSE(test, klog_site_func(sites[0].id, &func, &line));
	rcu_read_unlock();
}

/*
 * A read(2) of the control file that stopped at a line goes on at the same
 * site after a table before it left the walk (its module unloaded): the
 * position is the site's id, not a line number, or lines would be skipped.
 */
static void klog_iter_resumes_at_site(struct kunit *test)
{
	static struct klog_site a[3] = {
		KLOG_SITE(NULL, KLOG_KIND_RAW), KLOG_SITE(NULL, KLOG_KIND_RAW),
		KLOG_SITE(NULL, KLOG_KIND_RAW),
	};
	static struct klog_site b[2] = {
		KLOG_SITE(NULL, KLOG_KIND_RAW), KLOG_SITE(NULL, KLOG_KIND_RAW),
	};
	struct klog_iter it = { .live_only = true };
	struct seq_file m = { .private = &it };
	struct klog_table *ta, *tb;
	loff_t pos = 0;
	void *v;

	/* Freed by the table's removal, after a grace period. */
	ta = kzalloc(sizeof(*ta), GFP_KERNEL);
	tb = kzalloc(sizeof(*tb), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ta);
	KUNIT_ASSERT_NOT_NULL(test, tb);
	KUNIT_ASSERT_EQ(test, klog_kunit_table_add(ta, a, ARRAY_SIZE(a)), 0);
	KUNIT_ASSERT_EQ(test, klog_kunit_table_add(tb, b, ARRAY_SIZE(b)), 0);
	/* Where a read that stopped before b[0]'s line left the position. */
	v = klog_iter_start(&m, &pos);
	while (v && (v == SEQ_START_TOKEN || it.t != tb))
		v = klog_iter_next(&m, v, &pos);
	klog_iter_stop(&m, v);
	KUNIT_EXPECT_PTR_EQ(test, v, (void *)&it);
	KUNIT_EXPECT_EQ(test, it.i, 0);
	klog_kunit_table_retire(ta);
	v = klog_iter_start(&m, &pos);
	KUNIT_EXPECT_PTR_EQ(test, v, (void *)&it);
	KUNIT_EXPECT_PTR_EQ(test, it.t, tb);
	KUNIT_EXPECT_EQ(test, it.i, 0);
	klog_iter_stop(&m, v);
	klog_kunit_table_retire(tb);
	klog_kunit_table_remove(ta);
	klog_kunit_table_remove(tb);
}

static struct kunit_case klog_sites_test_cases[] = {
	KUNIT_CASE(klog_sites_enumerated),
	KUNIT_CASE(klog_site_disabled),
	KUNIT_CASE(klog_raw_block_per_site),
	KUNIT_CASE(klog_query_selectors),
	KUNIT_CASE(klog_query_errors),
	KUNIT_CASE(klog_query_messages),
	KUNIT_CASE(klog_query_whitespace),
	KUNIT_CASE(klog_ids_no_wrap),
	KUNIT_CASE(klog_table_retired),
	KUNIT_CASE(klog_iter_resumes_at_site),
	{}
};

static struct kunit_suite klog_sites_test_suite = {
	.name = "klog_sites",
	.test_cases = klog_sites_test_cases,
};

kunit_test_suite(klog_sites_test_suite);

MODULE_DESCRIPTION("KUnit tests for the klog call-site table and control");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
