// SPDX-License-Identifier: GPL-2.0
/*
 * klog_printk() end to end: every case of the kernel's format table
 * (lib/klog_format_cases.h) is called through klog_printk() by the
 * test_klog_format module (its "emit" file), collected by the klog
 * collector through the relay handler, and printed by klog -r. Each
 * record's text must be exactly what the kernel's vsnprintf() made of the
 * same call (the module's "cases" file), byte for byte, with klog -r's
 * escapes; there must be exactly one record per case, recorded in binary
 * (KLOG_RELAY_ARGS), strings of 2,000 characters too. %pS and friends
 * of kernel and module symbols are resolved from the collection's
 * DIR/kallsyms (0600). KLOG names the collector (default: klog in PATH).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "klog-stream.h"
#include "klog_kfc.h"

#define KFC_DIR		"/sys/kernel/debug/test_klog_format"
#define KFC_MAX		1024	/* cases */
#define OUT		"/tmp/klog-printk-args"

struct kcase {
	uint32_t	line;
	int32_t		ret;
	char		*want;		/* the tail of klog -r's line */
	char		*fmt;
	bool		args;		/* expected in binary */
	int		seen, seen_args;
};

/*
 * What klog -r prints after "FUNC:LINE: " for a text record of @text
 * (@len bytes): the collector library's own line, for a record of no
 * known site ("site#0: " before the text).
 */
static char *want_tail(const char *text, size_t len, bool cut)
{
	struct ks_event ev = { .kind = KS_RECORD, .version = 2 };
	struct ks_buf b = { 0 };
	char *p, *r;

	ev.rec.kind = KLOG_RELAY_TEXT;
	ev.rec.len = len;
	ev.rec.flags = cut ? KLOG_RELAY_TRUNCATED : 0;
	ev.payload = (const unsigned char *)text;
	if (ks_format(&ev, &b) != 1)
		return NULL;
	p = strstr(b.p, " site#0: ");
	r = p ? strndup(p + 9, b.len - (p + 9 - b.p) - 1) : NULL;
	ks_buf_free(&b);
	return r;
}

static struct kcase *find(struct kcase *c, unsigned int n, unsigned long line)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (c[i].line == line)
			return &c[i];
	return NULL;
}

/* "... kfc_GROUP:LINE: TAIL": the line and where TAIL starts. */
static char *parse(char *l, unsigned long *line)
{
	char *p = strstr(l, " kfc_"), *e;

	if (!p)
		return NULL;
	p = strchr(p, ':');
	if (!p)
		return NULL;
	*line = strtoul(p + 1, &e, 10);
	if (e == p + 1 || e[0] != ':' || e[1] != ' ')
		return NULL;
	return e + 2;
}

TEST(every_case_through_klog_printk)
{
	const char *klog = getenv("KLOG") ? getenv("KLOG") : "klog";
	unsigned int n = 0, i, bad = 0, args = 0, want_args = 0, lines = 0;
	static struct kcase c[KFC_MAX];
	unsigned char *data, *p, *end;
	uint32_t magic, count;
	char cmd[1024], *l = NULL;
	size_t len, cap = 0;
	struct stat st;
	FILE *f;
	int ret;

	if (access(KFC_DIR "/emit", W_OK))
		SKIP(return, "test_klog_format is not loaded (" KFC_DIR ")");
	snprintf(cmd, sizeof(cmd), "command -v %s > /dev/null", klog);
	if (system(cmd))
		SKIP(return, "no collector %s", klog);

	/* the expected texts: what vsnprintf() made of each call */
	data = read_whole_file(KFC_DIR "/cases", &len);
	ASSERT_NE(NULL, data);
	ASSERT_GE(len, 8);
	memcpy(&magic, data, 4);
	memcpy(&count, data + 4, 4);
	ASSERT_EQ(KFC_MAGIC, magic);
	ASSERT_GE(count, 200);
	ASSERT_LE(count, KFC_MAX);
	p = data + 8;
	end = data + len;
	for (n = 0; n < count; n++) {
		struct kfc_case_hdr h;
		const unsigned char *blk;

		ASSERT_GE(end - p, (long)sizeof(h));
		memcpy(&h, p, sizeof(h));
		p += sizeof(h);
		ASSERT_GE(end - p, (long)h.fmt_len + h.blk_len + h.text_len);
		ASSERT_EQ(NULL, find(c, n, h.line)) TH_LOG("line %u twice", h.line);
		blk = p + h.fmt_len;
		c[n].line = h.line;
		c[n].ret = h.ret;
		c[n].fmt = strndup((const char *)p, h.fmt_len);
		c[n].want = want_tail((const char *)blk + h.blk_len,
				      h.text_len, h.ret > KS_TEXT_MAX - 1);
		ASSERT_NE(NULL, c[n].want);
		/* every site of the module has a plan: all in binary */
		c[n].args = true;
		want_args += c[n].args;
		p += (h.fmt_len + h.blk_len + h.text_len + 3) & ~3u;
	}

	/* every case through klog_printk(), collected */
	ret = system("rm -rf " OUT);
	ASSERT_EQ(0, ret);
	snprintf(cmd, sizeof(cmd), "%s -q -o " OUT " -- sh -c 'echo 1 > "
		 KFC_DIR "/emit' > " OUT ".log 2>&1", klog);
	ret = system(cmd);
	ASSERT_EQ(0, ret) TH_LOG("%s: exit %d", cmd, ret);
	ASSERT_EQ(0, lstat(OUT "/kallsyms", &st));
	EXPECT_EQ(0600, st.st_mode & 07777);
	EXPECT_TRUE(S_ISREG(st.st_mode));

	/* klog -r: one line per case, its text exactly */
	snprintf(cmd, sizeof(cmd), "%s -r " OUT, klog);
	f = popen(cmd, "r");
	ASSERT_NE(NULL, f);
	while (getline(&l, &cap, f) > 0) {
		unsigned long line;
		struct kcase *k;
		char *tail = parse(l, &line);

		if (!tail)
			continue;
		lines++;
		tail[strcspn(tail, "\n")] = '\0';
		k = find(c, n, line);
		if (!k) {
			bad++;
			TH_LOG("a record of no case: %s", l);
			continue;
		}
		k->seen++;
		if (strcmp(tail, k->want)) {
			bad++;
			TH_LOG("line %u \"%s\": klog -r \"%.200s\", vsnprintf() \"%.200s\"",
			       k->line, k->fmt, tail, k->want);
		}
	}
	EXPECT_EQ(0, pclose(f));

	/* the records' kinds, from --json */
	snprintf(cmd, sizeof(cmd), "%s -r " OUT " --json", klog);
	f = popen(cmd, "r");
	ASSERT_NE(NULL, f);
	while (getline(&l, &cap, f) > 0) {
		char *s = strstr(l, "\"func\":\"kfc_");
		char *q = strstr(l, "\"line\":");
		struct kcase *k;

		if (!s || !q)
			continue;
		k = find(c, n, strtoul(q + 7, NULL, 10));
		if (k && strstr(l, ",\"args\":true")) {
			k->seen_args++;
			args++;
		}
	}
	EXPECT_EQ(0, pclose(f));
	free(l);

	for (i = 0; i < n; i++) {
		if (c[i].seen != 1) {
			bad++;
			TH_LOG("line %u \"%s\": %d records", c[i].line, c[i].fmt,
			       c[i].seen);
		}
		if (c[i].seen_args != c[i].args) {
			bad++;
			TH_LOG("line %u \"%s\": %s, expected %s", c[i].line,
			       c[i].fmt, c[i].seen_args ? "binary" : "text",
			       c[i].args ? "binary" : "text");
		}
	}
	EXPECT_EQ(n, lines);
	EXPECT_EQ(want_args, args);
	EXPECT_GE(args, 200);
	EXPECT_EQ(0, bad) TH_LOG("%u problems in %u cases (%u records, %u in binary)",
				 bad, n, lines, args);
	for (i = 0; i < n; i++) {
		free(c[i].want);
		free(c[i].fmt);
	}
	free(data);
}

TEST_HARNESS_MAIN
