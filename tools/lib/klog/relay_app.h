/* SPDX-License-Identifier: GPL-2.0 */
/*
 * relay_app.h - the klog tool's library: collecting a relay channel
 *
 * DOC: overview
 *
 * The relay handler klog-mod exposes one debugfs directory with the
 * relay-apps control files: enabled, create, subbuf_size, n_subbufs,
 * flush, dropped, stats, and per CPU a relay file cpuN with
 * cpuN.produced / cpuN.consumed (binary size_t). This library sets up,
 * reads and stops the channel, and holds the file, option and message
 * helpers of the tool (tools/klog) and of kleak's report, so that the
 * tool itself only says what to do with the bytes.
 *
 * Control files: ra_ctl_*() read and write one value; every failure is
 * reported on stderr as "prog: PATH: write "1": Device or resource busy"
 * (file and errno text) and returned as -1.
 *
 * Channel: ra_open() writes enabled=0 (in case a previous run died),
 * create=0, the collector's other settings (e.g. klog's mode=no-overwrite),
 * the sizes (in the order that never asks for a larger buffer than the
 * old or the new one, as the module checks each write against memory),
 * create=1, reads the sizes back, finds the buffers by the cpuN files that
 * exist (one, cpu0, for a global buffer) and opens them (mmap mode: maps
 * each whole buffer). ra_close() writes create=0.
 *
 * One collector at a time: ra_open() first takes an exclusive flock()
 * on the ``create`` file (ra_lock()) for as long as the collector runs,
 * so a second collector - or klog -R, -s, --thaw, --stop - fails at
 * once instead of tearing down the first one's channel; the
 * kernel drops the lock of a collector that dies, even by SIGKILL (a
 * kernel without CONFIG_FILE_LOCKING has no such lock: the collector
 * then goes on without it). If a channel exists then (``create`` reads
 * 1: a flight recorder, its collector was killed, or it was set up by
 * hand), nothing is destroyed by default:
 *
 *  - ra_config.attach: ra_open() takes the channel as it is (settings
 *    and sizes are not written, ra->attached is set) and the readers
 *    start where the old ones stopped (read mode: at the sub-buffer the
 *    kernel would have returned next, mmap mode: at cpuN.consumed).
 *    Until ra_start() succeeds an attached channel is left as it was,
 *    even on failure.
 *  - ra_config.replace (klog -x): the new settings are first
 *    written while the channel exists - the module checks a value
 *    (-EINVAL) before it refuses to change it (-EBUSY) - and only if all
 *    are valid is the channel destroyed and created anew.
 *  - neither: ra_open() refuses, and says how to stop the channel.
 *
 * Readers: ra_start() starts one thread per CPU, pinned to it where
 * sched_setaffinity() allows, then writes enabled=1. Each thread waits in
 * poll() with a timeout, RA_TICK_MS (poll() only reports whole
 * sub-buffers), together with a wake pipe used at stop, then drains its
 * CPU:
 *
 *  - RA_MODE_READ: read() into a large buffer, never smaller than a
 *    sub-buffer, until it returns 0 or EAGAIN. The kernel strips
 *    sub-buffer padding and consumes by itself (klog-mod's read()
 *    returns finished sub-buffers only, each whole; a partially filled
 *    one arrives after a flush).
 *  - RA_MODE_MMAP: read cpuN.produced; hand every newly produced whole
 *    sub-buffer, cut to subbuf_size - the padding its header states
 *    (ks_subbuf_used()), to the sink; then write the number of
 *    sub-buffers processed to cpuN.consumed.
 *
 * Every byte goes to the sink callback, from the CPU's reader thread.
 *
 * Stop discipline: ra_stop() writes enabled=0 (which returns only when
 * no writer is active), then flush=1 (the partially filled sub-buffer of
 * every CPU becomes produced), then tells the threads to stop; each
 * thread drains its CPU one last time after seeing the stop flag, so
 * nothing written before the stop is lost. The caller then reads the
 * counters (ra_stats_read()) for its summary and calls ra_close().
 *
 * Ready signal and workload: a collector calls ra_recording() once every
 * record is being collected (after ra_start() and whatever it enables
 * of its own). It prints the line "PROG: recording ..." on stderr, the
 * documented point after which a workload is recorded (scripts that run
 * the collector in the background wait for it), and then starts the
 * collector's COMMAND, if one was given on its command line, as a child
 * with the signal mask and dispositions of a fresh process. ra_wait()
 * returns RA_STOP_COMMAND when that child exits; stopping for another
 * reason (signal, duration, error) first ends the child - the stop
 * signal, or SIGTERM, is passed on, a second stop signal sends SIGKILL -
 * and waits for it, so records it makes until then are collected too.
 * ra_command_status() gives its exit status for the collector's own.
 *
 * Signals: ra_open() resets SIGINT, SIGTERM, SIGHUP and SIGCHLD to their
 * default dispositions before it blocks them: a collector started as a
 * background job of a non-interactive shell inherits SIGINT ignored,
 * and the documented stop by SIGINT must still work.
 *
 * Usage::
 *
 *	struct ra_config cfg = { .dir = "/sys/kernel/debug/klog",
 *				 .mode = RA_MODE_READ, .sink = save };
 *	struct relay_app *ra = ra_open(&cfg);
 *
 *	if (!ra || ra_start(ra))
 *		goto out;
 *	ra_wait(ra, 10.0, NULL, NULL);	// 10 s or SIGINT/SIGTERM
 *	ra_stop(ra);
 *	n = ra_stats_read(cfg.dir, &stats);	// summary
 *	out: ra_close(ra);
 *
 * Limitations: the CPU set is fixed at ra_open() (a CPU brought online
 * later is not read); size_t in the count files must be the kernel's
 * (no 32-bit collector on a 64-bit kernel).
 */
#ifndef RELAY_APP_H
#define RELAY_APP_H

#include <linux/types.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

/* The kernel's spellings, for code written in its style. */
#ifndef __printf
#define __printf(a, b)	__attribute__((format(printf, a, b)))
#endif
#ifndef __noreturn
#define __noreturn	__attribute__((noreturn))
#endif
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

/* ---- Messages and small helpers ------------------------------------- */

/* Print "prog: <message>" on stderr as one write. */
__printf(1, 2) void ra_err(const char *fmt, ...);

/*
 * Command-line helpers: a usage error (message, "Try --help", exit 2)
 * and a duration in seconds for option @opt: from 1 ns to 1e9 s (31
 * years), so that it is exact enough in nanoseconds and a deadline in
 * nanoseconds cannot overflow (-t 2e10 once stopped at once).
 */
__printf(1, 2) __noreturn void usage_error(const char *fmt, ...);
double parse_seconds(const char *opt, const char *arg);

/* A decimal unsigned int that is all of @s (no sign, no blanks): 0 or -1. */
int ra_parse_uint(const char *s, unsigned int *v);

/*
 * The N of "cpuN" at the start of @s, as klog-mod and klog write it
 * (digits, no leading zero), below @max, with *@end after it; -1 if
 * there is none (the caller checks what follows).
 */
int ra_parse_cpu(const char *s, int max, char **end);

/*
 * parse_count() - a decimal number from @min to @max for option @opt
 * A k, M or G suffix (x 2^10, 2^20, 2^30) is taken if @suffixes lists it
 * (e.g. "kKmM"; NULL: none). Anything else is a usage error
 * "OPT: invalid value 'ARG' (expected EXPECTED)".
 */
unsigned long long parse_count(const char *opt, const char *arg,
			       const char *suffixes, unsigned long long min,
			       unsigned long long max, const char *expected);

/*
 * parse_choice() - the index of @arg in @names (NULL-terminated), else a
 * usage error "OPT: invalid value 'ARG' (expected A, B or C)"
 */
int parse_choice(const char *opt, const char *arg, const char *const *names);

/*
 * ra_map_file() - map all of @path read-only, for a report
 * Only a regular file (a FIFO or directory is an error, never waited
 * on), never through a symbolic link. An empty file sets *len to 0 and
 * maps nothing (*data is left as it is). Return: 0, or -1 after a
 * message. Unmap with munmap() if *len.
 */
int ra_map_file(const char *path, const unsigned char **data, size_t *len);

/*
 * ra_read_file() - all of @path, read with the checks of ra_map_file()
 * (also no symbolic link followed), into a NUL-terminated malloc()ed
 * buffer; for files that report no size (debugfs's sites and control,
 * /proc/kallsyms) and the state file. More than @max bytes is an error:
 * a link to a huge file, or /dev/zero renamed, cannot fill the memory.
 * @missing_ok: a file that does not exist gives NULL with errno ENOENT
 * and no message. Return: the buffer (*len bytes before the NUL), or
 * NULL after a message.
 */
char *ra_read_file(const char *path, size_t max, size_t *len,
		   bool missing_ok);

/*
 * ra_escape() - @n bytes of @data as text for a terminal, as klog -r
 * prints a record's text: printable ASCII as is; \\ \n \t \r; any other
 * byte \xHH. Into @buf of @size bytes (4 * @n + 1 holds any input; a
 * longer result is cut at a whole escape), NUL-terminated. Names read
 * from files (a site's function, a kallsyms symbol) go through it
 * before they are printed.
 * Return: @buf.
 */
char *ra_escape(char *buf, size_t size, const void *data, size_t n);

/*
 * Output files. Collectors run as root on data that shows kernel
 * addresses, often in a shared directory such as /tmp:
 *
 * ra_out_dir() - make @dir ready for output: create it 0700, or accept
 * an existing directory only if it is not a symbolic link, is owned by
 * the caller and is writable by no one else (a directory someone else
 * created could hold a planted cpu0 -> /etc/shadow). Also sets the umask
 * to 077. The directory is then held open and checked through that
 * descriptor: every later ra_out_open(), ra_map_file(), ra_read_file(),
 * ra_list_cpus(), ra_remove_stale(), ra_out_rename() and ra_out_unlink()
 * of a path "@dir/NAME" (the same @dir string, one more component)
 * works relative to it (openat() and friends), so a @dir renamed or
 * replaced by a link after the check, by whoever can write to its
 * parent, redirects nothing. Return: 0, or -1 after a message naming
 * what was wrong.
 *
 * ra_in_dir() - hold a directory a report reads (klog -r DIR, kleak DIR)
 * the same way: its files are then read relative to it (a
 * directory held already, the output just written, is kept as it is).
 * 0 or -1 after a message.
 *
 * ra_out_rename() - rename "DIR/A" to "DIR/B" (renameat()), 0 or -1
 * after a message; ra_out_unlink() - unlinkat() "DIR/NAME", 0 or -1 with
 * errno (no message).
 *
 * ra_out_open() - open @path for output with @flags (O_WRONLY or O_RDWR,
 * and O_CREAT, O_TRUNC, O_APPEND as needed): never through a symbolic
 * link (O_NOFOLLOW), only a regular file (a FIFO or device is refused
 * before anything is truncated), and one of this user's with no other
 * hard link (another's file, or a link to one, is refused: made 0600, it
 * would still be theirs to read), created 0600 and an existing file made
 * 0600. Return: the descriptor, or -1 after a message.
 *
 * ra_out_claim() - the checks ra_out_open() makes of the regular file @fd
 * (@path, @st its fstat()) before writing it: refused (EPERM) if another
 * user owns it or it has other hard links; emptied if @trunc, made 0600.
 * Return: 0, or -1 with errno after a message.
 */
int ra_out_dir(const char *dir);
int ra_in_dir(const char *dir);
int ra_out_open(const char *path, int flags);
int ra_out_claim(int fd, const char *path, const struct stat *st, int trunc);
int ra_out_rename(const char *from, const char *to);
int ra_out_unlink(const char *path);

/* Write all of buf to fd (retries short writes and EINTR). 0 or -1/errno. */
int ra_write_full(int fd, const void *buf, size_t len);
/* ra_write_full() of @data to @fd (of @path), then close(): 0, or -1 after a message. */
int ra_write_close(int fd, const char *path, const void *data, size_t len);

/* CLOCK_MONOTONIC in nanoseconds. */
__u64 ra_now_ns(void);

/* ---- Control files (dir/file); 0 on success, -1 after a message ----- */

int ra_ctl_write(const char *dir, const char *file, const char *val);
int ra_ctl_write_u64(const char *dir, const char *file, __u64 val);
/* Text value, trailing whitespace removed. */
int ra_ctl_read(const char *dir, const char *file, char *buf, size_t size);
/* Decimal text value. */
int ra_ctl_read_u64(const char *dir, const char *file, __u64 *val);

/*
 * ra_list_cpus() - the N of every "cpuN" entry in dir, ascending
 * Also used on a collector's output directory. A name with a leading
 * zero (cpu01) is an error: it would alias cpu1. Returns the count (may
 * be 0) and a malloc()ed array in *cpus, or -1 after a message.
 */
int ra_list_cpus(const char *dir, int **cpus);

struct relay_app;
/*
 * ra_remove_stale() - remove the DIR/cpuN an earlier run left that are
 * not the buffers of @ra (all of them if @ra is NULL): a report of DIR
 * would join them. A directory is left for the report to refuse. @say:
 * name each file removed. 0, or -1 after a message.
 */
int ra_remove_stale(const char *dir, const struct relay_app *ra, bool say);

/* ---- Channel and per-CPU readers ------------------------------------ */

enum ra_mode {
	RA_MODE_READ,	/* poll() + read(); the kernel strips padding */
	RA_MODE_MMAP,	/* poll() + cpuN.produced + whole sub-buffers */
};

/*
 * ra_command_arg() - after getopt_long() with a "+" optstring: the
 * COMMAND [ARGS...] that follows the options (with or without "--"),
 * or NULL if there is none.
 */
char *const *ra_command_arg(int argc, char **argv);

/*
 * struct ra_opts - the options of a collection, with their letters,
 * values and checks (the tool sets the defaults first):
 *   -b, --subbuf-size BYTES  1 to SIZE_MAX, with a k, M or G suffix
 *   -n, --n-subbufs N        1 to SIZE_MAX
 *   -m, --mode read|mmap
 *   -o, --output DIR
 *   -t, --duration SECONDS   1e-9 to 1e9
 *   -d, --debugfs DIR        the channel's control directory
 *   -x, --replace            destroy a channel that exists
 *   -q, --quiet
 *   -h, --help               @help's text on stdout, exit 0
 * ra_getopt() parses them next to the tool's own options.
 */
struct ra_opts {
	size_t		subbuf_size;
	size_t		n_subbufs;
	enum ra_mode	mode;
	const char	*out;
	const char	*debugfs;
	double		duration;
	bool		quiet;
	bool		replace;	/* destroy a channel that exists */
	void		(*help)(FILE *f); /* -h, --help: print, exit 0 */
};

struct option;

/*
 * ra_getopt() - getopt_long() over the common options and the tool's
 * @shortopts (without the leading "+:") and @longopts (ending in a zero
 * entry; at most 55). A common option is stored into @o (a bad value is
 * a usage error, exit 2) and returned too, so that the tool can note
 * that it was given; the tool's own are returned as getopt_long() does.
 * A missing value or an unknown option is a usage error (exit 2).
 * Return: the option character, or -1 after the last option.
 */
int ra_getopt(int argc, char **argv, const char *shortopts,
	      const struct option *longopts, struct ra_opts *o);

/*
 * ra_opt_name() - "-b/--subbuf-size" for 'b', "--cpu" for a long option
 * alone, after ra_getopt(); each option's in a buffer of its own
 */
const char *ra_opt_name(int c);

struct ra_cpu;

/*
 * ra_sink_fn - take stream bytes of one CPU
 * Called from that CPU's reader thread only. Return 0, or -1 after
 * printing a message: the reader stops and ra_wait() returns
 * RA_STOP_ERROR.
 */
typedef int (*ra_sink_fn)(struct ra_cpu *c, const void *data, size_t len,
			  void *arg);

struct ra_config {
	const char	*dir;		/* debugfs directory of the module */
	/* { file, value, ..., NULL }: written before the sizes; may be NULL */
	const char *const *settings;
	size_t		subbuf_size;	/* written before create=1; 0: keep */
	size_t		n_subbufs;	/* written before create=1; 0: keep */
	enum ra_mode	mode;
	ra_sink_fn	sink;		/* required */
	void		*arg;		/* passed to the sink */
	bool		attach;		/* take an existing channel */
	bool		replace;	/* destroy an existing channel */
};

/*
 * struct ra_cpu - one CPU's buffer and reader
 * Counters are written by the reader thread only: read them with
 * __atomic_load_n(&c->x, __ATOMIC_RELAXED) while it runs, plainly after
 * ra_stop().
 */
struct ra_cpu {
	int		cpu;		/* the N of cpuN */
	void		*priv;		/* the caller's per-CPU data */
	__u64	bytes;		/* stream bytes given to the sink */
	__u64	max_backlog;	/* mmap: max produced - consumed seen */
	__u64	bad_subbufs;	/* mmap: skipped (invalid, overwritten) */
	__u64		drain_start;	/* start of its last finished drain */

	/* private to the library (relay_app_int.h) */
	struct relay_app *ra;
	pthread_t	thread;
	int		fd;
	void		*map;
	char		*buf;
	size_t		buf_size;
	size_t		consumed;	/* mmap: sub-buffers consumed so far */
	char		name[32];	/* "cpuN" */
};

struct relay_app {
	struct ra_config cfg;
	size_t		subbuf_size;	/* as created (read back) */
	size_t		n_subbufs;	/* as created (read back) */
	int		ncpus;
	struct ra_cpu	*cpus;
	int		stop_signal;	/* signal that ended ra_wait(), or 0 */
	bool		attached;	/* the channel existed: not recreated */

	/* private to the library (relay_app_int.h) */
	sigset_t	sigs;
	sigset_t	orig_mask;	/* before ra_open(): the child's */
	pid_t		child;		/* the running COMMAND, or 0 */
	int		child_status;	/* its exit status, or -1 */
	int		wake[2];
	int		stopping;
	int		failed;
	int		nthreads;
	int		lock_fd;	/* flock()ed create file, or -1 */
	bool		channel;	/* ours: ra_close() destroys it */
	bool		enabled;
};

/*
 * ra_open() - create (or with cfg->attach, maybe attach to) the channel
 * and open its per-CPU files
 * Resets SIGINT, SIGTERM, SIGHUP and SIGCHLD to their default handling
 * and blocks them in the calling thread (ra_wait() takes them with
 * sigtimedwait()); call it before starting any thread. Takes the
 * collectors' lock (held until ra_close()).
 * Return: the app, or NULL after a message (a channel it created is torn
 * down; one that existed is left as it was).
 */
struct relay_app *ra_open(const struct ra_config *cfg);

/* ra_start() - start the reader threads, then enabled=1. 0 or -1. */
int ra_start(struct relay_app *ra);

/*
 * ra_until_text() - how long a collection runs, for the recording line:
 * "until Ctrl-C", "for 5 s", "until sh exits (or for 5 s)", from the
 * COMMAND (or NULL) and the -t duration (or 0).
 */
void ra_until_text(char *const *cmd, double secs, char *buf, size_t size);

/*
 * ra_recording() - the ready signal: print "PROG: recording " and the
 * rest of the line (@fmt), always (also in a quiet mode: scripts wait
 * for it), then start @cmd (if not NULL) as a child.
 * Return: 0, or -1 after a message if @cmd could not be started
 * (ra_command_status() is then 127: not found, or 126).
 */
__printf(3, 4) int ra_recording(struct relay_app *ra, char *const *cmd,
				const char *fmt, ...);

/*
 * ra_command_status() - how the COMMAND ended, as a shell reports it:
 * its exit status, 128 + N if signal N killed it, 126/127 if it could
 * not be started; -1 if there was none.
 */
int ra_command_status(const struct relay_app *ra);

enum ra_stop_why {
	RA_STOP_SIGNAL,		/* SIGINT, SIGTERM or SIGHUP (ra->stop_signal) */
	RA_STOP_DURATION,	/* @seconds elapsed */
	RA_STOP_ERROR,		/* a reader failed, or @tick returned < 0 */
	RA_STOP_COMMAND,	/* the COMMAND of ra_recording() exited */
	RA_STOP_TICK,		/* @tick returned > 0: the collector is done */
};

/*
 * ra_wait() - run until a signal, @seconds (if > 0), an error, or the
 * end of the COMMAND; a COMMAND still running when it returns has ended
 * (see the overview)
 * @tick, if set, is called from the calling thread about every
 * RA_TICK_MS; it may return < 0 to stop with an error, > 0 to stop
 * without one (RA_STOP_TICK).
 */
#define RA_TICK_MS	200
enum ra_stop_why ra_wait(struct relay_app *ra, double seconds,
			 int (*tick)(struct relay_app *ra, void *arg),
			 void *arg);

/*
 * For a summary: "duration reached", "error", "command exited", "done",
 * or the signal's name.
 */
const char *ra_stop_reason(enum ra_stop_why why, int sig);

/*
 * ra_drained_since() - a time T (ra_now_ns()) such that every reader has
 * finished a drain that started at T or later: every byte its buffer
 * held at T has been given to the sink (0 before each one drained).
 */
__u64 ra_drained_since(struct relay_app *ra);

/* ra_flush() - flush=1: finish the current sub-buffer of every CPU. */
int ra_flush(struct relay_app *ra);

/*
 * ra_stop() - enabled=0, flush=1, final drain of every CPU, join
 * After it returns no reader runs and every byte written before the stop
 * has been given to the sink. SIGINT/SIGTERM/SIGHUP stay blocked until
 * ra_close(): a second Ctrl-C does not cut the end short (the summary, a
 * restore); SIGKILL does.
 * Return: 0, or -1 if a control write or a reader failed.
 */
int ra_stop(struct relay_app *ra);

/*
 * ra_halt() - on an error path: end the COMMAND if it runs and stop the
 * readers if they run (ra_stop(): their last drain still reaches the
 * sink), so that the caller may then close what its sink writes to and
 * free what it decodes with. Nothing to do after ra_stop(); NULL is ok.
 * The collector calls it before its own cleanup: a reader that ran on
 * would write to a closed (or reused) descriptor.
 */
void ra_halt(struct relay_app *ra);

/*
 * ra_close() - ra_halt(), unmap/close, create=0, free; then a stop
 * signal that came meanwhile is taken (it asked for what has been done)
 * and the signal mask of before ra_open() is back. NULL is ok.
 */
void ra_close(struct relay_app *ra);

/*
 * ra_close_status() - ra_close(), then the collector's exit status: @err
 * if it is not 0, else the COMMAND's (ra_command_status()), 0 without one
 */
int ra_close_status(struct relay_app *ra, int err);

/*
 * ra_lock() - the collectors' lock: an exclusive flock() on dir/create
 * Once it holds the lock it puts back the call-site state a dead klog -e
 * left for @dir (ra_sites_restore(), see below).
 * Return: the locked descriptor (close it to unlock; without file
 * locking in the kernel it is not locked), or -1 after a message if
 * another collector holds it, the file cannot be opened, or a saved
 * state could not be put back.
 */
int ra_lock(const char *dir);
/* ra_channel_exists() - does the create file (@lock_fd) read 1? */
int ra_channel_exists(int lock_fd);
/*
 * ra_probe_u64() - is @val valid for dir/file while a channel exists
 * (-EBUSY after the check)? 0, or -1 after a message.
 */
int ra_probe_u64(const char *dir, const char *file, __u64 val);
/* ra_refuse_existing() - the message for a channel left as it is. */
void ra_refuse_existing(const char *dir);

/*
 * ---- klog's saved call-site state ------------------------------------
 *
 * klog -e saves the flag of every live call site in the state file
 * (ra_sites_state_path(): /run/klog/sites.saved, or $KLOG_STATE_DIR/...)
 * before it turns sites off, and puts it back at the end. The file
 * starts with RA_SITES_STATE_HDR, the boot id, "pid=N" and "dir=DIR"
 * (the control directory), then one line "ID<TAB>p" or "ID<TAB>_" per
 * site, ids increasing. A file a dead collector left is put back by
 * whoever takes the collectors' lock next (ra_lock()).
 */
#define RA_SITES_STATE_DIR	"/run/klog"
#define RA_SITES_STATE_HDR	"# klog site state 1 boot="
#define RA_CONTROL_MAX		16384	/* the kernel's largest control write */
#define RA_STATE_MAX		(64UL << 20)	/* a state file: ~4M sites */

const char *ra_sites_state_path(void);
/* ra_boot_id() - /proc/sys/kernel/random/boot_id, or "unknown" */
void ra_boot_id(char *buf, size_t size);
/* ra_control_write() - one write(2) of @text to dir/control. 0 or -1. */
int ra_control_write(const char *dir, const char *text, size_t len);
/*
 * ra_sites_restore() - put the saved state of control directory @dir
 * back and remove the file (the file is not trusted: its owner, mode,
 * every line are checked; one from another boot is removed unused; one
 * for another directory is left alone). @killed: left by a dead
 * collector (said on stderr, also when @quiet). 0 when there was
 * nothing to do or it was put back, -1 after a message.
 */
int ra_sites_restore(const char *dir, bool killed, bool quiet);

/* ---- The stats file -------------------------------------------------- */

#define RA_STAT_MAX	16

/*
 * One line "cpu<N> key=value key=value ..." of the stats file (klog-mod's
 * keys: produced consumed records, the drop causes, max_backlog).
 */
struct ra_stats_cpu {
	int		cpu;
	int		n;
	struct {
		char	 key[24];
		__u64 val;
	} kv[RA_STAT_MAX];
};

/* Parse dir/stats. Returns the number of lines and *out, or -1. */
int ra_stats_read(const char *dir, struct ra_stats_cpu **out);
/* The value of @key, or 0 if the line has no such key. */
__u64 ra_stat(const struct ra_stats_cpu *s, const char *key);
/* The line for @cpu, or NULL. */
const struct ra_stats_cpu *ra_stats_find(const struct ra_stats_cpu *v, int n,
					 int cpu);

/*
 * struct ra_cause - a cause for which klog-mod drops a record: its key
 * in the stats file, its column in the summary table, and the line the
 * summary prints when it dropped any ("WHAT: N records dropped TAIL"; a
 * %s in @tail is the control directory).
 */
struct ra_cause {
	const char	*key;
	const char	*column;
	const char	*what;
	const char	*tail;
};

#define RA_NCAUSES		6
extern const struct ra_cause ra_causes[RA_NCAUSES];

/* ra_causes_add() - add the causes' counts in @s to @tot */
void ra_causes_add(__u64 *tot, const struct ra_stats_cpu *s);
/* ra_causes_report() - the line of each cause with drops */
void ra_causes_report(const __u64 *tot, const char *dir);

#endif /* RELAY_APP_H */
