/* SPDX-License-Identifier: GPL-2.0 */
/*
 * klog - debugging calls that can stay in the code
 *
 * klog_printk() and klog_raw() may be placed anywhere in the kernel or a
 * module, in any context. With no handler registered each call is one
 * static branch, its arguments are not evaluated. A handler (for example
 * the relay handler in samples/klog) receives every record and moves it to
 * user space. See Documentation/trace/klog.rst.
 */
#ifndef _LINUX_KLOG_H
#define _LINUX_KLOG_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/jump_label.h>
#include <linux/klog_args.h>
#include <linux/list.h>
#include <linux/printk.h>
#include <linux/types.h>

/* Largest formatted klog_printk() text; longer text is truncated. */
#define KLOG_TEXT_MAX		1024

/*
 * Largest payload the core makes a record of in its own buffer (one per
 * CPU and nesting level): a text, or klog_printk()'s arguments in binary
 * (<linux/klog_args.h>).
 */
#define KLOG_PAYLOAD_MAX	KLOG_ARGS_BLOCK_MAX

/*
 * Nesting levels per CPU: task, softirq, hardirq, NMI, and a #MC, #DB or
 * #BP (a kprobe) inside the NMI, which in_nmi() also reports.
 */
#define KLOG_NEST_MAX		5

/**
 * enum klog_kind - what a record's payload holds
 * @KLOG_KIND_TEXT: formatted text from klog_printk() (a site without an
 *	argument plan, or a call whose arguments did not fit a block) or
 *	klog_trigger(), no trailing NUL
 * @KLOG_KIND_RAW: bytes given to klog_raw(), passed through unchanged
 * @KLOG_KIND_ARGS: klog_printk()'s arguments in binary, a block as
 *	<uapi/linux/klog_args.h> describes it, to be formatted with the
 *	site's format; klog_record_format() makes its text
 *
 * A site's kind (struct klog_site.kind) is TEXT for klog_printk() and
 * klog_trigger(), RAW for klog_raw(); a record's kind says what its
 * payload holds: TEXT or ARGS for a klog_printk() site.
 */
enum klog_kind {
	KLOG_KIND_TEXT	= 0,
	KLOG_KIND_RAW	= 1,
	KLOG_KIND_ARGS	= 2,
};

/**
 * enum klog_ctx - the context a record was written from
 * @KLOG_CTX_TASK: process context (including with BHs or IRQs disabled)
 * @KLOG_CTX_SOFTIRQ: serving a softirq
 * @KLOG_CTX_HARDIRQ: in a hard interrupt handler
 * @KLOG_CTX_NMI: in an NMI handler
 */
enum klog_ctx {
	KLOG_CTX_TASK		= 0,
	KLOG_CTX_SOFTIRQ	= 1,
	KLOG_CTX_HARDIRQ	= 2,
	KLOG_CTX_NMI		= 3,
};

/* Record flags (struct klog_record.flags). */
/*
 * A KLOG_KIND_TEXT record's text cut to KLOG_TEXT_MAX - 1 bytes, or a
 * KLOG_KIND_RAW record's data to U32_MAX bytes. Never set on a
 * KLOG_KIND_ARGS record, whose text is cut when it is formatted (how a
 * handler tells: "Binary arguments" in Documentation/trace/klog.rst).
 */
#define KLOG_REC_TRUNCATED	0x1
#define KLOG_REC_TRIGGER	0x2	/* written by klog_trigger() */

/* Site flags (struct klog_site.flags), changed through the control file. */
#define KLOG_SITE_ENABLED	0x1	/* 'p': records are made */

struct klog_args_plan;

/**
 * struct klog_site - one klog call site: its description and its state
 * @modname: the module the site is in (KBUILD_MODNAME), as dynamic debug
 * @file: source file (__FILE__)
 * @func: enclosing function (__func__)
 * @fmt: the format string for klog_printk(), NULL for klog_raw()
 * @line: source line (__LINE__)
 * @kind: KLOG_KIND_TEXT for klog_printk() and klog_trigger(),
 *	KLOG_KIND_RAW for klog_raw(); a record's own kind says what its
 *	payload holds (TEXT or ARGS for a klog_printk() site)
 * @func_len: strlen(@func), known at compile time, so handlers that copy
 *	the name need not measure it on every record
 * @id: the site's number, unique and never reused within a boot (from 1);
 *	0 until the site table has numbered the site. Handlers may name a
 *	record's origin by it: /sys/kernel/debug/klog/sites maps ids to
 *	descriptions, also after the site's module is gone.
 * @plan: @fmt's argument plan for binary arguments (<linux/klog_args.h>),
 *	made once when the kernel or the site's module is loaded; NULL for
 *	klog_raw(), before that, or when the format cannot be recorded in
 *	binary (then klog_printk() formats at the call).
 * @flags: KLOG_SITE_* flags; changed only by the site table, under the
 *	core's mutex
 * @records: this site's count of records made, one per CPU (so that no
 *	cache line is shared between CPUs); NULL until the site table gave
 *	the site its counters. The ``control`` file shows their sum, exact
 *	at rest.
 * @key: the site's own static key: on while the site is enabled (from
 *	the start: a site is enabled unless klog.sites_default=off or a
 *	query says otherwise). A call tests one of the core's keys
 *	(klog_active[]), then this key: with no handler it is one
 *	patched-out branch, and registering a handler flips the core's keys
 *	alone, not each site's key.
 *
 * Each klog_printk()/klog_raw()/klog_trigger() expansion owns one, placed
 * in the section ``__klog_sites``, so that the site table finds the sites
 * of the kernel at boot and those of a module when it loads. Handlers
 * read the description fields and @id; the rest belongs to klog.
 */
struct klog_site {
	const char		*modname;
	const char		*file;
	const char		*func;
	const char		*fmt;
	unsigned int		line;
	unsigned short		kind;
	unsigned short		func_len;
	u32			id;
	u32			flags;
	const struct klog_args_plan *plan;
	unsigned long __percpu	*records;
	struct static_key_true	key;
} __aligned(8);

/**
 * struct klog_record - one record as a handler receives it
 * @ts_ns: local_clock() at the call, in nanoseconds
 * @site: the call site
 * @payload: text (not NUL-terminated), raw bytes or an argument block
 *	(see @kind); valid only during the handler call. Handlers that
 *	want text call klog_record_format().
 * @len: payload length in bytes
 * @pid: current->pid at the call (the interrupted task in IRQ/NMI context)
 * @cpu: the CPU the call ran on
 * @ctx: enum klog_ctx
 * @kind: enum klog_kind
 * @flags: KLOG_REC_* flags
 */
struct klog_record {
	u64			ts_ns;
	const struct klog_site	*site;
	const void		*payload;
	u32			len;
	pid_t			pid;
	u16			cpu;
	u8			ctx;
	u8			kind;
	u32			flags;
};

struct dentry;
struct klog_handler;

/**
 * typedef klog_write_fn - a handler's record callback
 * @handler: the registered handler (use container_of() for private data)
 * @rec: the record; it and its payload are valid only during the call
 *
 * Called with preemption disabled, in the context of the klog call: task,
 * softirq, hardirq or NMI (check @rec->ctx). It must not sleep, and it
 * must be NMI-safe or refuse NMI records.
 */
typedef void (*klog_write_fn)(struct klog_handler *handler,
			      const struct klog_record *rec);

/**
 * struct klog_handler - a consumer of klog records
 * @name: shown in messages; required
 * @write: called for every record; required
 * @trigger: called by klog_trigger() after its record was written;
 *	optional. Same context rules as @write. A flight recorder freezes
 *	here, so that it keeps the moments before the trigger.
 * @node: private to the klog core
 *
 * Several handlers may be registered at once; every record is given to
 * each of them (fan-out), in registration order.
 */
struct klog_handler {
	const char		*name;
	klog_write_fn		write;
	void			(*trigger)(struct klog_handler *handler,
					   const struct klog_record *rec);
	struct list_head	node;
};

#ifdef CONFIG_KLOG

/*
 * The core's keys, all off while no handler is registered. Each call site
 * tests one of them, picked at compile time by a multiplicative hash of
 * __COUNTER__ (which other macros in a call's arguments also advance), so
 * that the sites of a file or a module are spread over all of them;
 * klog_enabled() tests the first. Registering the first handler turns
 * them on one after another: the jump label mutex, which a module load
 * takes too, is then held for one key's sites at a time, not for every
 * site's.
 */
#define KLOG_ACTIVE_BITS	4
#define KLOG_ACTIVE_KEYS	BIT(KLOG_ACTIVE_BITS)
extern struct static_key_false klog_active[KLOG_ACTIVE_KEYS];
#define __KLOG_ACTIVE_KEY(n)						\
	((u32)((n) * 2654435761u) >> (32 - KLOG_ACTIVE_BITS))

#define KLOG_SITE(_fmt, _kind) {					\
	.modname = KBUILD_MODNAME,					\
	.file = __FILE__, .func = __func__, .fmt = (_fmt),		\
	.line = __LINE__, .kind = (_kind),				\
	.func_len = sizeof(__func__) - 1,				\
	.key = STATIC_KEY_TRUE_INIT,					\
}

/*
 * Does the call at site @site make a record: a handler is registered
 * (one patched-out branch, on one of the core's keys, while none is) and
 * the site is enabled?
 */
#define __klog_site_on(site)						\
	__klog_site_on_key(site, __KLOG_ACTIVE_KEY(__COUNTER__))
#define __klog_site_on_key(site, k)					\
	(static_branch_unlikely(&klog_active[k]) &&			\
	 static_branch_likely(&(site).key))

/* Define call site @name in the section the site table reads. */
#define KLOG_DEFINE_SITE(name, _fmt, _kind)				\
	static struct klog_site name __used __aligned(8)		\
	__section("__klog_sites") = KLOG_SITE(_fmt, _kind)

/* ---- Writer API ------------------------------------------------------ */

/**
 * klog_enabled() - whether any handler is registered
 *
 * One patched-out branch while no handler is registered; always false
 * with CONFIG_KLOG=n. It knows nothing of call sites: while a handler is
 * registered it is true even for code whose klog calls were turned off
 * through the ``control`` file. To prepare a record's data only when its
 * own call site is on, use klog_raw_block().
 *
 * Context: any.
 * Return: true while at least one handler is registered.
 */
static __always_inline bool klog_enabled(void)
{
	return static_branch_unlikely(&klog_active[0]);
}

/**
 * klog_printk - record a printf-style call for the klog handlers
 * @fmt: printf-style format, checked at compile time
 * @...: arguments, evaluated only when a handler is registered
 *
 * The arguments are recorded in binary (a KLOG_KIND_ARGS record), each
 * by its C type, classified at compile time and stored in an array of
 * u64 on the stack, then packed as the site's argument plan says (its
 * format parsed once, when the kernel or the site's module was loaded):
 * no format is parsed at the call, no va_list walked. The text is made
 * when the record is read (klog_record_format(), the collector). A site
 * with no plan (see "Binary arguments" in Documentation/trace/klog.rst)
 * formats the text at the call instead (a KLOG_KIND_TEXT record). An
 * argument that is neither an integer nor a pointer, or more than
 * KLOG_ARGS_MAX arguments, fail the build. The format is checked by
 * __printf() on the call that site takes.
 *
 * The %p extensions (%pS, %pI4, %pOF, %pfw, %pd, %pg, ...) are formatted
 * at the call by vsnprintf()'s own code, with its context rules: some of
 * them walk structures under locks (%pOF and %pfw the device tree or
 * firmware node tree, %pd and %pD dentries), so use them only where
 * printk() could format them, not in NMI context.
 *
 * Context: any, including hardirq and NMI; never sleeps (but see the %p
 * extensions above).
 */
#define klog_printk(fmt, ...)						\
do {									\
	KLOG_DEFINE_SITE(__klog_site, fmt, KLOG_KIND_TEXT);		\
	if (__klog_site_on(__klog_site)) {				\
		if (likely(READ_ONCE(__klog_site.plan)))		\
			__klog_printk_args(&__klog_site,		\
				__KLOG_CLASSES(__VA_ARGS__),		\
				__KLOG_ARGV(__VA_ARGS__));		\
		else							\
			__klog_printk(&__klog_site, fmt,		\
				      ##__VA_ARGS__);			\
	}								\
} while (0)

/**
 * klog_raw - pass a binary record to the klog handlers
 * @data: the bytes
 * @len: their number; handlers may refuse (and count) oversized records
 *
 * Context: any, including hardirq and NMI; never sleeps.
 */
#define klog_raw(data, len)						\
do {									\
	KLOG_DEFINE_SITE(__klog_site, NULL, KLOG_KIND_RAW);		\
	if (__klog_site_on(__klog_site))				\
		__klog_raw(&__klog_site, (data), (len));		\
} while (0)

/**
 * klog_raw_block - prepare a binary record only when its call site is on
 * @data: the bytes, once the block ran
 * @len: their number
 * @...: the statements that prepare them (declarations included; the
 *	last one needs no semicolon)
 *
 * A klog_raw() call site whose record needs work first (a structure
 * filled from several places): the statements run, and the record is
 * written, only while a handler is registered and this site is enabled,
 * behind the site's own key, as for klog_raw()::
 *
 *	klog_raw_block(&done, sizeof(done), const struct my_done done = {
 *		.tag = tag, .err = err,
 *	});
 *
 * Context: any, including hardirq and NMI; never sleeps.
 */
#define klog_raw_block(data, len, ...)					\
do {									\
	KLOG_DEFINE_SITE(__klog_site, NULL, KLOG_KIND_RAW);		\
	if (__klog_site_on(__klog_site)) {				\
		__VA_ARGS__;						\
		__klog_raw(&__klog_site, (data), (len));		\
	}								\
} while (0)

/**
 * klog_trigger - mark a point worth keeping, such as a detected bug
 * @reason: a short text, written as a record flagged KLOG_REC_TRIGGER
 *
 * Writes "klog_trigger: @reason" as a text record, then calls every
 * handler's ->trigger(). The relay handler in overwrite (flight recorder)
 * mode stops recording there, so a later snapshot holds the moments
 * before the trigger.
 *
 * Context: any, including hardirq and NMI; never sleeps.
 */
#define klog_trigger(reason)						\
do {									\
	KLOG_DEFINE_SITE(__klog_site, "klog_trigger: %s",		\
			 KLOG_KIND_TEXT);				\
	if (__klog_site_on(__klog_site))				\
		__klog_trigger(&__klog_site, (reason));			\
} while (0)

__printf(2, 3)
void __klog_printk(struct klog_site *site, const char *fmt, ...);
void __klog_printk_args(struct klog_site *site, u32 classes, const u64 *args);
void __klog_raw(struct klog_site *site, const void *data, size_t len);
void __klog_trigger(struct klog_site *site, const char *reason);

/* ---- Handler API ----------------------------------------------------- */

int register_klog_handler(struct klog_handler *handler);
int unregister_klog_handler(struct klog_handler *handler);
u64 klog_nest_dropped(unsigned int cpu);
int klog_record_format(const struct klog_record *rec, char *buf, size_t size);
struct dentry *klog_debugfs_dir(void);
bool klog_site_func(u32 id, const char **func, unsigned int *line);
const char *klog_site_fmt(u32 id);

/* ---- Site control ---------------------------------------------------- */

int klog_query(const char *queries, const char *modname);

#else /* !CONFIG_KLOG */

static inline bool klog_enabled(void)
{
	return false;
}

#define klog_printk(fmt, ...)	no_printk(fmt, ##__VA_ARGS__)

static inline void __klog_raw_check(const void *data, size_t len) { }

#define klog_raw(data, len)						\
do {									\
	if (0)								\
		__klog_raw_check((data), (len));			\
} while (0)

#define klog_raw_block(data, len, ...)					\
do {									\
	if (0) {							\
		__VA_ARGS__;						\
		__klog_raw_check((data), (len));			\
	}								\
} while (0)

static inline void __klog_trigger_check(const char *reason) { }

#define klog_trigger(reason)						\
do {									\
	if (0)								\
		__klog_trigger_check(reason);				\
} while (0)

static inline int register_klog_handler(struct klog_handler *handler)
{
	return -EOPNOTSUPP;
}

static inline int unregister_klog_handler(struct klog_handler *handler)
{
	return -EOPNOTSUPP;
}

static inline u64 klog_nest_dropped(unsigned int cpu)
{
	return 0;
}

static inline int klog_record_format(const struct klog_record *rec,
				     char *buf, size_t size)
{
	return -EOPNOTSUPP;
}

static inline struct dentry *klog_debugfs_dir(void)
{
	return NULL;
}

static inline bool klog_site_func(u32 id, const char **func,
				  unsigned int *line)
{
	return false;
}

static inline const char *klog_site_fmt(u32 id)
{
	return NULL;
}

static inline int klog_query(const char *queries, const char *modname)
{
	return -EOPNOTSUPP;
}

#endif /* CONFIG_KLOG */

/* ---- Module loader hook ---------------------------------------------- */

#if defined(CONFIG_KLOG) && defined(CONFIG_MODULES)
int klog_module_param(const char *param, const char *val, const char *modname);
#else
static inline int klog_module_param(const char *param, const char *val,
				    const char *modname)
{
	return -ENOENT;
}
#endif

#endif /* _LINUX_KLOG_H */
