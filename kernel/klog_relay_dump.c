// SPDX-License-Identifier: GPL-2.0
/*
 * klog-mod: the records still in the buffers, printed on oops and panic
 *
 * Copyright (C) 2026 The klog authors
 */

/**
 * DOC: klog relay dump on oops
 *
 * Like ``ftrace_dump_on_oops``: with ``dump_on_oops`` set (module
 * parameter and control file), the first oops (die notifier, DIE_OOPS)
 * or panic (panic notifier) prints the newest records still in the
 * buffers (100 unless ``dump_on_oops`` names another number, at most
 * 100000, and for at most 10 s, counting and passing over the older
 * records included: the oops report must stay readable on the console
 * and in a ramoops record, which keeps only the tail, and interrupts are
 * off; a dump cut by time says so) to the console, merged by time, one
 * line each in the format of ``klog -r``, between a ``klog-mod: dump on
 * oops:`` (or ``on panic:``) line and ``klog-mod: end of dump``; before
 * that last line, the
 * buffers' ``stats`` lines and, if a klog_trigger() froze the recorder,
 * its ``trigger`` line, each prefixed with ``klog-mod:``.
 *
 * The stream is version 3: a record names its call site by id, which
 * the dump turns into ``function:line`` through the klog core's site
 * table (klog_site_func(), a lockless lookup), and a record whose task a
 * COMM record
 * named earlier in the same sub-buffer shows as ``comm-pid``, as in
 * ``klog -r``. COMM records are not records: they are not printed and
 * not counted (``newest N`` counts records only).
 *
 * It runs once: the oops that leads to a panic (``panic_on_oops``, an
 * oops in interrupt context) dumps at the oops, and the panic only says
 * so; a later oops dumps nothing until ``dump_on_oops`` is written again
 * (a dump that found a reset under way read nothing, and stays armed).
 * A crash inside the dump itself (on the dumping CPU) says so and ends
 * it, putting back what it had frozen and held.
 *
 * Crash context
 * ~~~~~~~~~~~~~
 *
 * A die notifier runs in NMI or hard-IRQ context (a fault there), or
 * with a runqueue or pi_lock held (an oops in the scheduler); a panic
 * notifier after the other CPUs were stopped. So nothing here sleeps,
 * allocates, or takes, tries or releases a sleeping lock (a
 * mutex_unlock() may wake a waiter: the scheduler's locks), on
 * PREEMPT_RT too. The dump state is static (one dump at a time); the
 * channel and the site table are read under RCU (the channel is freed
 * only a grace period after klog_relay_destroy() unpublished it, a
 * forgotten site table likewise, and a going module's sites a grace
 * period after its unload); the control files and collectors that hold
 * their locks meanwhile change nothing the dump relies on. Each buffer
 * is read only when no writer is in it:
 *
 * 1. The recorder is frozen first (an atomic or: never klog_relay_freeze(),
 *    whose thaw sleeps until the dump ends), so records made
 *    from then on are counted as ``frozen``, not written, and the NMI
 *    staging areas are held (klog_relay_nmi_hold()): nothing moves their
 *    records into a buffer until the dump ends. After an oops the
 *    machine goes on: the hold ends, and the recorder is thawed again
 *    unless a trigger froze it meanwhile or it was frozen before.
 * 2. A per-CPU buffer is read once its CPU is outside the write path
 *    (in_write clear). At a panic the other CPUs are stopped already:
 *    one stopped inside the write path never leaves it, and its buffer
 *    is reported ``buffer N busy, not read``; at an oops they run on and
 *    are waited for, 10 ms at most. A crash inside the write path on the
 *    dumping CPU itself makes its buffer busy too, unless it is an oops
 *    in task context: that task dies, and its write path is given up
 *    before the dump (klog_relay_write_abandon()). A writer that enters
 *    the write path on another CPU just as the dump starts may miss the
 *    freeze and the hold (a record costs no full barrier), and the dump
 *    may miss it here; so after reading, the dump checks again (dump:D):
 *    the writer sets in_write before any other store (write_begin:B), so
 *    a dump that read any of them sees it inside, waits for it to leave,
 *    and finds the buffer's written count moved (or its count of
 *    sub-buffers started, which a flush moves): ``buffer N changed
 *    while read``. What is shown is exact, or said not to be.
 * 3. A global buffer is read once klog_relay.global_lock could be taken
 *    (and released at once: a writer that takes it later sees the
 *    freeze and the hold).
 * 4. The records still in a CPU's NMI staging area (made in NMI context
 *    and not yet moved into a buffer: a CPU that has kept interrupts off
 *    since, a hard lockup) are read where they are
 *    (klog_relay_nmi_read_begin()) when nothing can move them meanwhile:
 *    at a panic (the CPUs are stopped), on the dumping CPU, or when the
 *    CPU's buffer (a global buffer: the buffer) was found quiet in step
 *    2 or 3; otherwise ``cpuN staging area busy ..., not read``. They
 *    are merged by time with the buffers' records and counted in the
 *    newest N, each line ending in `` [staged]`` (it has no sequence
 *    number yet: no ``records lost`` gap is judged around it). After the
 *    stats lines, ``cpuN staged=R frozen=F big=B`` says what each
 *    non-empty staging area holds: R records, and F and B records staged
 *    as drops of those causes (counted in the stats once moved). NMIs on
 *    running CPUs may stage more during an oops's dump: they are not
 *    shown, and ``changed while read`` says so.
 * 5. No buffer is read while a ``reset`` clears them: a dump that starts
 *    then says ``the channel is being reset, not read``, and a reset
 *    that starts during a dump waits for it to end (its thaw).
 *
 * The buffer memory itself is always safe to read (vmap'ed, freed only
 * by destroying the channel, a grace period after it was unpublished),
 * and a collector reading at the same moment changes nothing the dump
 * reads:
 * the dump shows every sub-buffer still in the ring, read or not. The
 * dump checks each buffer's written count (and sub-buffers started)
 * again after reading, once its CPU is outside the write path, and says
 * ``buffer N changed while read`` if it moved (only a writer or a flush
 * that raced with step 1 moves it).
 *
 * Differences from ``klog -r``: a line longer than 959 bytes (printk's
 * limit is about 1 KiB) is cut and ends in `` [cut]``; records dropped
 * after a buffer's last record show in its ``stats`` line only, not as
 * a final ``records lost`` line; and the dump starts at the oldest
 * sub-buffer still in the ring, so gaps before its first record are not
 * shown.
 */

#include <linux/kdebug.h>
#include <linux/limits.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/notifier.h>
#include <linux/panic_notifier.h>
#include <linux/printk.h>
#include <linux/seq_file.h>
#include <linux/smp.h>
#include <linux/string.h>
#include "klog_relay_dump.h"

/* ---- the setting: off | cpu | all, and the newest N ------------------- */

enum klog_dump_mode { KLOG_DUMP_OFF, KLOG_DUMP_CPU, KLOG_DUMP_ALL };

static const char * const klog_dump_mode_names[] = { "off", "cpu", "all" };

/*
 * mode | N << 2, one word so that a crash never reads half of a change.
 * N = 0: not given, the newest KLOG_DUMP_N_DEFAULT.
 */
static unsigned long klog_dump_setting;

/* 0: armed; 1: a dump ran (or runs) since the setting was last written. */
static atomic_t klog_dump_done = ATOMIC_INIT(0);

/* The CPU that is dumping, -1 when none: a crash inside the dump. */
static int klog_dump_owner = -1;

/* "off", "cpu", "all", "cpu,N", "all,N" (N >= 1): the word, or -EINVAL. */
static int klog_dump_parse(const char *s, unsigned long *setting)
{
	char mode[8];
	const char *comma = strchr(s, ',');
	size_t len = comma ? comma - s : strcspn(s, "\n");
	unsigned long n = 0;
	int m;

	if (len >= sizeof(mode))
		return -EINVAL;
	memcpy(mode, s, len);
	mode[len] = '\0';
	m = match_string(klog_dump_mode_names,
			 ARRAY_SIZE(klog_dump_mode_names), mode);
	if (m < 0)
		return -EINVAL;
	if (comma) {
		/*
		 * Digits from 1 to 9 first (kstrtoul() takes "+5" and "007"
		 * too); then one trailing newline, nothing else.
		 */
		if (m == KLOG_DUMP_OFF || comma[1] < '1' || comma[1] > '9' ||
		    kstrtoul(comma + 1, 10, &n) || n > KLOG_DUMP_N_MAX)
			return -EINVAL;
	} else if (s[len] && strcmp(s + len, "\n")) {
		return -EINVAL;
	}
	*setting = m | n << 2;
	return 0;
}

static int klog_dump_format_setting(char *s, size_t size)
{
	unsigned long v = READ_ONCE(klog_dump_setting);

	if (v >> 2)
		return scnprintf(s, size, "%s,%lu\n",
				 klog_dump_mode_names[v & 3], v >> 2);
	return scnprintf(s, size, "%s\n", klog_dump_mode_names[v & 3]);
}

static void klog_dump_set(unsigned long v)
{
	WRITE_ONCE(klog_dump_setting, v);
	/* Written again: the next crash dumps, even after an earlier one. */
	atomic_set(&klog_dump_done, 0);
}

static int klog_dump_param_set(const char *val, const struct kernel_param *kp)
{
	unsigned long v;
	int ret = klog_dump_parse(val, &v);

	if (!ret)
		klog_dump_set(v);
	return ret;
}

static int klog_dump_param_get(char *buf, const struct kernel_param *kp)
{
	return klog_dump_format_setting(buf, PAGE_SIZE);
}

static const struct kernel_param_ops klog_dump_param_ops = {
	.set	= klog_dump_param_set,
	.get	= klog_dump_param_get,
};
module_param_cb(dump_on_oops, &klog_dump_param_ops, NULL, 0600);
MODULE_PARM_DESC(dump_on_oops,
		 "print the records on oops and panic: off, cpu or all[,N newest] (default N: 100)");

/* The control file ``dump_on_oops`` (klog_relay_files.c's table). */
void klog_relay_dump_show(struct seq_file *m)
{
	char s[40];

	klog_dump_format_setting(s, sizeof(s));
	seq_puts(m, s);
}

int klog_relay_dump_store(char *s)
{
	unsigned long v;
	int ret = klog_dump_parse(s, &v);

	if (!ret)
		klog_dump_set(v);
	return ret;
}

/*
 * Test hook: test_dump_crash=1 makes the next dump BUG() once it has
 * printed its records, as a fault inside the dump would: the crash
 * matrix's job oops-in-dump checks that the nested crash's notifier ends
 * the dump, says so, and that the panic after it still comes.
 */
static bool klog_dump_test_crash;
module_param_named(test_dump_crash, klog_dump_test_crash, bool, 0600);
MODULE_PARM_DESC(test_dump_crash,
		 "testing: the next dump crashes after printing its records");

/*
 * Test hook: test_dump_late=1 makes the next dump find its time up at
 * its first look at the clock, so that the crash matrix sees a dump stop
 * while it is still counting the records.
 */
static bool klog_dump_test_late;
module_param_named(test_dump_late, klog_dump_test_late, bool, 0600);
MODULE_PARM_DESC(test_dump_late,
		 "testing: the next dump finds its time up at once");

/* ---- the dump ------------------------------------------------------------ */

/*
 * The end of a dump, or of one that a crash inside it abandoned: after
 * an oops the machine goes on, so the staged records move again and the
 * recorder is thawed, unless a trigger froze it meanwhile or it was
 * frozen before the dump (@old). At a panic nothing runs after.
 */
static void klog_dump_end(bool panic, int old)
{
	if (!panic && !(old & KLOG_RECORDER_FROZEN))
		atomic_cmpxchg(&klog_relay.recorder,
			       old | KLOG_RECORDER_FROZEN, old);
	if (!panic)
		klog_relay_nmi_hold(false);
	WRITE_ONCE(klog_dump_owner, -1);
}

/*
 * What anything that changes a buffer inside its write path moves: a
 * record written, a sub-buffer finished or started (a flush switches one
 * without writing a record). Only for a buffer that exists.
 */
static u64 klog_dump_moved(unsigned int cpu)
{
	const struct klog_relay_cpu *st = klog_relay_buf_state(cpu);

	/* relay counts a sub-buffer produced even when the next is full */
	return READ_ONCE(st->written) + READ_ONCE(st->subbuf_seq) +
	       READ_ONCE(klog_dump_rbuf(cpu)->subbufs_produced);
}

/* The recorder's state before the dump froze it, for klog_dump_end(). */
static int klog_dump_old;

static void klog_dump(const char *why, bool panic)
{
	unsigned long setting = READ_ONCE(klog_dump_setting);
	struct klog_relay_trigger_info info;
	int only_cpu = -1, me = raw_smp_processor_id();
	u64 newest = setting >> 2 ?: KLOG_DUMP_N_DEFAULT;
	bool global_quiet, late;
	unsigned int cpu;

	if ((setting & 3) == KLOG_DUMP_OFF)
		return;
	if (atomic_xchg(&klog_dump_done, 1)) {
		if (READ_ONCE(klog_dump_owner) == me) {
			/* This CPU crashed inside its own dump. */
			pr_emerg(KLOG_DUMP_PFX "dump on %s: a crash inside the dump: it ends here\n",
				 why);
			klog_dump_end(panic, klog_dump_old);
			return;
		}
		pr_emerg(KLOG_DUMP_PFX "dump on %s: the records were dumped once already, at an earlier oops\n",
			 why);
		return;
	}
	WRITE_ONCE(klog_dump_owner, me);
	klog_dump_old = atomic_read(&klog_relay.recorder);
	/*
	 * No lock is taken, tried or released here: a die notifier may run
	 * in NMI or hard-IRQ context, or with the scheduler's locks held,
	 * where even a mutex_trylock() that succeeds must not be undone
	 * (mutex_unlock() may wake a waiter). The channel and the site table
	 * are read under RCU instead: destroying the channel waits for a
	 * grace period before it frees the buffers (klog_relay_destroy()),
	 * and a forgotten site table is freed after one. Die and panic
	 * notifiers already run inside an RCU read-side critical section.
	 */
	rcu_read_lock();
	/* Pairs with create:A: the settings it was made with are seen. */
	klog_dump_chan = smp_load_acquire(&klog_relay.chan); /* LMM(dump:C) */
	if (!klog_dump_chan) {
		pr_emerg(KLOG_DUMP_PFX "dump on %s: no channel\n", why);
		goto out;
	}
	if ((setting & 3) == KLOG_DUMP_CPU)
		only_cpu = me;

	/*
	 * Step 1 of DOC: writers from now on count their records frozen,
	 * and leave staged NMI records staged. Guarantees: a writer that
	 * enters the write path once this is visible (drain:H and offer:A
	 * are its loads) writes nothing and moves nothing; one that raced
	 * with it is caught by the check after reading (dump:D). In a
	 * global buffer the lock (step 3) orders them as well.
	 */
	klog_relay_nmi_hold(true);
	klog_dump_old = atomic_fetch_or(KLOG_RECORDER_FROZEN,
					&klog_relay.recorder);	/* LMM(dump:A) */
	/*
	 * Step 5 of DOC. dump:A against reset:A (both fully ordered): the
	 * dump sees the reset's flag, or the reset's thaw sees the dump's
	 * hold. Pairs with reset:B: a reset seen done has cleared all. A
	 * dump that read nothing stays armed.
	 */
	if (smp_load_acquire(&klog_relay.resetting)) {		/* LMM(dump:R) */
		pr_emerg(KLOG_DUMP_PFX "dump on %s: the channel is being reset, not read\n",
			 why);
		klog_dump_end(panic, klog_dump_old);
		atomic_set(&klog_dump_done, 0);
		goto out;
	}
	/* Step 3 of DOC, once: a global buffer's lock (CPU 0's buffer). */
	global_quiet = klog_relay.cfg.global && klog_dump_quiet(0, panic);
	for_each_possible_cpu(cpu) {
		struct klog_dump_buf *d = per_cpu_ptr(&klog_dump_bufs, cpu);
		struct klog_dump_staged *s = per_cpu_ptr(&klog_dump_staged,
							 cpu);
		struct rchan_buf *buf = klog_dump_rbuf(cpu);
		bool quiet;

		memset(d, 0, sizeof(*d));
		memset(s, 0, sizeof(*s));
		/* Steps 2 and 3 of DOC: read after the freeze (dump:A). */
		quiet = klog_relay.cfg.global ? global_quiet :
			klog_dump_quiet(cpu, panic);
		if (klog_dump_has_buf(cpu) && !quiet) {
			pr_emerg(KLOG_DUMP_PFX "buffer %u busy, not read\n", cpu);
		} else if (klog_dump_has_buf(cpu)) {
			d->readable = true;
			d->moved = klog_dump_moved(cpu);
			klog_dump_locate(d, buf);
			klog_dump_rewind(d, buf);
		}
		/*
		 * Step 4 of DOC: the CPU's staged NMI records, read where
		 * they are once nothing can move them out: its drains run in
		 * the write path, seen quiet (and held from now on); at a
		 * panic the CPU is stopped; the dumping CPU's own drain, if
		 * the crash interrupted one, does not go on.
		 */
		if (panic || quiet || cpu == me) {
			s->readable = true;
			klog_relay_nmi_read_begin(cpu, &s->r);
			klog_dump_staged_rewind(s);
		}
	}
	late = READ_ONCE(klog_dump_test_late);
	if (unlikely(late))
		WRITE_ONCE(klog_dump_test_late, false);
	klog_dump_records(why, only_cpu, newest,
			  late ? 0 : KLOG_DUMP_TIME_MAX_NS);
	if (unlikely(READ_ONCE(klog_dump_test_crash))) {
		WRITE_ONCE(klog_dump_test_crash, false);
		BUG();
	}

	for_each_possible_cpu(cpu) {
		struct klog_dump_buf *d = per_cpu_ptr(&klog_dump_bufs, cpu);
		char *line = klog_dump_text;

		if (!klog_dump_has_buf(cpu))
			continue;
		if (d->readable && d->bad)
			pr_emerg(KLOG_DUMP_PFX "buffer %u: %llu sub-buffers cut at a malformed record\n",
				 cpu, d->bad);
		/*
		 * Step 2 of DOC, the check afterwards: a writer whose stores
		 * the dump read is seen inside (write_begin:B), waited for,
		 * and its written count seen (write_end:A, acquired by
		 * dump:B in klog_dump_quiet()).
		 */
		smp_rmb();					/* LMM(dump:D) */
		if (d->readable &&
		    (!klog_dump_quiet(cpu, panic) ||
		     klog_dump_moved(cpu) != d->moved))
			pr_emerg(KLOG_DUMP_PFX "buffer %u changed while read: its lines may be torn\n",
				 cpu);
		klog_relay_stats_line(cpu, klog_dump_rbuf(cpu), line,
				      sizeof(klog_dump_text));
		pr_emerg(KLOG_DUMP_PFX "%s\n", line);
	}
	klog_dump_staged_summary();
	if (klog_relay_last_trigger_info(&info))
		pr_emerg(KLOG_DUMP_PFX "trigger: cpu=%u ts=%llu reason=%s\n", info.cpu,
			 info.ts_ns, info.reason);
	klog_dump_end(panic, klog_dump_old);
out:
	rcu_read_unlock();
	WRITE_ONCE(klog_dump_owner, -1);
	pr_emerg(KLOG_DUMP_PFX "end of dump\n");
}

static int klog_dump_die(struct notifier_block *nb, unsigned long val,
			 void *data)
{
	if (val == DIE_OOPS) {
		/* First: the dump then reads this CPU's buffer too. */
		klog_relay_write_abandon();
		klog_dump("oops", false);
	}
	return NOTIFY_DONE;
}

static int klog_dump_panic(struct notifier_block *nb, unsigned long val,
			   void *data)
{
	klog_dump("panic", true);
	return NOTIFY_DONE;
}

/*
 * Last: a notifier that stops the chain (a debugger) keeps the task
 * alive, and its write path must not have been given up.
 */
static struct notifier_block klog_dump_die_nb = {
	.notifier_call	= klog_dump_die,
	.priority	= INT_MIN,
};

static struct notifier_block klog_dump_panic_nb = {
	.notifier_call	= klog_dump_panic,
};

int klog_relay_dump_init(void)
{
	int ret = register_die_notifier(&klog_dump_die_nb);

	if (ret)
		return ret;
	atomic_notifier_chain_register(&panic_notifier_list,
				       &klog_dump_panic_nb);
	return 0;
}

/* Returns when no dump runs (both unregisters wait for RCU readers). */
void klog_relay_dump_exit(void)
{
	atomic_notifier_chain_unregister(&panic_notifier_list,
					 &klog_dump_panic_nb);
	unregister_die_notifier(&klog_dump_die_nb);
}
