// SPDX-License-Identifier: GPL-2.0
/*
 * reserve-mod - the kernel half of the relay-apps "reserve" pair
 *
 * What it teaches: writing records in place with relay_reserve(), and
 * the commit count that a client of relay_reserve() has to keep itself.
 * relay_write() copies a record built elsewhere; relay_reserve() only
 * moves the buffer's write position and returns where the record goes.
 * Relay does not know when the record has been written, and it does
 * nothing against an interrupt that writes on the same CPU in between.
 * So this module keeps two counts in a header at the start of every
 * sub-buffer (reserve.h):
 *
 *   reserved:  bytes of records handed out in the sub-buffer. Added by
 *              reserve_begin() on the buffer's CPU with interrupts off,
 *              around relay_reserve() (which moves the write position
 *              in several steps: an interrupt writer in the middle
 *              would be given the same bytes).
 *   committed: bytes of those records completely written. Added by
 *              reserve_commit(), an atomic add with release ordering,
 *              once the writer has filled its record with interrupts
 *              on. Commits come in any order: here every task record
 *              has a hard-IRQ record reserved and committed while it
 *              is open.
 *
 * A finished (produced) sub-buffer is complete once committed ==
 * reserved. Readers take complete sub-buffers only: the reserve
 * program with mmap(), read(2) of cpuN through reserve_subbuf_used().
 * The channel is in no-overwrite mode, so a sub-buffer is reused only
 * after the reader consumed it, when no writer is left in it.
 *
 * /sys/kernel/debug/reserve holds relay's cpuN, cpuN.produced and
 * cpuN.consumed, and the relay-apps control files: subbuf_size and
 * n_subbufs (for the next create), create (1: make the channel, EBUSY
 * if there is one; 0: destroy it), enabled (0 also waits for a running emit and flushes)
 * and dropped (records refused: buffer full). Traffic on request:
 * "echo N > emit" writes N task records and N hard-IRQ records on every
 * online CPU and returns when all are written. With hold_ms set, each
 * CPU's last task record is committed hold_ms after its sub-buffer was
 * finished: readers must wait for it.
 *
 * For the real thing, see klog's relay handler (kernel/klog_relay*.c),
 * which builds its records in place another way, and tools/klog.
 */
#include <linux/atomic.h>
#include <linux/cpu.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/irq_work.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/relay.h>
#include <linux/sizes.h>
#include <linux/workqueue.h>
#include "reserve.h"

static struct dentry *dir;
static struct rchan *chan;		/* NULL while there is none */
static bool enabled;
static u64 subbuf_size = SZ_256K, n_subbufs = 4;
static u32 hold_ms;
static unsigned int emit_count;
static DEFINE_PER_CPU(struct work_struct, emit_works);
/* Serializes the control files; an emit holds it while it runs. */
static DEFINE_MUTEX(lock);

struct reserve_cpu {
	u64	seq;		/* records offered: reserved or dropped */
	u64	dropped;
};

static DEFINE_PER_CPU(struct reserve_cpu, cpu_state);

/* One record, from reserve_begin() to reserve_commit(). */
struct slot {
	struct reserve_rec	*rec;
	struct reserve_subbuf_hdr *hdr;	/* of the sub-buffer holding it */
	u64			seq;
	u32			size;
	u16			cpu;
};

/* The header's commit count: a __u32 for readers, an atomic_t here. */
static atomic_t *committed(struct reserve_subbuf_hdr *hdr)
{
	BUILD_BUG_ON(sizeof(atomic_t) != sizeof(hdr->committed));
	return (atomic_t *)&hdr->committed;
}

/*
 * Reserve this CPU's next record. It takes the next sequence number
 * even when the buffer is full (the record is then dropped and
 * counted), so loss leaves a gap. Any context but NMI.
 */
static bool reserve_begin(struct slot *s)
{
	struct reserve_cpu *st;
	unsigned long flags;

	local_irq_save(flags);
	st = this_cpu_ptr(&cpu_state);
	s->seq = st->seq++;
	s->cpu = smp_processor_id();
	s->size = reserve_rec_size(s->seq);
	s->rec = relay_reserve(chan, s->size);
	if (s->rec) {
		/* relay_reserve() may have switched: this is the new header */
		s->hdr = (*this_cpu_ptr(chan->buf))->data;
		/*
		 * Final when relay counts the sub-buffer produced, later and
		 * with release (kernel/relay.c): on this CPU, or at a flush
		 * after the writers are done. A reader that sees it produced
		 * sees this store.
		 */
		WRITE_ONCE(s->hdr->reserved, s->hdr->reserved + s->size);
	} else {
		st->dropped++;
	}
	local_irq_restore(flags);
	return s->rec;
}

static void reserve_commit(const struct slot *s)
{
	/* Release: the record's bytes before the count a reader acquires. */
	atomic_add_return_release(s->size, committed(s->hdr));
}

/* The record's contents, written in place with interrupts on. */
static void fill(const struct slot *s, u8 ctx)
{
	struct reserve_rec *r = s->rec;
	u8 *payload = (u8 *)(r + 1);
	u32 i;

	*r = (struct reserve_rec) {
		.size	= s->size,
		.cpu	= s->cpu,
		.ctx	= ctx,
		.seq	= s->seq,
	};
	for (i = 0; i < s->size - sizeof(*r); i++)
		payload[i] = (u8)(s->seq * 31 + i);
	r->csum = reserve_csum(r);
}

/*
 * relay calls this for a buffer's first sub-buffer and at each switch
 * (on the buffer's CPU, interrupts off, or before any writer). A full
 * buffer refuses: the reserve that needed a new sub-buffer fails. A
 * free sub-buffer has been consumed, so all its records were
 * committed and no writer is left in it: plain stores reset it.
 */
static int reserve_subbuf_start(struct rchan_buf *buf, void *subbuf,
				void *prev_subbuf, size_t prev_padding)
{
	struct reserve_subbuf_hdr *hdr = subbuf;

	if (relay_buf_full(buf))
		return 0;
	hdr->reserved = 0;
	atomic_set(committed(hdr), 0);
	subbuf_start_reserve(buf, sizeof(*hdr));
	return 1;
}

/*
 * read(2) of cpuN (relay_subbuf_file_operations): how much of finished
 * sub-buffer @subbuf to return, or -EAGAIN while a record in it is
 * still being written (read(2) then stops before it). relay loaded the
 * produced count with acquire, so the reserved count is final.
 */
static long reserve_subbuf_used(struct rchan_buf *buf, void *subbuf)
{
	struct reserve_subbuf_hdr *hdr = subbuf;
	u32 reserved = READ_ONCE(hdr->reserved);

	if (atomic_read_acquire(committed(hdr)) != reserved)
		return -EAGAIN;
	return sizeof(*hdr) + reserved;
}

/* relay-apps boilerplate: cpuN, with cpuN.produced and cpuN.consumed */
static struct dentry *reserve_create_buf_file(const char *filename, struct dentry *parent,
					      umode_t mode, struct rchan_buf *buf, int *is_global)
{
	return relay_debugfs_create_files(filename, parent, mode, buf,
					  &relay_subbuf_file_operations);
}

static const struct rchan_callbacks reserve_callbacks = {
	.subbuf_start		= reserve_subbuf_start,
	.create_buf_file	= reserve_create_buf_file,
	.remove_buf_file	= relay_debugfs_remove_files,
	.subbuf_used		= reserve_subbuf_used,
};

/* ---- traffic on request ------------------------------------------------ */

/* The hard-IRQ writer: an irq_work, run while a task record is open. */
static void emit_irq(struct irq_work *work)
{
	struct slot s;

	if (reserve_begin(&s)) {
		fill(&s, RESERVE_CTX_HARDIRQ);
		reserve_commit(&s);
	}
}

/* On every online CPU, in a kworker bound to it. */
static void emit_work(struct work_struct *work)
{
	struct irq_work irq = IRQ_WORK_INIT_HARD(emit_irq);
	unsigned int i, hold = min(READ_ONCE(hold_ms), 10000U);
	struct slot s;
	bool ok;

	for (i = 0; i < emit_count && READ_ONCE(enabled); i++) {
		ok = reserve_begin(&s);
		/* A hard-IRQ record on this CPU, now: after ours, done first */
		irq_work_queue(&irq);
		irq_work_sync(&irq);
		if (ok && hold && i == emit_count - 1) {
			/* Our sub-buffer finished with our record still open */
			local_irq_disable();
			relay_switch_subbuf(*this_cpu_ptr(chan->buf), 0);
			local_irq_enable();
			msleep(hold);
		}
		if (ok) {
			fill(&s, RESERVE_CTX_TASK);
			reserve_commit(&s);
		}
		cond_resched();
	}
}

static int emit_set(void *data, u64 val)
{
	int cpu;

	if (!val || val > 1000000)
		return -EINVAL;
	guard(mutex)(&lock);
	if (!enabled)
		return -ENODEV;
	emit_count = val;
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		INIT_WORK(per_cpu_ptr(&emit_works, cpu), emit_work);
		schedule_work_on(cpu, per_cpu_ptr(&emit_works, cpu));
	}
	for_each_online_cpu(cpu)
		flush_work(per_cpu_ptr(&emit_works, cpu));
	cpus_read_unlock();
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(emit_fops, NULL, emit_set, "%llu\n");

/* ---- control files ----------------------------------------------------- */

static int create_get(void *data, u64 *val)
{
	*val = !!READ_ONCE(chan);
	return 0;
}

static int create_set(void *data, u64 val)
{
	int cpu, ret;

	if (val > 1)
		return -EINVAL;
	guard(mutex)(&lock);
	/* A channel is closed first: never another collector's, replaced. */
	if (enabled || (val && chan))
		return -EBUSY;
	if (chan) {
		relay_close(chan);
		WRITE_ONCE(chan, NULL);
	}
	if (!val)
		return 0;
	ret = relay_check_size(subbuf_size, n_subbufs, num_possible_cpus());
	if (ret)
		return ret;
	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(&cpu_state, cpu), 0, sizeof(struct reserve_cpu));
	chan = relay_open("cpu", dir, subbuf_size, n_subbufs,
			  &reserve_callbacks, NULL);
	return chan ? 0 : -ENOMEM;
}
DEFINE_DEBUGFS_ATTRIBUTE(create_fops, create_get, create_set, "%llu\n");

static int enabled_get(void *data, u64 *val)
{
	*val = READ_ONCE(enabled);
	return 0;
}

static int enabled_set(void *data, u64 val)
{
	if (val > 1)
		return -EINVAL;
	if (!val) {
		/* An emit stops at its next record; wait for it to return. */
		WRITE_ONCE(enabled, false);
		guard(mutex)(&lock);
		/* No writer is left: every record is committed. */
		if (chan)
			relay_flush(chan);
		return 0;
	}
	guard(mutex)(&lock);
	if (!chan)
		return -ENODEV;
	WRITE_ONCE(enabled, true);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(enabled_fops, enabled_get, enabled_set, "%llu\n");

static int size_get(void *data, u64 *val)
{
	*val = *(u64 *)data;
	return 0;
}

/* A size for the next create: -EBUSY while a channel exists. */
static int size_set(u64 *size, u64 val, u64 min, u64 max)
{
	if (val < min || val > max)
		return -EINVAL;
	guard(mutex)(&lock);
	if (chan)
		return -EBUSY;
	*size = val;
	return 0;
}

static int subbuf_size_set(void *data, u64 val)
{
	return val % 8 ? -EINVAL : size_set(data, val, SZ_1K, SZ_64M);
}
DEFINE_DEBUGFS_ATTRIBUTE(subbuf_size_fops, size_get, subbuf_size_set, "%llu\n");

static int n_subbufs_set(void *data, u64 val)
{
	return size_set(data, val, 2, SZ_64K);
}
DEFINE_DEBUGFS_ATTRIBUTE(n_subbufs_fops, size_get, n_subbufs_set, "%llu\n");

static int dropped_get(void *data, u64 *val)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(&cpu_state, cpu)->dropped);
	*val = sum;
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(dropped_fops, dropped_get, NULL, "%llu\n");

static int __init reserve_init(void)
{
	dir = debugfs_create_dir("reserve", NULL);
	if (IS_ERR(dir))
		return PTR_ERR(dir);
	debugfs_create_file_unsafe("subbuf_size", 0600, dir, &subbuf_size,
				   &subbuf_size_fops);
	debugfs_create_file_unsafe("n_subbufs", 0600, dir, &n_subbufs,
				   &n_subbufs_fops);
	debugfs_create_file_unsafe("create", 0600, dir, NULL, &create_fops);
	debugfs_create_file_unsafe("enabled", 0600, dir, NULL, &enabled_fops);
	debugfs_create_file_unsafe("dropped", 0400, dir, NULL, &dropped_fops);
	debugfs_create_file_unsafe("emit", 0200, dir, NULL, &emit_fops);
	debugfs_create_u32("hold_ms", 0600, dir, &hold_ms);
	return 0;
}

/* No control file is open (each holds a module reference): no writer. */
static void __exit reserve_exit(void)
{
	if (chan)
		relay_close(chan);	/* removes cpuN* from the directory */
	debugfs_remove_recursive(dir);
}

module_init(reserve_init);
module_exit(reserve_exit);
MODULE_DESCRIPTION("relay-apps reserve: records written in place with relay_reserve() and commit counts");
MODULE_LICENSE("GPL");
