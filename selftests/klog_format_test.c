// SPDX-License-Identifier: GPL-2.0
/*
 * klog's binary arguments read in user space: for every case of the
 * kernel's table (lib/klog_format_cases.h, handed out by the
 * test_klog_format module), the collector library's formatter
 * (tools/lib/klog/klog-format.c), given the block the kernel recorded
 * and the kernel's symbols from /proc/kallsyms, must make exactly the
 * text the kernel's vsnprintf() made of the same call: same length, same
 * bytes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "klog-format.h"
#include "klog_kfc.h"

#define KFC_FILE	"/sys/kernel/debug/test_klog_format/cases"
#define KFC_TEXT	1024

TEST(every_case_as_the_kernel_formats_it)
{
	struct klog_ksyms *ks;
	unsigned char *data, *p, *end;
	uint32_t magic, count, i, bad = 0, syms = 0;
	char got[KFC_TEXT], fmt[4096], kerr[4200];
	size_t len;
	int ret;

	if (access(KFC_FILE, F_OK))
		SKIP(return, "test_klog_format is not loaded (" KFC_FILE ")");
	ret = klog_ksyms_load("/proc/kallsyms", &ks, kerr, sizeof(kerr));
	ASSERT_EQ(0, ret) TH_LOG("%s", kerr);
	data = read_whole_file(KFC_FILE, &len);
	ASSERT_NE(NULL, data) TH_LOG("%s: %s", KFC_FILE, strerror(errno));
	ASSERT_GE(len, 8);
	memcpy(&magic, data, 4);
	memcpy(&count, data + 4, 4);
	ASSERT_EQ(KFC_MAGIC, magic);
	ASSERT_GE(count, 200);
	p = data + 8;
	end = data + len;
	for (i = 0; i < count; i++) {
		struct kfc_case_hdr h;
		const unsigned char *blk, *text;

		ASSERT_GE(end - p, (long)sizeof(h)) TH_LOG("case %u: short file", i);
		memcpy(&h, p, sizeof(h));
		p += sizeof(h);
		ASSERT_GE(end - p, (long)h.fmt_len + h.blk_len + h.text_len)
			TH_LOG("case %u (line %u): short file", i, h.line);
		ASSERT_LT(h.fmt_len, sizeof(fmt));
		memcpy(fmt, p, h.fmt_len);
		fmt[h.fmt_len] = '\0';
		blk = p + h.fmt_len;
		text = blk + h.blk_len;
		p += (h.fmt_len + h.blk_len + h.text_len + 3) & ~3u;
		if (strstr(fmt, "%pS") || strstr(fmt, "%ps") || strstr(fmt, "%pB"))
			syms++;

		memset(got, 0x5a, sizeof(got));
		ret = klog_args_text(got, sizeof(got), fmt, blk, h.blk_len, ks);
		if (ret != h.ret || memcmp(got, text, h.text_len) ||
		    got[h.text_len] != '\0') {
			bad++;
			TH_LOG("line %u \"%s\": got %d \"%.*s\", want %d \"%.*s\"",
			       h.line, fmt, ret, ret > 0 ? (int)strnlen(got, 200) : 0,
			       got, h.ret, (int)(h.text_len < 200 ? h.text_len : 200),
			       text);
		}
	}
	EXPECT_EQ(end, p);
	EXPECT_EQ(0, bad) TH_LOG("%u of %u cases differ", bad, count);
	EXPECT_GE(syms, 5);
	free(data);
	klog_ksyms_free(ks);
}

/* Without symbols, %pS prints the address as the kernel does without one. */
TEST(no_symbols_prints_the_address)
{
	unsigned char blk[4 + 1 + 8] = { 1, 1, 8, 0, 4 };
	unsigned long long a = 0xffffffffc0123456ULL;
	char got[64];

	memcpy(blk + 5, &a, 8);
	EXPECT_EQ(18, klog_args_text(got, sizeof(got), "%pS", blk, sizeof(blk), NULL));
	EXPECT_STREQ("0xffffffffc0123456", got);
	/* A block that does not match its format is refused. */
	EXPECT_EQ(-EINVAL, klog_args_text(got, sizeof(got), "%s", blk, sizeof(blk), NULL));
	EXPECT_EQ(-EINVAL, klog_args_text(got, sizeof(got), "%pS", blk, 12, NULL));
	blk[0] = 2;
	EXPECT_EQ(-EINVAL, klog_args_text(got, sizeof(got), "%pS", blk, sizeof(blk), NULL));
}

TEST_HARNESS_MAIN
