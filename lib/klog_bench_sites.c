// SPDX-License-Identifier: GPL-2.0
/*
 * klog_bench_sites - 10,000 klog call sites, for make bench
 *
 * A module whose content is 10,000 klog_raw() call sites, never called
 * (each with a branch on floor_key next to it, below): loading it adds
 * 10,000 enabled sites to the site table. make bench times registering
 * the first handler (klog_bench's register file) with this module loaded
 * and without it: the first handler flips the core's keys
 * (klog_active[]), and every site's branch on them is patched.
 *
 * Its debugfs file klog_bench_sites/wait times what a module load would
 * wait for during that registration: writing N registers and unregisters a
 * do-nothing handler N times while a thread flips a static key of this
 * module's, which takes the jump label mutex as a module load does; the
 * longest flip of each registration, and the registration, are read
 * back as medians in ns:
 *
 *   wait n=N register_median_ns=R longest_flip_median_ns=W flips=F
 *
 * Next to each klog_raw() site is a branch on floor_key, a static key of
 * this module's and nothing else: its debugfs file klog_bench_sites/floor
 * times what the kernel alone takes to patch 10,000 sites. Writing N
 * enables and disables floor_key N times; the medians, in ns, of the
 * enabling and of the pair are read back, the floor under the first
 * handler's registration and unregistration:
 *
 *   floor n=N enable_median_ns=E pair_median_ns=P
 *
 * 100 functions of 100 sites each: the compiler takes many minutes over
 * one function of 10,000.
 */

#include <linux/completion.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/jump_label.h>
#include <linux/klog.h>
#include <linux/kstrtox.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/sort.h>

static u8 klog_bench_byte;
static DEFINE_STATIC_KEY_FALSE(floor_key);

/* A klog call site, and a branch of the floor's next to it. */
#define SITE()								\
do {									\
	klog_raw(&klog_bench_byte, 1);					\
	if (static_branch_unlikely(&floor_key))				\
		WRITE_ONCE(klog_bench_byte, 0);				\
} while (0)

#define SITES10()							\
do {									\
	SITE(); SITE(); SITE(); SITE(); SITE();				\
	SITE(); SITE(); SITE(); SITE(); SITE();				\
} while (0)

/* Kept (__used), never called. */
#define FN(n)								\
static __used noinline void klog_bench_sites_##n(void)			\
{									\
	SITES10(); SITES10(); SITES10(); SITES10(); SITES10();		\
	SITES10(); SITES10(); SITES10(); SITES10(); SITES10();		\
}

FN(0) FN(1) FN(2) FN(3) FN(4) FN(5) FN(6) FN(7) FN(8) FN(9)
FN(10) FN(11) FN(12) FN(13) FN(14) FN(15) FN(16) FN(17) FN(18) FN(19)
FN(20) FN(21) FN(22) FN(23) FN(24) FN(25) FN(26) FN(27) FN(28) FN(29)
FN(30) FN(31) FN(32) FN(33) FN(34) FN(35) FN(36) FN(37) FN(38) FN(39)
FN(40) FN(41) FN(42) FN(43) FN(44) FN(45) FN(46) FN(47) FN(48) FN(49)
FN(50) FN(51) FN(52) FN(53) FN(54) FN(55) FN(56) FN(57) FN(58) FN(59)
FN(60) FN(61) FN(62) FN(63) FN(64) FN(65) FN(66) FN(67) FN(68) FN(69)
FN(70) FN(71) FN(72) FN(73) FN(74) FN(75) FN(76) FN(77) FN(78) FN(79)
FN(80) FN(81) FN(82) FN(83) FN(84) FN(85) FN(86) FN(87) FN(88) FN(89)
FN(90) FN(91) FN(92) FN(93) FN(94) FN(95) FN(96) FN(97) FN(98) FN(99)

#define WAIT_N_MAX	32

static DEFINE_STATIC_KEY_FALSE(flip_key);
static DEFINE_MUTEX(wait_lock);
static char wait_result[128], floor_result[96];
static struct dentry *wait_dir;

struct flipper {
	struct completion	started;
	u64			from, until;	/* the flips in here count */
	u64			longest;
	unsigned long		flips;
};

/*
 * Flip flip_key until stopped; the longest flip that ended at ->from or
 * later and started at ->until or earlier, in ns, in ->longest.
 */
static int flipper_fn(void *data)
{
	struct flipper *f = data;

	while (!kthread_should_stop()) {
		u64 t0 = ktime_get_ns(), t1;

		if (static_key_enabled(&flip_key))
			static_branch_disable(&flip_key);
		else
			static_branch_enable(&flip_key);
		t1 = ktime_get_ns();
		if (t1 >= READ_ONCE(f->from) && t0 <= READ_ONCE(f->until))
			f->longest = max(f->longest, t1 - t0);
		WRITE_ONCE(f->flips, f->flips + 1);
		if (f->flips == 1)
			complete(&f->started);
		cond_resched();
	}
	return 0;
}

static void null_write(struct klog_handler *h, const struct klog_record *rec)
{
}

static struct klog_handler null_handler = {
	.name = "klog_bench_sites", .write = null_write,
};

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static int wait_one(u64 *reg, u64 *longest, unsigned long *flips)
{
	struct flipper f = { .from = U64_MAX, .until = U64_MAX };
	struct task_struct *t;
	int ret;

	init_completion(&f.started);
	t = kthread_run(flipper_fn, &f, "klog_bench_flip");
	if (IS_ERR(t))
		return PTR_ERR(t);
	/* the flipper is flipping before the registration starts */
	wait_for_completion(&f.started);
	WRITE_ONCE(f.from, ktime_get_ns());
	ret = register_klog_handler(&null_handler);
	WRITE_ONCE(f.until, ktime_get_ns());
	*reg = f.until - f.from;
	kthread_stop(t);
	*longest = f.longest;
	*flips += f.flips;
	static_branch_disable(&flip_key);
	return ret ?: unregister_klog_handler(&null_handler);
}

/* The N written to the wait or floor file: 1 to WAIT_N_MAX. */
static int write_n(const char __user *ubuf, size_t len, unsigned int *n)
{
	int ret = kstrtouint_from_user(ubuf, len, 10, n);

	if (ret)
		return ret;
	return *n && *n <= WAIT_N_MAX ? 0 : -EINVAL;
}

static ssize_t wait_write(struct file *file, const char __user *ubuf,
			  size_t len, loff_t *ppos)
{
	u64 reg[WAIT_N_MAX], longest[WAIT_N_MAX];
	unsigned long flips = 0;
	unsigned int n, i;
	int ret;

	ret = write_n(ubuf, len, &n);
	if (ret)
		return ret;
	mutex_lock(&wait_lock);
	if (klog_enabled())	/* then no key would be flipped */
		ret = -EBUSY;
	for (i = 0; i < n && !ret; i++)
		ret = wait_one(&reg[i], &longest[i], &flips);
	if (!ret) {
		sort(reg, n, sizeof(u64), cmp_u64, NULL);
		sort(longest, n, sizeof(u64), cmp_u64, NULL);
		snprintf(wait_result, sizeof(wait_result),
			 "wait n=%u register_median_ns=%llu longest_flip_median_ns=%llu flips=%lu\n",
			 n, reg[n / 2], longest[n / 2], flips);
	}
	mutex_unlock(&wait_lock);
	return ret ?: len;
}

/* Either file's last result (its debugfs data). */
static int wait_show(struct seq_file *m, void *v)
{
	mutex_lock(&wait_lock);
	seq_puts(m, m->private);
	mutex_unlock(&wait_lock);
	return 0;
}

DEFINE_SHOW_STORE_ATTRIBUTE(wait);

static ssize_t floor_write(struct file *file, const char __user *ubuf,
			   size_t len, loff_t *ppos)
{
	u64 on[WAIT_N_MAX], pair[WAIT_N_MAX];
	unsigned int n, i;
	int ret = write_n(ubuf, len, &n);

	if (ret)
		return ret;
	mutex_lock(&wait_lock);
	for (i = 0; i < n; i++) {
		u64 t0 = ktime_get_ns(), t1;

		static_branch_enable(&floor_key);
		t1 = ktime_get_ns();
		static_branch_disable(&floor_key);
		on[i] = t1 - t0;
		pair[i] = ktime_get_ns() - t0;
	}
	sort(on, n, sizeof(u64), cmp_u64, NULL);
	sort(pair, n, sizeof(u64), cmp_u64, NULL);
	snprintf(floor_result, sizeof(floor_result),
		 "floor n=%u enable_median_ns=%llu pair_median_ns=%llu\n",
		 n, on[n / 2], pair[n / 2]);
	mutex_unlock(&wait_lock);
	return len;
}

static int floor_show(struct seq_file *m, void *v)
{
	return wait_show(m, v);
}

DEFINE_SHOW_STORE_ATTRIBUTE(floor);

static int __init klog_bench_sites_init(void)
{
	wait_dir = debugfs_create_dir("klog_bench_sites", NULL);
	debugfs_create_file("wait", 0600, wait_dir, wait_result, &wait_fops);
	debugfs_create_file("floor", 0600, wait_dir, floor_result,
			    &floor_fops);
	return 0;
}

static void __exit klog_bench_sites_exit(void)
{
	debugfs_remove_recursive(wait_dir);
}

module_init(klog_bench_sites_init);
module_exit(klog_bench_sites_exit);
MODULE_DESCRIPTION("klog benchmark: 10,000 call sites");
MODULE_LICENSE("GPL");
