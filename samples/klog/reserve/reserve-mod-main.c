// SPDX-License-Identifier: GPL-2.0
/*
 * reserve-mod: zero-copy relay writes with relay_reserve() and commit counts
 *
 * Copyright (C) 2026 The klog authors
 */

/**
 * DOC: reserve relay-apps example overview
 *
 * The kernel half of the relay-apps "reserve" pair. relay_write() copies
 * a record that the caller has already built somewhere else; a client
 * that builds records directly in the relay buffer saves that copy, and
 * relay_reserve() is the call for it: it only advances the buffer's
 * offset and returns where the record goes. relay gives it nothing else:
 * no protection against an interrupt writer on the same CPU, and no
 * commit step, so nobody knows when the reserved bytes have been written.
 * This module adds both, in the smallest way that is correct, and shows
 * a reader that takes only what was completely written.
 *
 * Data structure
 * --------------
 *
 * One relay buffer per CPU, /sys/kernel/debug/reserve/cpuN, of n_subbufs
 * sub-buffers in no-overwrite mode (a full buffer refuses records, and
 * counts them). Every sub-buffer starts with a struct reserve_subbuf_hdr,
 * reserved with subbuf_start_reserve(), that carries two byte counts
 * (see reserve-format.h)::
 *
 *	+--------------------------------------------------------------+
 *	| hdr: reserved=R committed=C | rec | rec | rec ...  | padding |
 *	+--------------------------------------------------------------+
 *	        <------------------- R bytes ------------->
 *
 * R: bytes of records handed out in this sub-buffer, changed only by the
 * buffer's CPU with interrupts off. C: bytes of those records completely
 * written, an atomic add by each writer when it is done, from any CPU.
 *
 * Reserve and commit
 * ------------------
 *
 * reserve_begin() runs with interrupts off on the local CPU for as long
 * as relay_reserve() and the accounting take, a few dozen instructions
 * whatever the record size (plus, once per sub-buffer, relay's switch
 * and reserve_subbuf_start()): take the CPU's next record sequence
 * number and a timestamp, relay_reserve(), add the size to R. The caller
 * then fills the record in place with interrupts on; it may even sleep,
 * or move to another CPU. reserve_commit() adds the size to C with
 * release ordering. No lock is held and nothing is disabled between the
 * two calls; a writer only has to be one that ``enabled=0`` waits for
 * (here: emit, which holds reserve_writers for reading).
 *
 * An interrupt on the same CPU while a task is between reserve and
 * commit is an ordinary writer: relay_reserve() gives it the bytes after
 * the task's record (the offset had moved before interrupts came back on),
 * it fills and commits its own record, and returns; the task commits its
 * record later. Commits thus happen in any order, and C only equals R
 * again when every record of the sub-buffer is written. The interrupt
 * cannot run in the middle of relay_reserve() or of the accounting:
 * interrupts are off there. Such a record is flagged RESERVE_REC_NESTED
 * and counted (``nested``).
 *
 * When a sub-buffer fills, relay counts it produced: the bytes it holds
 * are final (R no longer changes) but not necessarily written. A
 * sub-buffer is complete when it is produced and C == R. R was stored
 * before relay's subbufs_produced++ (a write barrier in reserve_begin()),
 * so a reader that sees the sub-buffer produced sees its final R; it then
 * loads C with acquire ordering, and if C == R every record's bytes are
 * visible to it. If not, it waits: the missing commits come from writers
 * that are still running. A reader consumes (cpuN.consumed) only complete
 * sub-buffers, and the writer does not reuse a sub-buffer before it is
 * consumed, so a late writer never writes into a reused sub-buffer, and
 * reserve_subbuf_start() can reset C of a reused one with a plain store.
 *
 * ``enabled=0`` stops the writers and waits for every writer between
 * reserve and commit (reserve_writers), then flushes: after it, every
 * produced sub-buffer is complete. A flush runs on each buffer's CPU in
 * an IPI, with interrupts off, so it never splits relay_reserve().
 *
 * Usage
 * -----
 *
 * A writer::
 *
 *	struct reserve_slot slot;
 *
 *	if (reserve_begin(&reserve_main, size, 0, &slot)) {
 *		fill(slot.rec, size);		// interrupts on
 *		reserve_commit(&slot);
 *	}
 *
 * An mmap reader of one buffer (the ``reserve`` collector does this)::
 *
 *	produced = read(cpuN.produced);
 *	for (; consumed < produced; consumed++) {
 *		hdr = map + (consumed % n_subbufs) * subbuf_size;
 *		while (atomic_load_acquire(&hdr->committed) != hdr->reserved)
 *			sleep a little;		// a writer is still at it
 *		use(hdr, hdr->hdr_size + hdr->reserved);
 *		write(cpuN.consumed, 1);
 *	}
 *
 * read(2) of cpuN does the same in the kernel: it returns complete
 * sub-buffers only, without padding, and stops (returns what it has, or
 * 0) before one that is not yet complete, counting it (``incomplete``);
 * poll() still reports it readable, so readers retry after a timeout.
 *
 * Control files
 * -------------
 *
 * In /sys/kernel/debug/reserve/, all root-only, one table of
 * kernel/klog_relay_ctl.h in reserve-mod-files.c. Booleans take exactly "0" or
 * "1"; any bad value is -EINVAL and changes nothing. A write must be one
 * write(2) at offset 0 of fewer than 256 bytes (else -EINVAL, -E2BIG);
 * writes to the read-only files fail with -EPERM.
 *
 * ``subbuf_size``, ``n_subbufs`` (rw)
 *	Sizes for the next ``create``: sub-buffer size a multiple of 8 in
 *	[RESERVE_SUBBUF_MIN, RESERVE_SUBBUF_MAX], count in
 *	[RESERVE_NSUBBUF_MIN, RESERVE_NSUBBUF_MAX] (-EINVAL outside;
 *	-ENOMEM when a buffer would exceed RESERVE_BUF_MAX or all of them a
 *	quarter of RAM); -EBUSY while a channel exists.
 * ``create`` (rw)
 *	1 (re)creates the channel, 0 destroys it; -EBUSY while enabled.
 * ``enabled`` (rw)
 *	1 lets writers in (-ENODEV without a channel); 0 stops them, waits
 *	for the ones between reserve and commit, and flushes.
 * ``flush`` (w)
 *	"1": finish every buffer's current sub-buffer (-ENODEV: no channel).
 * ``dropped``, ``stats`` (r)
 *	Records dropped (full + big), all CPUs; per CPU: sub-buffers
 *	produced and consumed, records offered (sequence numbers taken),
 *	reserved, dropped (full, big), nested and delayed, the sub-buffers
 *	read(2) found incomplete, the largest backlog.
 * ``cpuN``, ``cpuN.produced``, ``cpuN.consumed``
 *	relay's files (relay_debugfs_create_files()). One reader per buffer.
 * ``emit`` (w), ``bench`` (rw)
 *	Traffic on request and the reserve-vs-copy benchmark, see
 *	reserve-mod-emit.c.
 *
 * Limitations
 * -----------
 *
 * - No NMI writers: relay_reserve() is not NMI-safe (an NMI inside the
 *   interrupts-off section would get the same bytes).
 * - A writer that never commits stalls its buffer: the reader waits for
 *   that sub-buffer, then the buffer fills and records are dropped. Only
 *   code that cannot fail or sleep forever may hold a reservation; this
 *   module's writers are its own (emit).
 * - Reserved but not yet written bytes hold whatever the buffer held
 *   before: relay does not zero its pages (6.12). Readers never look at
 *   them, since they wait for the commits.
 * - No overwrite (flight recorder) mode: reusing a sub-buffer nobody
 *   consumed could hand its bytes to a new writer while an old one is
 *   still writing them.
 *
 * Memory barriers
 * ---------------
 *
 * The ordering points are labelled LMM(function:letter) in reserve-mod.h.
 *
 * - reserve_begin:B (smp_wmb() after the store of R, begin:A) orders R
 *   before relay's subbufs_produced++ of the sub-buffer, done by a later
 *   reserve_begin() or flush on the same CPU. Pairs with the acquire
 *   loads of subbufs_produced in relay's cpuN read() and cpuN.produced
 *   (kernel/relay.c): a reader that sees the sub-buffer produced sees
 *   its final R (and its header, stored earlier still).
 * - reserve_commit:A (an atomic add with release ordering to C) orders
 *   the record's bytes before the count. Pairs with the acquire load of
 *   C in reserve_subbuf_used() and in mmap readers: a reader that finds
 *   C == R sees every byte of every record of the sub-buffer.
 * - Reuse: a reader writes cpuN.consumed only after that acquire, so
 *   every writer's stores to the sub-buffer come before
 *   relay_subbufs_consumed(); reserve_subbuf_start() rewrites the header
 *   only after relay_buf_full() read subbufs_consumed and found the
 *   sub-buffer free (a control dependency).
 */

#define pr_fmt(fmt) "reserve-mod: " fmt

#include <linux/cpu.h>
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/smp.h>
#include "reserve-mod.h"

/* Serialises control-file writes and the main channel's life cycle. */
DEFINE_MUTEX(reserve_ctl_lock);
/* Held for reading by each emit while its writers run. */
DECLARE_RWSEM(reserve_writers);
struct reserve_chan reserve_main;
struct reserve_config reserve_next_cfg = {
	.subbuf_size	= SZ_256K,
	.n_subbufs	= 4,
};

bool reserve_enabled;
static struct dentry *reserve_dir;

/*
 * relay calls this for the first sub-buffer of each buffer and then on
 * every switch, with interrupts off (from reserve_begin() or a flush
 * IPI) or, for a new buffer, in process context before any writer can
 * see it. The previous sub-buffer is already counted produced; its
 * reserved count was ordered before that by reserve_begin().
 */
int reserve_subbuf_start(struct rchan_buf *buf, void *subbuf,
			 void *prev_subbuf, size_t prev_padding)
{
	struct reserve_chan *rc = buf->chan->private_data;
	struct reserve_cpu *st = per_cpu_ptr(rc->cpu, buf->cpu);
	struct reserve_subbuf_hdr *hdr = subbuf;
	/* the reader stores subbufs_consumed (relay_subbufs_consumed()) */
	size_t backlog = buf->subbufs_produced - READ_ONCE(buf->subbufs_consumed);
	u64 drops;

	if (backlog > st->max_backlog)
		st->max_backlog = backlog;
	/*
	 * No printk here (nor anywhere a writer calls): relay is between
	 * buf->offset = 0 and the buffer switch, and a printk can deadlock
	 * on a scheduler lock the writer holds. A full buffer shows in stats
	 * (full) and in the next header's lost.
	 */
	if (!rc->overwrite && relay_buf_full(buf))
		return 0;

	drops = st->full + st->big;
	/*
	 * In no-overwrite mode this sub-buffer was consumed, so every
	 * record in it was committed: no writer touches it any more.
	 */
	*hdr = (struct reserve_subbuf_hdr) {
		.magic		= RESERVE_SUBBUF_MAGIC,
		.version	= RESERVE_VERSION,
		.hdr_size	= sizeof(*hdr),
		.cpu		= buf->cpu,
		.seq		= st->subbuf_seq++,
		.lost		= drops - st->lost_reported,
	};
	st->lost_reported = drops;
	subbuf_start_reserve(buf, sizeof(*hdr));
	return 1;
}

/* Finish the current sub-buffer of @buf if it holds records. */
static void reserve_flush_buf(struct rchan_buf *buf)
{
	if (buf->offset > sizeof(struct reserve_subbuf_hdr) &&
	    buf->offset <= buf->chan->subbuf_size)
		relay_switch_subbuf(buf, 0);
}

static void reserve_flush_local(void *info)
{
	struct reserve_chan *rc = info;

	reserve_flush_buf(*this_cpu_ptr(rc->rchan->buf));
}

/**
 * reserve_flush() - finish every buffer's current sub-buffer
 * @rc: the channel
 *
 * Each online CPU flushes its own buffer in an IPI, with interrupts off,
 * so it cannot split a relay_reserve() there (relay_flush() could).
 * Records still being written stay uncommitted in the finished
 * sub-buffer; readers wait for them. Buffers of offline CPUs have no
 * writers.
 *
 * Context: process.
 */
void reserve_flush(struct reserve_chan *rc)
{
	unsigned int cpu;

	cpus_read_lock();
	for_each_possible_cpu(cpu) {
		struct rchan_buf *buf = *per_cpu_ptr(rc->rchan->buf, cpu);

		if (!buf)
			continue;
		if (cpu_online(cpu))
			smp_call_function_single(cpu, reserve_flush_local, rc,
						 1);
		else
			reserve_flush_buf(buf);
	}
	cpus_read_unlock();
}

/**
 * reserve_chan_open() - create a channel and its per-CPU state
 * @rc: the channel, rc->rchan NULL
 * @name: base name of the relay files; NULL for a channel without files
 *	(its buffers then live exactly as long as the channel)
 * @dir: debugfs directory for them, or NULL
 * @subbuf_size: bytes per sub-buffer, a multiple of 8
 * @n_subbufs: sub-buffers per buffer
 * @overwrite: reuse sub-buffers nobody consumed (only when nobody reads)
 *
 * Context: process.
 * Return: 0 or -ENOMEM.
 */
int reserve_chan_open(struct reserve_chan *rc, const char *name,
		      struct dentry *dir, size_t subbuf_size, size_t n_subbufs,
		      bool overwrite)
{
	rc->cpu = alloc_percpu(struct reserve_cpu);
	if (!rc->cpu)
		return -ENOMEM;
	rc->overwrite = overwrite;
	rc->rchan = relay_open(name, dir, subbuf_size, n_subbufs,
			       &reserve_relay_callbacks, rc);
	if (!rc->rchan) {
		free_percpu(rc->cpu);
		rc->cpu = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* Close a channel from reserve_chan_open(); no writer may be active. */
void reserve_chan_close(struct reserve_chan *rc)
{
	relay_close(rc->rchan);
	rc->rchan = NULL;
	free_percpu(rc->cpu);
	rc->cpu = NULL;
}

int reserve_set_enabled(bool on)
{
	lockdep_assert_held(&reserve_ctl_lock);
	if (on == reserve_enabled)
		return 0;
	if (on) {
		if (!reserve_main.rchan)
			return -ENODEV;
		WRITE_ONCE(reserve_enabled, true);
		return 0;
	}
	/* Writers check it before each record; wait for those running. */
	WRITE_ONCE(reserve_enabled, false);
	down_write(&reserve_writers);
	up_write(&reserve_writers);
	reserve_flush(&reserve_main);
	return 0;
}

void reserve_destroy(void)
{
	lockdep_assert_held(&reserve_ctl_lock);
	if (reserve_main.rchan)
		reserve_chan_close(&reserve_main);
}

int reserve_create(void)
{
	int ret;

	lockdep_assert_held(&reserve_ctl_lock);
	reserve_destroy();
	ret = reserve_chan_open(&reserve_main, "cpu", reserve_dir,
				reserve_next_cfg.subbuf_size,
				reserve_next_cfg.n_subbufs, false);
	if (ret)
		pr_err("cannot allocate %zu x %zu byte sub-buffers\n",
		       reserve_next_cfg.n_subbufs, reserve_next_cfg.subbuf_size);
	return ret;
}

static int __init reserve_mod_init(void)
{
	reserve_dir = debugfs_create_dir("reserve", NULL);
	if (IS_ERR(reserve_dir))
		return PTR_ERR(reserve_dir);
	reserve_files_init(reserve_dir);
	return 0;
}

/* No file is open (each holds a module reference): no writer runs. */
static void __exit reserve_mod_exit(void)
{
	mutex_lock(&reserve_ctl_lock);
	reserve_set_enabled(false);
	reserve_destroy();
	mutex_unlock(&reserve_ctl_lock);
	debugfs_remove_recursive(reserve_dir);
	reserve_emit_exit();
}

module_init(reserve_mod_init);
module_exit(reserve_mod_exit);
MODULE_DESCRIPTION("relay-apps reserve: zero-copy writes with relay_reserve() and commit counts");
MODULE_LICENSE("GPL");
