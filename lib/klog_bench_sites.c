// SPDX-License-Identifier: GPL-2.0
/*
 * klog_bench_sites - 10,000 klog call sites, for make bench
 *
 * A module whose only content is 10,000 klog_raw() call sites, never
 * called: loading it adds 10,000 enabled sites to the site table. make
 * bench times registering the first handler (klog_bench's register file)
 * with this module loaded and without it: the first handler flips one
 * key, klog_active, and every site's branch on it is patched.
 * 100 functions of 100 sites each: the compiler takes many minutes over
 * one function of 10,000.
 */

#include <linux/klog.h>
#include <linux/module.h>

static u8 klog_bench_byte;

#define SITES10()							\
do {									\
	klog_raw(&klog_bench_byte, 1); klog_raw(&klog_bench_byte, 1);	\
	klog_raw(&klog_bench_byte, 1); klog_raw(&klog_bench_byte, 1);	\
	klog_raw(&klog_bench_byte, 1); klog_raw(&klog_bench_byte, 1);	\
	klog_raw(&klog_bench_byte, 1); klog_raw(&klog_bench_byte, 1);	\
	klog_raw(&klog_bench_byte, 1); klog_raw(&klog_bench_byte, 1);	\
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

static int __init klog_bench_sites_init(void)
{
	return 0;
}

module_init(klog_bench_sites_init);
MODULE_DESCRIPTION("klog benchmark: 10,000 call sites");
MODULE_LICENSE("GPL");
