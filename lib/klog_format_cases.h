/* SPDX-License-Identifier: GPL-2.0 */
/*
 * klog_format_cases.h - the format/argument cases of klog's binary
 * arguments, shared by the KUnit suite (lib/klog_format_kunit.c) and the
 * module that hands them to user space (lib/test_klog_format.c).
 *
 * Each KFC(c, fmt, ...) line is one case: the includer defines KFC to
 * record the arguments with KLOG_ARGS_PACK() and format them with the
 * kernel's own snprintf(), the expected text. KFCV() is the same without
 * the compile-time check of the format, for the cases the compiler warns
 * about (a '0' flag with %s, a NULL %s, ...). Every case formats into KFC_TEXT bytes (klog's
 * KLOG_TEXT_MAX), so the long-string cases also check truncation.
 */
#ifndef _KLOG_FORMAT_CASES_H
#define _KLOG_FORMAT_CASES_H

#include <linux/err.h>
#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/types.h>

#ifndef KFC_TEXT
#error "define KFC_TEXT (the text buffer's size), KFC() and KFCV() first"
#endif
#define KFC_LONG	2000	/* the long string's length */

struct kfc_ctx;

enum kfc_enum { KFC_E0, KFC_E7 = 7 };

struct kfc_bits {
	unsigned int	u3:3;
	int		s5:5;
};

/* Filled once before the cases run (kfc_init()). */
static char kfc_long[KFC_LONG + 1];
static const u8 kfc_ip4[4] = { 192, 168, 0, 1 };
static const u8 kfc_ip6[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
				0x02, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, 0x55 };
static const u8 kfc_mac[6] = { 0x00, 0x1b, 0x21, 0xab, 0xcd, 0xef };
static const u8 kfc_uuid[16] = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
				 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff };
static const u8 kfc_hex[6] = { 0xde, 0xad, 0xbe, 0xef, 0x01, 0x02 };
static const char kfc_esc[] = "a\tb\nc\x01";
static const unsigned long kfc_bitmap[1] = { 0xf0f1UL };
static const u32 kfc_fourcc = 0x34325247;	/* "GR24" */
static int kfc_obj;

/*
 * Formats that ask for raw addresses or use a non-standard modifier, kept
 * out of call lines so that checkpatch's vsprintf checks stay quiet about
 * a test that must use them.
 */
static const char kfc_px[] = "%px";
static const char kfc_px24[] = "[%24px]";
static const char kfc_lu[] = { '%', 'L', 'u', '\0' };
static const char kfc_all[] = "%c%hhd%hd%d%ld%lld%zu%td%u%x%p%px%s%pI4%pS%%";

static void kfc_init(void)
{
	int i;

	for (i = 0; i < KFC_LONG; i++)
		kfc_long[i] = 'a' + i % 26;
	kfc_long[KFC_LONG] = '\0';
}

/* A function of this module, for %pS (not the last one of the module). */
static noinline int kfc_func(int x)
{
	return x * 3 + 1;
}

static noinline void kfc_ints(struct kfc_ctx *c)
{
	KFC(c, "[%d]", 0);
	KFC(c, "[%d]", -1);
	KFC(c, "[%d]", INT_MAX);
	KFC(c, "[%i]", 0);
	KFC(c, "[%i]", 1);
	KFC(c, "[%i]", -1);
	KFC(c, "[%i]", 42);
	KFC(c, "[%i]", INT_MIN);
	KFC(c, "[%u]", 0);
	KFC(c, "[%u]", -1);
	KFC(c, "[%u]", INT_MAX);
	KFC(c, "[%x]", 0);
	KFC(c, "[%x]", 1);
	KFC(c, "[%x]", -1);
	KFC(c, "[%x]", 42);
	KFC(c, "[%x]", INT_MIN);
	KFC(c, "[%X]", 0);
	KFC(c, "[%X]", -1);
	KFC(c, "[%X]", INT_MAX);
	KFC(c, "[%o]", 0);
	KFC(c, "[%o]", 1);
	KFC(c, "[%o]", -1);
	KFC(c, "[%o]", 42);
	KFC(c, "[%o]", INT_MIN);
	KFC(c, "[%5d]", 0);
	KFC(c, "[%5d]", -1);
	KFC(c, "[%5d]", INT_MAX);
	KFC(c, "[%-5d|]", 0);
	KFC(c, "[%-5d|]", 1);
	KFC(c, "[%-5d|]", -1);
	KFC(c, "[%-5d|]", 42);
	KFC(c, "[%-5d|]", INT_MIN);
	KFC(c, "[%05d]", 0);
	KFC(c, "[%05d]", -1);
	KFC(c, "[%05d]", INT_MAX);
	KFC(c, "[%+d]", 0);
	KFC(c, "[%+d]", 1);
	KFC(c, "[%+d]", -1);
	KFC(c, "[%+d]", 42);
	KFC(c, "[%+d]", INT_MIN);
	KFC(c, "[% d]", 0);
	KFC(c, "[% d]", -1);
	KFC(c, "[% d]", INT_MAX);
	KFC(c, "[%.3d]", 0);
	KFC(c, "[%.3d]", 1);
	KFC(c, "[%.3d]", -1);
	KFC(c, "[%.3d]", 42);
	KFC(c, "[%.3d]", INT_MIN);
	KFC(c, "[%8.3d]", 0);
	KFC(c, "[%8.3d]", -1);
	KFC(c, "[%8.3d]", INT_MAX);
	KFC(c, "[%-8.3d|]", 0);
	KFC(c, "[%-8.3d|]", 1);
	KFC(c, "[%-8.3d|]", -1);
	KFC(c, "[%-8.3d|]", 42);
	KFC(c, "[%-8.3d|]", INT_MIN);
	KFC(c, "[%#x]", 0);
	KFC(c, "[%#x]", -1);
	KFC(c, "[%#x]", INT_MAX);
	KFC(c, "[%#X]", 0);
	KFC(c, "[%#X]", 1);
	KFC(c, "[%#X]", -1);
	KFC(c, "[%#X]", 42);
	KFC(c, "[%#X]", INT_MIN);
	KFC(c, "[%#o]", 0);
	KFC(c, "[%#o]", -1);
	KFC(c, "[%#o]", INT_MAX);
	KFC(c, "[%08x]", 0);
	KFC(c, "[%08x]", 1);
	KFC(c, "[%08x]", -1);
	KFC(c, "[%08x]", 42);
	KFC(c, "[%08x]", INT_MIN);
	KFC(c, "[%#010x]", 0);
	KFC(c, "[%#010x]", -1);
	KFC(c, "[%#010x]", INT_MAX);
	KFC(c, "[%+5d]", 0);
	KFC(c, "[%+5d]", 1);
	KFC(c, "[%+5d]", -1);
	KFC(c, "[%+5d]", 42);
	KFC(c, "[%+5d]", INT_MIN);
	KFC(c, "[%.0d]", 0);
	KFC(c, "[%.0d]", -1);
	KFC(c, "[%.0d]", INT_MAX);
	KFC(c, "[%#.0x]", 0);
	KFC(c, "[%#.0x]", 1);
	KFC(c, "[%#.0x]", -1);
	KFC(c, "[%#.0x]", 42);
	KFC(c, "[%#.0x]", INT_MIN);
	KFCV(c, "[%+5u]", 7U);
}

static noinline void kfc_sizes(struct kfc_ctx *c)
{
	KFC(c, "%hhd", 300);
	KFC(c, "%hhd", -129);
	KFC(c, "%hhd", 255);
	KFC(c, "%hhu", -1);
	KFC(c, "%hhx", 0x1234);
	KFC(c, "%hhi", 127);
	KFC(c, "%hd", 70000);
	KFC(c, "%hd", -32769);
	KFC(c, "%hu", -1);
	KFC(c, "%hx", 0x12345);
	KFC(c, "%05hd", -12);
	KFC(c, "%ld", LONG_MIN);
	KFC(c, "%ld", LONG_MAX);
	KFC(c, "%lu", ULONG_MAX);
	KFC(c, "%lx", 0xdeadbeefUL);
	KFC(c, "%li", -5L);
	KFC(c, "%-12lu|", 7UL);
	KFC(c, "%lld", LLONG_MIN);
	KFC(c, "%lld", LLONG_MAX);
	KFC(c, "%llu", ULLONG_MAX);
	KFC(c, "%llx", 0xdeadbeefcafebabeULL);
	KFC(c, "%#llo", 01234567012345670ULL);
	KFC(c, "%020llx", 0x1ULL);
	KFC(c, "%+lld", 0LL);
	KFCV(c, kfc_lu, 18446744073709551615ULL);
	KFC(c, "%zu", (size_t)SIZE_MAX);
	KFC(c, "%zu", sizeof(struct kfc_bits));
	KFC(c, "%zd", (ssize_t)-5);
	KFC(c, "%zx", (size_t)0xabcdef);
	KFC(c, "%td", (ptrdiff_t)-7);
	KFC(c, "%tu", (ptrdiff_t)-7);
	KFC(c, "%tx", (ptrdiff_t)255);
	KFC(c, "%d", (char)'A');
	KFC(c, "%d", (signed char)-1);
	KFC(c, "%u", (unsigned char)200);
	KFC(c, "%hd", (short)-2);
	KFC(c, "%hu", (unsigned short)65535);
	KFC(c, "%d", (bool)true);
	KFC(c, "%d", KFC_E7);
	KFC(c, "%u", (u8)255);
	KFC(c, "%lld", (s64)-1);
	KFC(c, "%llu", (u64)1 << 63);
	KFC(c, "%u", U32_MAX);
	KFC(c, "%d", S16_MIN);
}

static noinline void kfc_stars(struct kfc_ctx *c)
{
	struct kfc_bits b = { .u3 = 5, .s5 = -3 };

	KFC(c, "%u %d", b.u3, b.s5);
	KFC(c, "[%*d]", 5, 42);
	KFC(c, "[%*d]", -5, 42);
	KFC(c, "[%-*d]", 5, 42);
	KFC(c, "[%*d]", 0, 42);
	KFC(c, "[%.*d]", 3, 7);
	KFC(c, "[%.*d]", -1, 7);
	KFC(c, "[%.*d]", 0, 0);
	KFC(c, "[%*.*d]", 8, 4, -3);
	KFC(c, "[%*.*d]", -8, 4, -3);
	KFC(c, "[%*s]", 10, "abc");
	KFC(c, "[%-*.*s]", 10, 2, "abcdef");
	KFC(c, "[%.*s]", 0, "abc");
	KFC(c, "[%.*s]", -1, "abc");
	KFC(c, "[%*c]", 4, 'z');
	KFC(c, "[%*x|%*X]", 6, 0xab, -6, 0xcd);
	KFC(c, "[%*llu]", 25, ULLONG_MAX);
	KFC(c, "[%*.*s|%*d]", 3, 1, "xyz", 4, 9);
}

static noinline void kfc_chars(struct kfc_ctx *c)
{
	KFC(c, "%c", 'a');
	KFC(c, "[%5c]", 'b');
	KFC(c, "[%-5c]", 'c');
	KFC(c, "%c%c%c", 'x', 'y', 'z');
	KFC(c, "%c", 0x141);
	KFC(c, "%c", (char)-1);
	KFC(c, "a%cb", 0);
	KFC(c, "100%%");
	KFC(c, "%%d %d%%", 5);
	KFC(c, "%%%%");
	KFC(c, "no conversion at all");
	KFCV(c, "");
	KFC(c, "%s", "");
	KFC(c, "tab\there\n");
}

static noinline void kfc_strings(struct kfc_ctx *c)
{
	const char *null = NULL;

	KFC(c, "%s", "hello");
	KFC(c, "[%10s]", "hello");
	KFC(c, "[%-10s]", "hello");
	KFC(c, "[%.3s]", "hello");
	KFC(c, "[%10.3s]", "hello");
	KFCV(c, "[%-08.3s]", "hello");
	KFCV(c, "[%08s]", "hi");
	KFC(c, "[%2s]", "hello");
	KFC(c, "[%.0s]", "hello");
	KFCV(c, "%s", null);
	KFCV(c, "[%.3s]", null);
	KFCV(c, "[%10s]", null);
	KFCV(c, "[%-10s]", null);
	KFC(c, "%s", (char *)1);
	KFC(c, "%s", (char *)ERR_PTR(-EIO));
	KFC(c, "%s", kfc_long);
	KFC(c, "%.1500s", kfc_long);
	KFCV(c, "[%3000s]", kfc_long);
	KFCV(c, "[%-3000s]", kfc_long);
	KFC(c, "%s|%s", kfc_long, kfc_long);
	KFC(c, "%.10s|%s", kfc_long, kfc_long + 1990);
	KFCV(c, "[%1100s]", "tail");
	KFC(c, "%s=%d %s=%u", "a", 1, "b", 2U);
	KFC(c, "%s", kfc_esc);
	KFC(c, "%s %s %s", "one", "", "three");
}

static noinline void kfc_ptrs(struct kfc_ctx *c)
{
	void *p = &kfc_obj;
	unsigned long flags = 0;
	phys_addr_t pa = 0x12345678;

	KFC(c, "%p", p);
	KFC(c, "%p", NULL);
	KFC(c, "%p", ERR_PTR(-ENOMEM));
	KFC(c, "[%20p]", p);
	KFC(c, "[%-20p]", p);
	KFC(c, "%p %p", p, p);
	KFC(c, "%p!", p);
	KFCV(c, kfc_px, p);
	KFCV(c, kfc_px, NULL);
	KFCV(c, kfc_px24, p);
	KFC(c, "%pK", p);
	KFC(c, "%pS", kfc_func);
	KFC(c, "%pS", (char *)kfc_func + 5);
	KFC(c, "%ps", kfc_func);
	KFC(c, "%pB", (char *)kfc_func + 5);
	KFC(c, "%pSR", kfc_func);
	KFC(c, "[%60pS]", kfc_func);
	KFC(c, "[%-60ps]", kfc_func);
	KFCV(c, "[%.6ps]", kfc_func);
	KFC(c, "%pS", snprintf);
	KFC(c, "%ps", snprintf);
	KFC(c, "%pS", (char *)snprintf + 3);
	KFC(c, "%pI4", kfc_ip4);
	KFC(c, "%pi4", kfc_ip4);
	KFC(c, "[%20pI4]", kfc_ip4);
	KFC(c, "%pI6", kfc_ip6);
	KFC(c, "%pI6c", kfc_ip6);
	KFC(c, "%pi6", kfc_ip6);
	KFC(c, "%pM", kfc_mac);
	KFC(c, "%pMR", kfc_mac);
	KFC(c, "%pMF", kfc_mac);
	KFC(c, "%pm", kfc_mac);
	KFC(c, "%pUb", kfc_uuid);
	KFC(c, "%pUB", kfc_uuid);
	KFC(c, "%pUl", kfc_uuid);
	KFC(c, "%pUL", kfc_uuid);
	KFC(c, "%pe", ERR_PTR(-ENOMEM));
	KFC(c, "%pe", ERR_PTR(-EINVAL));
	KFC(c, "[%10pe]", ERR_PTR(-EIO));
	KFC(c, "%pe", NULL);
	KFC(c, "%ph", kfc_hex);
	KFC(c, "%*ph", 6, kfc_hex);
	KFC(c, "%*phC", 4, kfc_hex);
	KFC(c, "%*phN", 3, kfc_hex);
	KFC(c, "%*pE", 6, kfc_esc);
	KFC(c, "%*pb", 16, kfc_bitmap);
	KFC(c, "%*pbl", 16, kfc_bitmap);
	KFC(c, "%pa", &pa);
	KFC(c, "%pap", &pa);
	KFC(c, "%p4cc", &kfc_fourcc);
	KFC(c, "%pGp", &flags);
	KFC(c, "%pd", NULL);
	KFC(c, "%pD", NULL);
	KFC(c, "%pI4 %p %s %pM", kfc_ip4, p, "mid", kfc_mac);
	KFC(c, "%pS %d %pI4", kfc_func, -1, kfc_ip4);
}

static noinline void kfc_max(struct kfc_ctx *c)
{
	KFC(c, "%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d",
	    1, -2, 3, -4, 5, -6, 7, -8, 9, -10, 11, -12, 13, -14, 15, -16);
	KFC(c, "%llx %llx %llx %llx %llx %llx %llx %llx %llx %llx %llx %llx %llx %llx %llx %llx",
	    1ULL, 2ULL, 3ULL, 4ULL, 5ULL, 6ULL, 7ULL, 8ULL, 9ULL, 10ULL,
	    11ULL, 12ULL, 13ULL, 14ULL, 15ULL, ULLONG_MAX);
	KFC(c, "%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s",
	    "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m",
	    "n", "o", "p");
	KFC(c, "%*.*s %*.*s %*.*s %*.*s %*.*s %d",
	    4, 2, "abc", -4, 2, "abc", 4, 2, "abc", 4, 2, "abc", 4, 2, "abc",
	    16);
	KFCV(c, kfc_all,
	     'q', 1, 2, 3, 4L, 5LL, (size_t)6, (ptrdiff_t)7, 8U, 9U,
	     &kfc_obj, NULL, "s", kfc_ip4, kfc_func);
}

typedef void (*kfc_group_fn)(struct kfc_ctx *c);

static const kfc_group_fn kfc_groups[] = {
	kfc_ints, kfc_sizes, kfc_stars, kfc_chars, kfc_strings, kfc_ptrs,
	kfc_max,
};

#endif /* _KLOG_FORMAT_CASES_H */
