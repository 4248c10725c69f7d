/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * klog_relay.h - the stream format of the klog relay handler
 *
 * The klog relay handler (tools/klog) writes klog records into a
 * relay channel with one buffer per CPU: /sys/kernel/debug/klog/cpuN.
 * Each buffer is a ring of n_subbufs sub-buffers of subbuf_size bytes.
 * Every sub-buffer starts with a struct klog_subbuf_hdr; records follow,
 * each a struct klog_rec_hdr, the payload, and zero padding up to an
 * 8-byte boundary. A record names its call site by the site's id
 * (klog_rec_hdr.site_id); /sys/kernel/debug/klog/sites maps ids to
 * module, file, line, function and format. The unused tail of a finished
 * sub-buffer ("padding") is not data.
 *
 * Readers using read(2) get the sub-buffers back to back without their
 * padding; they tell a sub-buffer header from a record by its first
 * 32-bit word (KLOG_SUBBUF_MAGIC is never a valid record size). Readers
 * using mmap(2) take whole finished sub-buffers (cpuN.produced) and use
 * klog_subbuf_hdr.padding to find where the records end.
 *
 * All fields are in the byte order of the machine that wrote them.
 * Version 3. Version 2 is the same layout without KLOG_RELAY_ARGS
 * records (klog_printk() formatted at the call), read as it is. Version 1
 * (struct klog_rec_hdr_v1: the function name copied into every record,
 * no COMM records) is described at the end, for readers of old
 * collections; a sub-buffer header's version says which layout its
 * records have. A reader refuses a version above the one it knows; one
 * that meets a kind it does not know within a version it knows should
 * show the record as bytes (its size and seq are in its header).
 */
#ifndef _UAPI_LINUX_KLOG_RELAY_H
#define _UAPI_LINUX_KLOG_RELAY_H

#include <linux/types.h>

#define KLOG_RELAY_VERSION	3
#define KLOG_SUBBUF_MAGIC	0x474f4c4b	/* "KLOG" read as LE u32 */
#define KLOG_REC_ALIGN		8

/**
 * DOC: klog relay buffer layout
 *
 * A buffer is a ring of n_subbufs sub-buffers of subbuf_size bytes.
 * Sub-buffer number S (its header's seq, counted from 0 since the channel
 * was created or reset) sits in slot S % n_subbufs of the mmap'ed
 * buffer; the writer fills one slot after the other and, in overwrite
 * mode, laps the ring::
 *
 *   slot 0        slot 1        slot 2              slot n_subbufs - 1
 *   +-------------+-------------+-------------+-----+-------------+
 *   | S = 0, n,   | S = 1, n+1, | S = 2, ...  | ... |             |
 *   | 2n, ...     | 2n+1, ...   |             |     |             |
 *   +-------------+-------------+-------------+-----+-------------+
 *
 * One sub-buffer: its header, the records back to back, and the unused
 * tail of a finished sub-buffer, whose size is the header's padding (0
 * while the sub-buffer is being filled)::
 *
 *   0         hdr_size                                  end       subbuf_size
 *   v         v                                         v         v
 *   +---------+-----------+-----------+-----+-----------+---------+
 *   | subbuf  | record    | record    | ... | record    | padding |
 *   | header  | seq = k   | seq = k+1 |     | seq = k+m | no data |
 *   +---------+-----------+-----------+-----+-----------+---------+
 *
 *   end = subbuf_size - padding
 *
 * One record, klog_rec_hdr.size bytes, a multiple of KLOG_REC_ALIGN::
 *
 *   +--------------+-------------+-----------------+
 *   | klog_rec_hdr | payload     | zeros up to an  |
 *   | (40 bytes)   | (len bytes) | 8-byte boundary |
 *   +--------------+-------------+-----------------+
 *
 * A COMM record (kind KLOG_RELAY_COMM, 56 bytes: the header and
 * KLOG_RELAY_COMM_LEN bytes of task name) names the task of the record
 * after it. The handler writes one in front of a record whose pid differs
 * from the pid of the previous record in the sub-buffer (for pid 0, the
 * idle task of each CPU, also one whose CPU differs: in a global buffer
 * swapper/0 and swapper/1 meet), and in front of the first record of
 * every sub-buffer, so that any sub-buffer read on its own (a snapshot
 * that lost the older ones) names its tasks. A reader names a record by
 * the last COMM record before it in the sub-buffer if its pid matches::
 *
 *   +--------+------+------+------+--------+------+-----+
 *   | subbuf | COMM | rec  | rec  | COMM   | rec  | ... |
 *   | header | pid A| pid A| pid A| pid B  | pid B|     |
 *   +--------+------+------+------+--------+------+-----+
 *
 * A COMM record and the record it names are written together or not at
 * all, so a COMM record is never the last item of a sub-buffer. It takes
 * no sequence number: its seq is that of the record it names, and it is
 * not counted as a record in any statistic (written, dropped, lost).
 *
 * Both headers are 40 bytes (version 1's record header was 40 bytes
 * too, followed by the function name). A gap in the record seq is
 * records dropped (the header's lost counts them); a gap in the
 * sub-buffer seq is sub-buffers overwritten or skipped.
 */

/**
 * struct klog_subbuf_hdr - the start of every sub-buffer
 * @magic: KLOG_SUBBUF_MAGIC
 * @version: KLOG_RELAY_VERSION of the writer: the layout of the records
 *	that follow (3 and 2: struct klog_rec_hdr, 2 without
 *	KLOG_RELAY_ARGS records; 1: struct klog_rec_hdr_v1)
 * @hdr_size: sizeof(struct klog_subbuf_hdr); records start at this offset
 * @cpu: the CPU whose buffer this is (0 for a global buffer)
 * @padding: unused bytes at the end of the sub-buffer; written before the
 *	sub-buffer is counted as produced, 0 while it is being filled
 * @seq: absolute number of this sub-buffer in the buffer's stream, from 0
 *	at channel creation or reset; sub-buffer @seq sits at offset
 *	(@seq % n_subbufs) * subbuf_size of the mmap'ed buffer, and a gap
 *	means sub-buffers were overwritten or skipped
 * @lost: records dropped for this buffer (full, big, nmi, frozen,
 *	reentered; in a global buffer, nmi and reentered drops of every CPU)
 *	since the previous sub-buffer was started: the loss shows in the
 *	stream, not only in the counters. Records made in NMI context are
 *	staged per CPU and written a moment later; "nmi" counts only those
 *	dropped because the CPU's 16 KiB NMI staging area was full or could
 *	never hold them (a payload over 16312 bytes). A staged
 *	record found too big or made while the recorder was frozen counts
 *	as big or frozen when it is moved. A drop's gap in the record
 *	sequence numbers is where it was dropped, inside the previous
 *	sub-buffer or in front of this one's first record: @lost is the sum
 *	of the gaps since the previous header, not the gap in front of the
 *	first record. In a per-CPU buffer, a sub-buffer started by a record
 *	that did not fit in the previous one (@first_ts not 0) has that
 *	record first (after the COMM record naming its task), and the
 *	records before it number written + lost summed over all headers so
 *	far. A sub-buffer
 *	started without a record (@first_ts 0: the channel's creation or
 *	reset, a CPU's new buffer, a flush) may be followed by drops before
 *	its first record: they leave a gap in the record sequence numbers
 *	there and are counted in the next header's @lost.
 *	Records the klog core refused for nesting (stats "nest") never
 *	reached the handler and are not included.
 * @first_ts: timestamp (ns) of the record that started this sub-buffer;
 *	0 for the first sub-buffer and for sub-buffers started by a flush
 */
struct klog_subbuf_hdr {
	__u32	magic;
	__u16	version;
	__u16	hdr_size;
	__u32	cpu;
	__u32	padding;
	__u64	seq;
	__u64	lost;
	__u64	first_ts;
};

/* klog_rec_hdr.kind */
#define KLOG_RELAY_TEXT		0	/* payload is text, no trailing NUL */
#define KLOG_RELAY_RAW		1	/* payload is bytes from klog_raw() */
/*
 * payload is klog_printk()'s arguments in binary: a block as
 * <linux/klog_args.h> describes it, formatted when read with the format
 * of the record's site (the sites file). New in version 3, so that a
 * reader of version 2 refuses the stream by its version instead of
 * printing every klog_printk() record as bytes.
 */
#define KLOG_RELAY_ARGS		2
/*
 * Items the handler writes on its own have the top bit set, so that no
 * kind the core adds to enum klog_kind (copied as it is) can collide.
 */
#define KLOG_RELAY_COMM		0x80	/* payload is the task name of @pid */

/* Payload bytes of a KLOG_RELAY_COMM record: TASK_COMM_LEN, NUL-padded */
#define KLOG_RELAY_COMM_LEN	16

/* klog_rec_hdr.ctx */
#define KLOG_RELAY_CTX_TASK	0
#define KLOG_RELAY_CTX_SOFTIRQ	1
#define KLOG_RELAY_CTX_HARDIRQ	2
#define KLOG_RELAY_CTX_NMI	3

/* klog_rec_hdr.flags */
/*
 * The klog core cut the record at the call: a text record's text to
 * KLOG_TEXT_MAX - 1 = 1023 bytes (the core's KLOG_REC_TRUNCATED, copied).
 * Never set on a KLOG_RELAY_ARGS record: the core does not format it, so
 * it cannot know; its text is cut to 1023 bytes when read, and the
 * reader tells from the formatter's length ("Binary arguments" in
 * Documentation/trace/klog.rst).
 */
#define KLOG_RELAY_TRUNCATED	0x1
#define KLOG_RELAY_TRIGGER	0x2	/* written by klog_trigger() */

/**
 * struct klog_rec_hdr - one record (versions 2 and 3)
 * @size: bytes of the whole record: this header, @len bytes of payload,
 *	zero padding to KLOG_REC_ALIGN
 * @len: payload bytes (KLOG_RELAY_COMM_LEN for a COMM record)
 * @ts_ns: local clock at the klog call, in nanoseconds; for a COMM
 *	record, the @ts_ns of the record it names
 * @seq: number of this record among all records offered to this
 *	buffer since channel creation or reset, delivered or dropped: a gap
 *	is loss (except nmi and reentered drops in a global buffer, and
 *	"nest" drops, which take no number). In a per-CPU buffer nmi and
 *	reentered drops take their numbers when the next record is
 *	offered, so they are in the gap just before it. A record made in
 *	NMI context takes its number when it is moved from its CPU's NMI
 *	staging area into the buffer (by an irq_work, the CPU's next
 *	record, or a flush), so a buffer's records are always in @seq
 *	order; its @ts_ns is the NMI's and may be earlier than that of the
 *	record before it. A COMM record carries the seq of the record that
 *	follows it and takes no number; in front of a moved NMI record it
 *	names the task the NMI interrupted, with the NMI's @ts_ns.
 * @pid: current->pid at the call (the interrupted task in IRQ context);
 *	for a COMM record, the task it names
 * @site_id: the call site's id (struct klog_site.id: from 1, never reused
 *	within a boot); the sites file maps it to module, file, line,
 *	function and format. 0 for a COMM record.
 * @kind: KLOG_RELAY_TEXT, KLOG_RELAY_RAW, KLOG_RELAY_ARGS or
 *	KLOG_RELAY_COMM
 * @ctx: KLOG_RELAY_CTX_*; for a COMM record, the @ctx of the record it
 *	names
 * @flags: KLOG_RELAY_* flags; 0 for a COMM record
 * @reserved0: zero
 * @cpu: the CPU the klog call ran on (a global buffer mixes CPUs); for a
 *	COMM record, the @cpu of the record it names
 * @reserved: zero
 *
 * The layout is version 1's with @line replaced by @site_id and
 * @func_len by @reserved0 (zero): 40 bytes, a multiple of KLOG_REC_ALIGN.
 */
struct klog_rec_hdr {
	__u32	size;
	__u32	len;
	__u64	ts_ns;
	__u64	seq;
	__u32	pid;
	__u32	site_id;
	__u8	kind;
	__u8	ctx;
	__u8	flags;
	__u8	reserved0;
	__u16	cpu;
	__u16	reserved;
};

/**
 * struct klog_rec_hdr_v1 - one record of a version 1 stream
 * @size: bytes of the whole record: this header, @func_len bytes of
 *	function name, @len bytes of payload, zero padding to KLOG_REC_ALIGN
 * @len: payload bytes
 * @ts_ns: as in version 2
 * @seq: as in version 2 (there are no COMM records)
 * @pid: as in version 2
 * @line: source line of the call site
 * @kind: KLOG_RELAY_TEXT or KLOG_RELAY_RAW
 * @ctx: KLOG_RELAY_CTX_*
 * @flags: KLOG_RELAY_* flags
 * @func_len: bytes of the call site's function name (no NUL) between
 *	this header and the payload
 * @cpu: as in version 2
 * @reserved: zero
 *
 * Written by handlers before the stream named sites by id. Readers of
 * saved collections still decode it; no handler writes it any more.
 */
struct klog_rec_hdr_v1 {
	__u32	size;
	__u32	len;
	__u64	ts_ns;
	__u64	seq;
	__u32	pid;
	__u32	line;
	__u8	kind;
	__u8	ctx;
	__u8	flags;
	__u8	func_len;
	__u16	cpu;
	__u16	reserved;
};

#endif /* _UAPI_LINUX_KLOG_RELAY_H */
