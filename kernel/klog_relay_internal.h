/* SPDX-License-Identifier: GPL-2.0 */
/*
 * klog-mod: state shared by the parts of the klog relay handler
 *
 * The parts, bottom up: each file calls only the parts listed before it,
 * never one listed after it.
 *
 *   klog_relay.c           the shared state (klog_relay, klog_relay_cpu)
 *                          and the counters' sums and stats line (design
 *                          overview); with this header, the bottom layer
 *   klog_relay_record.c    records laid out in a buffer: the inline
 *                          builders (klog_relay_record.h) and what the NMI
 *                          staging area takes from them, out of line
 *   klog_relay_recorder.c  the flight recorder: trigger, freeze and thaw
 *   klog_relay_nmi.c       the per-CPU NMI staging areas: records made in
 *                          NMI context, moved into the buffers by an
 *                          irq_work or the next write
 *   klog_relay_write.c     the write path: records (and COMM records)
 *                          built in place, numbered, written or counted
 *   klog_relay_subbuf.c    sub-buffer boundaries: headers, padding, the
 *                          drops a header reports; flush, snapshot
 *                          positions
 *   klog_relay_chan.c      the channel's life cycle (create, destroy,
 *                          enable, reset) and the relay callbacks
 *   klog_relay_dump*.c     the records printed on oops and panic (their
 *                          parts: klog_relay_dump.h)
 *   klog_relay_files.c     the control files and stats
 *   klog_relay_main.c      module init and exit
 */
#ifndef KLOG_MOD_H
#define KLOG_MOD_H

#include <linux/klog.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/relay.h>
#include <linux/sizes.h>
#include <linux/spinlock.h>
#include <uapi/linux/klog_relay.h>

#define KLOG_RELAY_SUBBUF_MIN	SZ_1K
#define KLOG_RELAY_SUBBUF_MAX	SZ_64M
#define KLOG_RELAY_NSUBBUF_MIN	2
#define KLOG_RELAY_NSUBBUF_MAX	SZ_64K
#define KLOG_RELAY_BUF_MAX	SZ_1G
#define KLOG_RELAY_REASON_MAX	64

/* The core's record flags that the stream carries (KLOG_REC_* twins). */
#define KLOG_RELAY_FLAGS	(KLOG_RELAY_TRUNCATED | KLOG_RELAY_TRIGGER)

/*
 * Per buffer: one per CPU, or only CPU 0's for a global buffer. The
 * counters of a per-CPU buffer change only on its CPU with interrupts
 * off; those of a global buffer under klog_relay.global_lock. Some
 * fields are per calling CPU in both modes: nmi (an NMI may count one at
 * any time, with this_cpu_inc(), word-sized so that it is one instruction
 * on 32-bit x86 too), reentered (word-sized too: a global buffer's stats
 * sum every CPU's, which a 32-bit reader could see torn were it u64),
 * in_write (klog_relay_write_begin()) and
 * the CPU's NMI staging area positions nmi_reserved, nmi_head and
 * nmi_tail and its count of stagings in progress, nmi_writers (word-sized:
 * NMIs, and the #MC, #DB and #BP that nest inside them, reserve with
 * this_cpu_cmpxchg() and store nmi_head; the CPU's drain stores nmi_tail,
 * each one store that the other side may interrupt or be interrupted by;
 * klog_relay_nmi.c).
 */
struct klog_relay_cpu {
	u64	seq;		/* records offered: written or dropped */
	u64	written;
	u64	full;		/* dropped: all sub-buffers unread, no buffer */
	u64	big;		/* dropped: larger than a sub-buffer */
	unsigned long nmi;	/* dropped: NMI staging area full or too small (per CPU) */
	unsigned long reentered;	/* dropped: made inside the write path */
	u64	frozen;		/* dropped: recorder frozen */
	u64	folded;		/* nmi + reentered given sequence numbers */
	unsigned long drops_folded;	/* nmi + reentered when folded last */
	u64	nest_base;	/* klog_nest_dropped() when enabled */
	u64	nest;		/* nest drops of earlier enabled periods */
	u64	lost_reported;	/* drops already in sub-buffer headers */
	u64	subbuf_seq;	/* sub-buffers started */
	u64	next_ts;	/* timestamp of the record being written */
	int	last_task;	/* klog_relay_task() of the last record written */
	size_t	snap_pos;	/* subbufs_produced at the last snapshot */
	u64	snap_ts;	/* local_clock() at the last snapshot */
	size_t	max_backlog;
	bool	in_write;	/* this CPU is inside the write path */
	unsigned long nmi_reserved;	/* NMI staging: bytes reserved, ever */
	unsigned long nmi_head;	/* NMI staging: bytes staged, ever */
	unsigned long nmi_tail;	/* NMI staging: bytes moved out, ever */
	unsigned long nmi_writers;	/* NMI stagings in progress here */
};

/*
 * last_task of a sub-buffer that holds no record yet: never a task
 * (klog_relay_task() gives a pid > 0, or -1 - cpu for pid 0).
 */
#define KLOG_RELAY_NO_TASK	0

/*
 * One entry of a CPU's NMI staging area (klog_relay_nmi.c): this header,
 * then @size bytes of a record built by klog_relay_build_rec() as the
 * write path would have built it in the buffer (its seq is filled in
 * when it is moved there), the entry padded to KLOG_RELAY_STAGED_ALIGN
 * bytes. @comm is what a COMM record in front of it needs from the NMI's
 * moment (its pid is the record's): whether one goes in is decided when
 * the record is moved, by the write path's rule (klog_relay_reserve()).
 * A record that would be dropped for a cause the NMI can tell (@drop)
 * is staged without its bytes, so that its drop is counted in order.
 */
struct klog_relay_staged {
	u32	size;		/* record bytes; KLOG_RELAY_STAGED_WRAP: none */
	u32	drop;		/* KLOG_RELAY_STAGED_* */
	u64	ts_ns;		/* the record's timestamp, taken at the NMI */
	char	comm[KLOG_RELAY_COMM_LEN]; /* current->comm at the NMI */
};

#define KLOG_RELAY_STAGED_ALIGN	16
#define KLOG_RELAY_STAGED_WRAP	U32_MAX	/* the area's end: go on at 0 */
#define KLOG_RELAY_STAGED_OK	0	/* write it */
#define KLOG_RELAY_STAGED_BIG	1	/* larger than a sub-buffer */
#define KLOG_RELAY_STAGED_FROZEN 2	/* made while the recorder was frozen */

/* Channel settings, applied at create. */
struct klog_relay_config {
	size_t	subbuf_size;
	size_t	n_subbufs;
	bool	overwrite;	/* flight recorder: reuse the oldest */
	bool	global;		/* one buffer for all CPUs */
};

/*
 * klog_relay.recorder: the recorder's state, one atomic word, so that a
 * trigger (any context) and a thaw (klog_relay.ctl_lock) never see half
 * of the other's change. FROZEN: records are counted, not written. ARMED: the
 * next trigger freezes. BUSY: a trigger is filling klog_relay.last_trigger.
 * INFO: klog_relay.last_trigger is complete and describes the trigger that
 * froze the recorder (shown while not re-armed).
 */
#define KLOG_RECORDER_FROZEN	0x1
#define KLOG_RECORDER_ARMED	0x2
#define KLOG_RECORDER_BUSY	0x4
#define KLOG_RECORDER_INFO	0x8

/* The last klog_trigger() seen while armed. */
struct klog_relay_trigger_info {
	u64	ts_ns;
	u32	cpu;
	char	reason[KLOG_RELAY_REASON_MAX];
};

DECLARE_PER_CPU(struct klog_relay_cpu, klog_relay_cpu);

/*
 * The handler's state, one instance (klog_relay). The write path reads
 * @chan, @cfg and @recorder; @global_lock has its own cache line, which
 * only writers to a global buffer take.
 */
struct klog_relay {
	struct mutex		ctl_lock;	/* control files, channel */
	struct rchan		*chan;		/* NULL when there is none */
	struct klog_relay_config cfg;		/* what @chan was made with */
	struct klog_relay_config next_cfg;	/* for the next create */
	bool			enabled;	/* the handler is registered */
	bool			resetting;	/* a reset clears the buffers */
	atomic_t		recorder;	/* KLOG_RECORDER_* */
	struct klog_relay_trigger_info last_trigger;
	struct dentry		*dir;		/* /sys/kernel/debug/klog */
	raw_spinlock_t		global_lock ____cacheline_aligned_in_smp;
						/* writers of a global buffer */
	int			global_owner;	/* its holder's CPU, or -1 */
};

extern struct klog_relay klog_relay;
extern struct klog_handler klog_relay_handler;

/* klog_relay.c */
u64 klog_relay_all_drops(unsigned int buf_cpu);
void klog_relay_stats_line(unsigned int cpu, struct rchan_buf *buf, char *s,
			   size_t size);

/* klog_relay_record.c */
size_t klog_relay_rec_size(const struct rchan *chan,
			   const struct klog_record *rec);
void klog_relay_build_staged(void *dst, const struct klog_record *rec,
			     size_t size);
void klog_relay_offer_staged(struct rchan_buf *buf, struct klog_relay_cpu *st,
			     const struct klog_relay_staged *e);

/* klog_relay_subbuf.c */
int klog_relay_subbuf_start(struct rchan_buf *buf, void *subbuf,
			    void *prev_subbuf, size_t prev_padding);
void klog_relay_flush(bool snapshot);
u64 klog_relay_drops(unsigned int buf_cpu);

/* klog_relay_recorder.c */
void klog_relay_trigger(struct klog_handler *h,
			const struct klog_record *rec);
void klog_relay_freeze(bool frozen);
bool klog_relay_last_trigger_info(struct klog_relay_trigger_info *info);

/* klog_relay_write.c */
void klog_relay_write_abandon(void);

/* klog_relay_chan.c, all with klog_relay.ctl_lock held */
int klog_relay_create(void);
void klog_relay_destroy(void);
int klog_relay_set_enabled(bool on);
int klog_relay_reset(void);

/* klog_relay_nmi.c */
int klog_relay_nmi_init(void);
void klog_relay_nmi_exit(void);
void klog_relay_nmi_stage(struct rchan *chan, const struct klog_record *rec);
void klog_relay_nmi_drain(unsigned int cpu, struct rchan_buf *buf,
			  struct klog_relay_cpu *st);
void klog_relay_nmi_sync(void);
void klog_relay_nmi_hold(bool hold);
unsigned int klog_relay_nmi_wait_released(void);
void klog_relay_drain_local(void);

/*
 * A reader of a CPU's staging area for the oops/panic dump: positions
 * read once (klog_relay_nmi_read_begin()), the cursor, and what is there.
 */
struct klog_relay_nmi_reader {
	unsigned int	cpu;
	unsigned long	tail, head;	/* nmi_tail, nmi_head when read */
	unsigned long	pos;		/* the next entry */
	u32		records;	/* staged records, with their bytes */
	u32		frozen;		/* staged as frozen drops */
	u32		big;		/* staged as too big */
	bool		bad;		/* a malformed entry ends the reading */
};

#define KLOG_RELAY_NMI_MOVED	1	/* records moved out while read */
#define KLOG_RELAY_NMI_ADDED	2	/* records staged while read */

void klog_relay_nmi_read_begin(unsigned int cpu,
			       struct klog_relay_nmi_reader *r);
const u8 *klog_relay_nmi_read_next(struct klog_relay_nmi_reader *r,
				   struct klog_rec_hdr *hdr, const char **comm);
int klog_relay_nmi_read_changed(const struct klog_relay_nmi_reader *r);

/* Records are staged in @cpu_st's NMI staging area, not yet moved. */
static inline bool klog_relay_nmi_pending(const struct klog_relay_cpu *cpu_st)
{
	return READ_ONCE(cpu_st->nmi_head) != cpu_st->nmi_tail;
}

/* klog_relay_files.c */
int klog_relay_files_init(struct dentry *dir);
void klog_relay_files_exit(struct dentry *dir);

/* klog_relay_dump.c */
struct seq_file;
int klog_relay_dump_init(void);
void klog_relay_dump_exit(void);
void klog_relay_dump_show(struct seq_file *m);
int klog_relay_dump_store(char *s);

/*
 * A global buffer's lock, taken inside the write path, interrupts off.
 * Its holder's CPU is kept beside it, on its cache line: an oops that
 * gives the write path up (klog_relay_write_abandon()) releases the lock
 * only if this CPU holds it.
 */
static __always_inline void klog_relay_global_lock(void)
{
	raw_spin_lock(&klog_relay.global_lock);
	WRITE_ONCE(klog_relay.global_owner, smp_processor_id());
}

static __always_inline void klog_relay_global_unlock(void)
{
	WRITE_ONCE(klog_relay.global_owner, -1);
	raw_spin_unlock(&klog_relay.global_lock);
}

static inline struct klog_subbuf_hdr *klog_relay_subbuf_hdr(void *subbuf)
{
	return subbuf;
}

static inline bool klog_relay_frozen(void)
{
	return atomic_read(&klog_relay.recorder) & KLOG_RECORDER_FROZEN;
}

/* The state that accounts for buffer @buf_cpu. */
static inline struct klog_relay_cpu *
klog_relay_buf_state(unsigned int buf_cpu)
{
	return per_cpu_ptr(&klog_relay_cpu,
			   klog_relay.cfg.global ? 0 : buf_cpu);
}

/*
 * Enter the write path on this CPU; interrupts off. False if this CPU is
 * already inside it: the record was made by code the write path called
 * (a tracepoint, a printk turned into klog records, a test hook) and is
 * counted as reentered, never written mid-switch, never deadlocked on
 * klog_relay.global_lock. Only this CPU stores in_write (or, once it is
 * offline, a flush of its buffer: klog_relay_flush_once()); the oops
 * dump reads it from another CPU.
 */
static __always_inline bool klog_relay_write_begin(struct klog_relay_cpu *me)
{
	if (unlikely(me->in_write)) {
		me->reentered++;
		return false;
	}
	WRITE_ONCE(me->in_write, true);			/* LMM(write_begin:A) */
	/*
	 * Guarantees: an oops dump that reads any store of this write path
	 * (a record's bytes, relay's positions, a staging area's tail) also
	 * reads in_write set, or later clear with the buffer's written count
	 * moved: it then says the buffer changed while it was read. No full
	 * barrier: a writer that enters as a dump starts may miss the freeze
	 * and the NMI hold (offer:A and drain:H may pass this store), and the
	 * dump may miss it at first; the dump's check afterwards (dump:D)
	 * catches it. Every record pays only this store and a write barrier
	 * (a compiler barrier on x86), not a full fence.
	 *
	 * Pairs with: dump:D (smp_rmb() after the dump read the buffer,
	 * before it reads in_write and written again) in klog_relay_dump.c.
	 *
	 * Relies on: every store into a buffer or out of a staging area
	 * coming after this one in program order.
	 */
	smp_wmb();					/* LMM(write_begin:B) */
	return true;
}

static __always_inline void klog_relay_write_end(struct klog_relay_cpu *me)
{
	/* Pairs with dump:B: the write path's stores are seen with it. */
	smp_store_release(&me->in_write, false);	/* LMM(write_end:A) */
}

/*
 * Store the current sub-buffer's padding in its header before relay
 * counts it produced; a no-op if the buffer is full (the sub-buffer was
 * finished when it filled). No barrier here: relay publishes
 * subbufs_produced with smp_store_release() (relay-races patch), which
 * orders this store and every record before it (see Memory barriers in
 * klog_relay_write.c).
 */
static inline void klog_relay_finish_subbuf(struct rchan_buf *buf)
{
	size_t size = buf->chan->subbuf_size;

	if (buf->offset > size)
		return;
	klog_relay_subbuf_hdr(buf->data)->padding =
		size - buf->offset;		/* LMM(finish_subbuf:A) */
}

#endif /* KLOG_MOD_H */
