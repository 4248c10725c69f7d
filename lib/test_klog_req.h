/* SPDX-License-Identifier: GPL-2.0 */
/*
 * test_klog_req.h - test_klog's requests and payloads (lib/test_klog.c)
 *
 * What a writer of /sys/kernel/debug/test_klog/emit asks for and what
 * the records it gets hold: one request, e.g.
 *	"count=1000 size=64 kind=raw ctx=task,hardirq cpus=all"
 * is read by parse_req() into a struct tklg_req. Included by
 * lib/test_klog.c only.
 *
 * Keys: count (per CPU and context, 1..10^9), size (payload bytes), kind
 * (text|raw), ctx (comma list of task|softirq|hardirq|nmi; contexts run
 * concurrently on each CPU), cpus (all, or a CPU list such as 0,2-3),
 * gap_us (delay after each
 * batch; lets a reader keep up), trigger (1: each stream calls
 * klog_trigger("test_klog") after its last record, in its context: an
 * NMI stream from its last NMI), nmi_from (self: each CPU sends its NMIs
 * to itself, the default; next: the next online CPU sends them, so that
 * they arrive at any point of what the CPU is doing, its task-context
 * klog calls included), nmi_irqs_off (1: with nmi_from=self and count
 * up to 4096, each CPU sends all its NMIs with interrupts disabled, so
 * nothing that needs an interrupt runs between them), nmi_hold (1: with
 * nmi_irqs_off, the CPU then keeps interrupts off until the kernel has
 * oopsed (TAINT_DIE, set once the oops's die notifiers have run) or 15 s
 * have passed (-ETIMEDOUT), so that its NMI records are still staged
 * when another CPU oopses or panics: the dump test), crash (1: once its
 * records are made, each stream BUG()s in its own context: an oops in a
 * task, and in a softirq, hard interrupt or NMI the fatal "exception in
 * interrupt" that panics; count may then be 0: the crash jobs of the
 * dump's crash matrix).
 *
 * Raw payload (little-endian, struct test_klog_raw; size >= 24):
 *	magic "TKLG", u8 cpu, u8 ctx, u16 0, u64 seq, u32 size,
 *	u32 csum, then size - 24 filler bytes: filler[i] = (u8)(seq * 31 + i)
 * Text payload (size >= 59, the fixed-width header):
 *	"TKLG c=%03u x=%u s=%020llu n=%07u k=%08x " then filler letters
 *	'a' + (seq + i) % 26 up to size bytes.
 * csum is FNV-1a (32 bit) over the filler bytes.
 */
#ifndef _TEST_KLOG_REQ_H
#define _TEST_KLOG_REQ_H

#include <linux/bits.h>
#include <linux/cpumask.h>
#include <linux/kstrtox.h>
#include <linux/printk.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <linux/types.h>

#define TKLG_MAGIC	0x474c4b54	/* "TKLG" */
#define TKLG_RAW_HDR	24
#define TKLG_TEXT_HDR	59
#define TKLG_SIZE_MAX	SZ_1M
#define TKLG_BATCH	32		/* records per interrupt */
#define NCTX		4

struct test_klog_raw {
	__le32	magic;
	u8	cpu;
	u8	ctx;
	__le16	zero;
	__le64	seq;
	__le32	size;
	__le32	csum;
} __packed;

static const char * const ctx_names[NCTX] = {
	"task", "softirq", "hardirq", "nmi"
};

struct tklg_req {
	u64		count;
	u32		size;
	bool		raw;
	unsigned int	ctx_mask;
	unsigned int	gap_us;
	bool		trigger;
	bool		nmi_next;	/* nmi_from=next */
	bool		nmi_irqs_off;
	bool		nmi_hold;
	bool		crash;		/* BUG() after the last record */
	cpumask_var_t	cpus;
};

static int parse_ctx(char *val, unsigned int *mask)
{
	char *name;
	int i;

	*mask = 0;
	while ((name = strsep(&val, ",")) != NULL) {
		for (i = 0; i < NCTX; i++)
			if (!strcmp(name, ctx_names[i]))
				break;
		if (i == NCTX)
			return -EINVAL;
#ifndef TEST_KLOG_NMI
		if (i == 3)
			return -EOPNOTSUPP;
#endif
		*mask |= BIT(i);
	}
	return *mask ? 0 : -EINVAL;
}

static int parse_kind(const char *val, bool *raw)
{
	if (!strcmp(val, "raw"))
		*raw = true;
	else if (!strcmp(val, "text"))
		*raw = false;
	else
		return -EINVAL;
	return 0;
}

static int parse_nmi_from(const char *val, bool *next)
{
	if (!strcmp(val, "self"))
		*next = false;
	else if (!strcmp(val, "next"))
		*next = true;
	else
		return -EINVAL;
	return 0;
}

static int parse_cpus(const char *val, struct cpumask *cpus)
{
	if (strcmp(val, "all"))
		return cpulist_parse(val, cpus);
	cpumask_copy(cpus, cpu_online_mask);
	return 0;
}

static int parse_req(char *buf, struct tklg_req *req)
{
	char *tok, *val;
	int ret = 0;

	req->count = 1;
	req->size = 64;
	req->raw = false;
	req->ctx_mask = BIT(0);
	req->gap_us = 0;
	req->trigger = false;
	req->nmi_next = false;
	req->nmi_irqs_off = false;
	req->nmi_hold = false;
	req->crash = false;
	cpumask_copy(req->cpus, cpu_online_mask);

	while ((tok = strsep(&buf, " \t\n")) != NULL) {
		if (!*tok)
			continue;
		val = strchr(tok, '=');
		if (!val) {
			pr_err("emit: '%s' is not key=value\n", tok);
			return -EINVAL;
		}
		*val++ = '\0';
		if (!strcmp(tok, "count")) {
			ret = kstrtou64(val, 0, &req->count);
		} else if (!strcmp(tok, "size")) {
			ret = kstrtou32(val, 0, &req->size);
		} else if (!strcmp(tok, "gap_us")) {
			ret = kstrtouint(val, 0, &req->gap_us);
		} else if (!strcmp(tok, "kind")) {
			ret = parse_kind(val, &req->raw);
		} else if (!strcmp(tok, "ctx")) {
			ret = parse_ctx(val, &req->ctx_mask);
		} else if (!strcmp(tok, "trigger")) {
			ret = kstrtobool(val, &req->trigger);
		} else if (!strcmp(tok, "cpus")) {
			ret = parse_cpus(val, req->cpus);
		} else if (!strcmp(tok, "nmi_from")) {
			ret = parse_nmi_from(val, &req->nmi_next);
		} else if (!strcmp(tok, "nmi_irqs_off")) {
			ret = kstrtobool(val, &req->nmi_irqs_off);
		} else if (!strcmp(tok, "nmi_hold")) {
			ret = kstrtobool(val, &req->nmi_hold);
		} else if (!strcmp(tok, "crash")) {
			ret = kstrtobool(val, &req->crash);
		} else {
			pr_err("emit: unknown key '%s'\n", tok);
			return -EINVAL;
		}
		if (ret) {
			pr_err("emit: bad value for '%s': '%s'\n", tok, val);
			return ret == -EOPNOTSUPP ? ret : -EINVAL;
		}
	}
	if ((!req->count && !req->crash) || req->count > 1000000000ULL) {
		pr_err("emit: count must be 1..1000000000 (0 with crash=1)\n");
		return -EINVAL;
	}
	if (req->size < (req->raw ? TKLG_RAW_HDR : TKLG_TEXT_HDR) ||
	    req->size > TKLG_SIZE_MAX) {
		pr_err("emit: size %u out of range %u..%u for kind %s\n",
		       req->size, req->raw ? TKLG_RAW_HDR : TKLG_TEXT_HDR,
		       TKLG_SIZE_MAX, req->raw ? "raw" : "text");
		return -EINVAL;
	}
	if (req->nmi_irqs_off && (req->nmi_next || req->count > 4096)) {
		pr_err("emit: nmi_irqs_off needs nmi_from=self and count <= 4096\n");
		return -EINVAL;
	}
	if (req->nmi_hold && !req->nmi_irqs_off) {
		pr_err("emit: nmi_hold needs nmi_irqs_off=1\n");
		return -EINVAL;
	}
	if (!cpumask_intersects(req->cpus, cpu_online_mask)) {
		pr_err("emit: no online CPU in cpus=\n");
		return -EINVAL;
	}
	return 0;
}

#endif /* _TEST_KLOG_REQ_H */
