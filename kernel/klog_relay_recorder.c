// SPDX-License-Identifier: GPL-2.0
/*
 * klog-mod: the flight recorder's trigger, freeze and thaw
 *
 * In overwrite mode klog_relay_trigger() freezes the recorder (records
 * are then counted as frozen, not written), whether or not the
 * trigger's own record could be written, and keeps what the trigger was
 * (klog_relay_last_trigger_info()); klog_relay_freeze() freezes, or
 * thaws and re-arms, from the control files (frozen; reset and create
 * thaw). The oops dump freezes with an atomic or of its own, since a
 * thaw sleeps. The state is one atomic word, klog_relay.recorder
 * (KLOG_RECORDER_*, klog_relay_internal.h).
 *
 * Memory barriers (see klog_relay_write.c for the labels' scheme):
 *
 * - trigger:A (atomic_try_cmpxchg(), fully ordered) takes the trigger,
 *   ARMED -> FROZEN|BUSY: read-modify-writes of klog_relay.recorder are
 *   totally ordered, so one trigger wins, and freeze:A/freeze:B (a thaw
 *   keeps BUSY) cannot lose its change. No other pair.
 * - trigger:B (atomic_add_return_release(), BUSY -> INFO) after the
 *   trigger's info. Pairs with last_trigger_info:A (atomic_read_acquire()
 *   that sees INFO): the reader sees the whole of last_trigger.
 *
 * Copyright (C) 2026 The klog authors
 */

#include <linux/string.h>
#include "klog_relay_internal.h"

/*
 * Flight recorder: in overwrite mode the first trigger freezes the
 * recorder, after its own record was offered. Armed again by thawing.
 * Any context: one cmpxchg takes the trigger (ARMED -> FROZEN|BUSY), so
 * only one writer fills klog_relay.last_trigger; then BUSY becomes INFO.
 */
void klog_relay_trigger(struct klog_handler *h,
			const struct klog_record *rec)
{
	const char *reason = rec->payload;
	size_t len = rec->len;
	int old;

	if (!klog_relay.cfg.overwrite)
		return;
	old = atomic_read(&klog_relay.recorder);
	do {
		if ((old & (KLOG_RECORDER_ARMED | KLOG_RECORDER_BUSY)) !=
		    KLOG_RECORDER_ARMED)
			return;
	} while (!atomic_try_cmpxchg(&klog_relay.recorder, &old,
				     KLOG_RECORDER_FROZEN |
				     KLOG_RECORDER_BUSY)); /* LMM(trigger:A) */
	klog_relay.last_trigger.ts_ns = rec->ts_ns;
	klog_relay.last_trigger.cpu = rec->cpu;
	len = min(len, sizeof(klog_relay.last_trigger.reason) - 1);
	memcpy(klog_relay.last_trigger.reason, reason, len);
	klog_relay.last_trigger.reason[len] = '\0';
	/*
	 * BUSY (0x4) becomes INFO (0x8): BUSY is set and INFO clear here,
	 * and nobody else changes either, so the add carries into INFO only.
	 * Release: klog_relay_last_trigger_info()'s acquire that sees INFO
	 * (LMM(last_trigger_info:A)) sees the whole of last_trigger.
	 */
	BUILD_BUG_ON(KLOG_RECORDER_INFO != 2 * KLOG_RECORDER_BUSY);
	atomic_add_return_release(KLOG_RECORDER_BUSY,
				  &klog_relay.recorder); /* LMM(trigger:B) */
}

/**
 * klog_relay_last_trigger_info() - the trigger that froze the recorder
 * @info: filled in if there is one
 *
 * Context: process, klog_relay.ctl_lock held (no thaw can run); or the
 * oops/panic dump, without it: a thaw and a new trigger on another CPU
 * while it copies may mix two triggers' fields.
 * Return: true if the recorder was frozen by a trigger and not thawed
 * since; false while armed, or while the trigger's record is still being
 * stored.
 */
bool klog_relay_last_trigger_info(struct klog_relay_trigger_info *info)
{
	/* LMM(last_trigger_info:A): pairs with trigger:B */
	int st = atomic_read_acquire(&klog_relay.recorder);

	if ((st & (KLOG_RECORDER_ARMED | KLOG_RECORDER_INFO)) !=
	    KLOG_RECORDER_INFO)
		return false;
	*info = klog_relay.last_trigger;
	return true;
}

/*
 * Freeze (writes are counted as dropped), or thaw and re-arm the trigger
 * in one atomic step: a trigger is either before it (and thawed by it) or
 * after it (and freezes), never missed in between. A trigger still
 * storing its record keeps BUSY, so no second one can start storing.
 * A thaw first waits for an oops dump reading the buffers to end: it
 * froze the recorder so that no writer moves what it reads. Never from
 * the dump itself.
 *
 * Context: process, klog_relay.ctl_lock held; a thaw sleeps.
 */
void klog_relay_freeze(bool frozen)
{
	int old;

	if (frozen) {
		/* LMM(freeze:A) */
		atomic_or(KLOG_RECORDER_FROZEN, &klog_relay.recorder);
		return;
	}
	klog_relay_nmi_wait_released();
	old = atomic_read(&klog_relay.recorder);
	while (!atomic_try_cmpxchg(&klog_relay.recorder, &old,
				   (old & KLOG_RECORDER_BUSY) |
				   KLOG_RECORDER_ARMED)) /* LMM(freeze:B) */
		;
}
