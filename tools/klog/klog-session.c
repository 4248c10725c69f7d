// SPDX-License-Identifier: GPL-2.0
/*
 * klog-session.c - klog start, klog status, klog stop: a collection that
 * runs in the background
 *
 * DOC: sessions
 *
 * klog start [OPTIONS] forks; the child calls setsid() and runs the
 * collection of klog.c with the same options. Once it is recording (the
 * channel is set up, the readers run, "klog: recording ..." is on the
 * caller's stderr), session_detach() writes the session file, points its
 * standard input at /dev/null and its standard output and error at
 * DIR/log, and writes one byte to a pipe: the parent, waiting on that
 * pipe, then exits 0. An error before that (a bad option value, the
 * channel busy, DIR not empty) is printed by the child on the caller's
 * stderr, and the parent, finding the pipe closed without the byte,
 * exits with the child's status.
 *
 * The session file, "session" next to -e's sites.saved (/run/klog, or
 * $KLOG_STATE_DIR; the directory made and checked by state_dir()), 0600,
 * is written whole and renamed into place at every tick of the
 * collection (RA_TICK_MS) and once more when the collector has ended:
 *
 *	klog-session 1
 *	boot BOOT-ID
 *	pid PID STARTTIME	its start time, field 22 of /proc/PID/stat
 *	debugfs DIR		the control directory
 *	dir DIR			the collection, an absolute path
 *	max_size BYTES		--max-size, 0 without
 *	start NS		recording since (CLOCK_MONOTONIC)
 *	now NS			as of
 *	saved RECORDS BYTES	records read, bytes saved
 *	rate RECORDS BYTES	per second, over the last 1 to 2 s
 *	cpu N RECORDS BYTES	one line a buffer: records and bytes read
 *	exit STATUS		last, once the collector has ended
 *
 * The boot id, pid and start time name the collector and no later
 * process that got its pid. klog status shows a running session from
 * this file and the channel's stats (drops per CPU and cause). klog stop
 * sends the collector SIGTERM (through a pidfd: never to a process that
 * took the pid over) and waits for it to exit, at most --wait seconds;
 * the collector stops as at any SIGTERM (its summary, meta's stop line,
 * -e's site state put back, the channel destroyed), and stop prints
 * DIR/log, which ends with that summary. A collector that is gone
 * without an exit line was killed: stop says so, takes the collectors'
 * lock, which puts back the call-site state a killed -e left
 * (ra_lock()), and leaves the channel for the next collection to attach
 * to and resume DIR. Either way stop removes the session file.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "klog-app.h"

#define SESSION_VERSION		"klog-session 1"
#define SESSION_LOG		"log"		/* DIR/log */
#define SESSION_WAIT_S		60		/* klog stop without --wait */
#define SESSION_NOT_RUNNING	3		/* exit status */

/* The collector's side: what it last wrote. */
static struct {
	int	ready;		/* the pipe to klog start, or -1 */
	bool	detached;	/* recording, the session file written */
	bool	failed;		/* a rewrite failed (said once) */
	char	path[PATH_MAX], tmp[PATH_MAX + 8];
	char	*head;		/* the lines that do not change */
	char	*text;		/* the file as last written */
	size_t	len;
	__u64	t[2], r[2], b[2];	/* the rates' window: 1 to 2 s back */
} ses = { .ready = -1 };

/* A session file as read. */
struct session {
	char	boot[64], debugfs[PATH_MAX], dir[PATH_MAX];
	int	pid, exit;	/* exit: -1 while it runs */
	__u64	pstart, max_size, start, now, records, bytes;
	double	rrate, brate;
	int	ncpus;
	struct { int cpu; __u64 records, bytes; } *cpus;
};

static const char *session_path(void)
{
	const char *saved = ra_sites_state_path();
	static char path[PATH_MAX];

	snprintf(path, sizeof(path), "%.*s/session",
		 (int)(strrchr(saved, '/') - saved), saved);
	return path;
}

/*
 * The start time of process @pid in clock ticks since boot (field 22 of
 * /proc/PID/stat), or 0 if there is none or it has exited (a zombie).
 */
static __u64 proc_start(int pid)
{
	char path[64], buf[1024], *p, *save;
	size_t n;
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');		/* after the name, which may hold any */
	if (!p || p[1] != ' ' || p[2] == 'Z' || p[2] == 'X')
		return 0;
	p = strtok_r(p + 2, " ", &save);	/* field 3, the state */
	for (i = 3; p && i < 22; i++)
		p = strtok_r(NULL, " ", &save);
	return p ? strtoull(p, NULL, 10) : 0;
}

/* ---- The collector ----------------------------------------------------- */

/* Write @len bytes of @text as the session file. 0 or -1 after a message. */
static int session_save(const char *text, size_t len)
{
	int fd = ra_out_open(ses.tmp, O_WRONLY | O_CREAT | O_TRUNC);

	if (fd < 0 || ra_write_close(fd, ses.tmp, text, len))
		return -1;
	return ra_out_rename(ses.tmp, ses.path);
}

static int session_update(struct klog *kl, __u64 now)
{
	struct relay_app *ra = kl->ra;
	__u64 records = 0, bytes = __atomic_load_n(&kl->written,
						   __ATOMIC_RELAXED);
	char *text = NULL;
	size_t len = 0;
	double dt;
	FILE *f;
	int i;

	for (i = 0; i < ra->ncpus; i++)
		records += __atomic_load_n(&kl->k[i].records, __ATOMIC_RELAXED);
	if (now - ses.t[1] >= NSEC) {
		ses.t[0] = ses.t[1];
		ses.r[0] = ses.r[1];
		ses.b[0] = ses.b[1];
		ses.t[1] = now;
		ses.r[1] = records;
		ses.b[1] = bytes;
	}
	dt = now > ses.t[0] ? (now - ses.t[0]) / 1e9 : 1;
	f = open_memstream(&text, &len);
	if (!f) {
		ra_err("%s: out of memory", ses.path);
		return -1;
	}
	fprintf(f, "%snow %llu\nsaved %llu %llu\nrate %.0f %.0f\n", ses.head,
		(unsigned long long)now, (unsigned long long)records,
		(unsigned long long)bytes, (records - ses.r[0]) / dt,
		(bytes - ses.b[0]) / dt);
	for (i = 0; i < ra->ncpus; i++)
		fprintf(f, "cpu %d %llu %llu\n", ra->cpus[i].cpu,
			(unsigned long long)__atomic_load_n(&kl->k[i].records,
							    __ATOMIC_RELAXED),
			(unsigned long long)__atomic_load_n(&ra->cpus[i].bytes,
							    __ATOMIC_RELAXED));
	if (fclose(f)) {
		ra_err("%s: out of memory", ses.path);
		free(text);
		return -1;
	}
	free(ses.text);
	ses.text = text;
	ses.len = len;
	return session_save(text, len);
}

void session_tick(struct klog *kl, __u64 now)
{
	if (!ses.detached || ses.failed || !session_update(kl, now))
		return;
	ses.failed = true;
	ra_err("%s is no longer updated: klog status shows the collection as it was",
	       ses.path);
}

/* Does @s hold a control byte (which klog status would print)? */
static bool has_ctl(const char *s)
{
	while (*s && (unsigned char)*s >= 0x20 && *s != 0x7f)
		s++;
	return *s;
}

int session_detach(struct klog *kl)
{
	const struct opts *o = &kl->o;
	char boot[64], log[PATH_MAX], *dir;
	int fd, null, len = -1;

	snprintf(ses.path, sizeof(ses.path), "%s", session_path());
	snprintf(ses.tmp, sizeof(ses.tmp), "%s.new", ses.path);
	ra_boot_id(boot, sizeof(boot));
	/* absolute (the control directory already): for klog status, stop */
	dir = realpath(o->ra.out, NULL);
	if (!dir) {
		ra_err("%s: %s", o->ra.out, strerror(errno));
	} else if (has_ctl(dir) || has_ctl(o->ra.debugfs)) {
		ra_err("the %s directory's name has a control character: it cannot go into %s",
		       has_ctl(dir) ? "collection" : "control", ses.path);
	} else {
		len = asprintf(&ses.head,
			       "%s\nboot %s\npid %d %llu\ndebugfs %s\ndir %s\nmax_size %llu\nstart %llu\n",
			       SESSION_VERSION, boot, (int)getpid(),
			       (unsigned long long)proc_start(getpid()),
			       o->ra.debugfs, dir,
			       (unsigned long long)o->max_size,
			       (unsigned long long)kl->t_start);
		if (len < 0)
			ra_err("out of memory");
	}
	free(dir);
	if (len < 0)
		return -1;
	ses.t[0] = kl->t_start;
	ses.t[1] = kl->t_start;
	if (state_dir() || session_update(kl, ra_now_ns()))
		return -1;
	/* from here on what it says goes to DIR/log: klog stop shows it */
	snprintf(log, sizeof(log), "%s/" SESSION_LOG, o->ra.out);
	fd = ra_out_open(log, O_WRONLY | O_CREAT | O_TRUNC);
	null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || null < 0) {
		if (null < 0)
			ra_err("/dev/null: %s", strerror(errno));
		else
			close(null);
		if (fd >= 0)
			close(fd);
		ra_out_unlink(ses.path);
		return -1;
	}
	fflush(NULL);
	if (dup2(null, STDIN_FILENO) < 0 || dup2(fd, STDOUT_FILENO) < 0 ||
	    dup2(fd, STDERR_FILENO) < 0) {
		ra_err("%s: dup2: %s", log, strerror(errno));
		ra_out_unlink(ses.path);
		return -1;
	}
	close(fd);
	close(null);
	ses.detached = true;
	kl->status = kl->status_lines;	/* --progress: lines into DIR/log */
	if (write(ses.ready, "r", 1) != 1)
		ra_err("klog start went away before the collection was recording: %s",
		       strerror(errno));
	close(ses.ready);
	ses.ready = -1;
	return 0;
}

/* After the collection: the exit line, for klog status and klog stop. */
static int session_end(int status)
{
	char line[32], *text;
	size_t n;

	if (!ses.detached)
		return status;
	n = snprintf(line, sizeof(line), "exit %d\n", status);
	text = realloc(ses.text, ses.len + n + 1);
	if (!text) {
		ra_err("%s: out of memory", ses.path);
		return 1;
	}
	memcpy(text + ses.len, line, n + 1);
	ses.text = text;
	ses.len += n;
	return session_save(text, ses.len) ? 1 : status;
}

/* ---- Reading the session file ------------------------------------------ */

static void session_free(struct session *s)
{
	free(s->cpus);
	s->cpus = NULL;
}

/* A line after the first into @s: 0, or -1 (control bytes, bad numbers). */
static int session_line(struct session *s, const char *l)
{
	unsigned long long b, c;
	int n, cpu;
	void *grown;

	if (has_ctl(l))
		return -1;
	if (sscanf(l, "boot %63s%n", s->boot, &n) == 1 && !l[n])
		return 0;
	if (sscanf(l, "pid %d %llu%n", &s->pid, &s->pstart, &n) == 2 &&
	    !l[n] && s->pid > 0)
		return 0;
	if (!strncmp(l, "debugfs /", 9))
		return snprintf(s->debugfs, PATH_MAX, "%s", l + 8) < PATH_MAX ?
		       0 : -1;
	if (!strncmp(l, "dir /", 5))
		return snprintf(s->dir, PATH_MAX, "%s", l + 4) < PATH_MAX ?
		       0 : -1;
	if ((sscanf(l, "max_size %llu%n", &s->max_size, &n) == 1 ||
	     sscanf(l, "start %llu%n", &s->start, &n) == 1 ||
	     sscanf(l, "now %llu%n", &s->now, &n) == 1 ||
	     sscanf(l, "saved %llu %llu%n", &s->records, &s->bytes, &n) == 2 ||
	     sscanf(l, "rate %lf %lf%n", &s->rrate, &s->brate, &n) == 2) &&
	    !l[n])
		return s->rrate >= 0 && s->rrate <= 1e18 && s->brate >= 0 &&
		       s->brate <= 1e18 ? 0 : -1;
	if (sscanf(l, "exit %d%n", &s->exit, &n) == 1 && !l[n])
		return s->exit < 0 ? -1 : 0;
	if (sscanf(l, "cpu %d %llu %llu%n", &cpu, &b, &c, &n) != 3 || l[n] ||
	    s->ncpus == KLOG_MAX_CPUS)
		return -1;
	grown = realloc(s->cpus, (s->ncpus + 1) * sizeof(*s->cpus));
	if (!grown)
		return -1;
	s->cpus = grown;
	s->cpus[s->ncpus].cpu = cpu;
	s->cpus[s->ncpus].records = b;
	s->cpus[s->ncpus++].bytes = c;
	return 0;
}

/*
 * The session file into @s: 1, 0 if there is none (no message), or -1
 * after a message naming what is wrong.
 */
static int session_load(struct session *s)
{
	const char *path = session_path();
	char *text, *line, *next;
	int lineno = 1, ret = -1;
	size_t len;

	*s = (struct session) { .exit = -1 };
	/* its directory: only the caller can have written into it */
	if (state_dir())
		return -1;
	text = ra_read_file(path, RA_STATE_MAX, &len, true);
	if (!text)
		return errno == ENOENT ? 0 : -1;
	for (line = text; *line; line = next, lineno++) {
		next = strchr(line, '\n');
		if (!next)
			break;		/* the last line unfinished */
		*next++ = '\0';
		if (lineno == 1 ? strcmp(line, SESSION_VERSION) :
		    session_line(s, line))
			goto bad;
	}
	if (*line || !*s->boot || !s->pid || !*s->debugfs || !*s->dir) {
		ra_err("%s: incomplete; remove it", path);
		goto out;
	}
	ret = 1;
	goto out;
bad:
	ra_err("%s:%d: not a line of a klog session file (" SESSION_VERSION "); remove it",
	       path, lineno);
out:
	free(text);
	if (ret < 0)
		session_free(s);
	return ret;
}

/* Is @s of this boot? */
static bool session_this_boot(const struct session *s)
{
	char boot[64];

	ra_boot_id(boot, sizeof(boot));
	return !strcmp(boot, s->boot);
}

/* Is the collector of @s still there (and not another with its pid)? */
static bool session_alive(const struct session *s)
{
	return session_this_boot(s) && proc_start(s->pid) == s->pstart;
}

/* ---- klog start -------------------------------------------------------- */

int session_start(struct opts *o, int (*collect)(const struct opts *o))
{
	struct session s;
	char c, *ctl;
	int p[2], st, r;
	pid_t pid;
	ssize_t n;

	if (o->report || o->recorder || o->snapshot || o->recorder_cmd ||
	    o->sites || o->follow || o->cmd)
		usage_error("'start' collects in the background: it takes no %s",
			    o->report ? "-r" : o->recorder ? "-R" :
			    o->snapshot ? "-s" :
			    o->recorder_cmd ? "--status, --thaw or --stop" :
			    o->sites ? "--sites" :
			    o->follow ? "-f (klog -f follows in the foreground)" :
			    "COMMAND (klog record -- COMMAND runs one)");
	r = session_load(&s);
	if (r < 0)
		return 1;
	if (r && s.exit < 0 && session_alive(&s)) {
		ra_err("a session is running: pid %d, recording into %s; klog status shows it, klog stop stops it",
		       s.pid, s.dir);
		session_free(&s);
		return 1;
	}
	session_free(&s);	/* one that ended or was killed: replaced */
	/*
	 * The control directory as klog status and stop will name it, and
	 * -e's sites.saved (which a killed session's stop puts back)
	 */
	ctl = realpath(o->ra.debugfs, NULL);
	if (!ctl) {
		ra_err("%s: %s", o->ra.debugfs, strerror(errno));
		return 1;
	}
	o->ra.debugfs = ctl;
	if (pipe2(p, O_CLOEXEC)) {
		ra_err("pipe: %s", strerror(errno));
		return 1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		ra_err("fork: %s", strerror(errno));
		return 1;
	}
	if (!pid) {
		sigset_t stop;

		/* ra_close() blocks them again: the exit line gets written */
		sigemptyset(&stop);
		sigaddset(&stop, SIGINT);
		sigaddset(&stop, SIGTERM);
		sigaddset(&stop, SIGHUP);
		sigprocmask(SIG_BLOCK, &stop, NULL);
		close(p[0]);
		setsid();	/* no terminal: no SIGHUP, no Ctrl-C */
		ses.ready = p[1];
		o->session = true;
		exit(session_end(collect(o)));
	}
	close(p[1]);
	do
		n = read(p[0], &c, 1);
	while (n < 0 && errno == EINTR);
	close(p[0]);
	if (n == 1) {
		ra_err("session started: pid %d; klog status shows it, klog stop stops it",
		       (int)pid);
		return 0;
	}
	/* it failed before it was recording, and said why */
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			ra_err("waitpid %d: %s", (int)pid, strerror(errno));
			return 1;
		}
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WEXITSTATUS(st) ? WEXITSTATUS(st) : 1;
}

/* ---- klog status --------------------------------------------------------- */

/* The message when @s (@r: session_load()'s) runs no more; the exit status. */
static int not_running(const struct session *s, int r)
{
	if (r < 0)
		return 1;
	if (!r)
		ra_err("no session is running (klog start starts one)");
	else if (s->exit >= 0)
		ra_err("no session is running: the one of pid %d, recording into %s, has ended (exit status %d); klog stop prints its summary",
		       s->pid, s->dir, s->exit);
	else
		ra_err("no session is running: its collector (pid %d, recording into %s) is gone without stopping (killed?); klog stop cleans up after it",
		       s->pid, s->dir);
	return SESSION_NOT_RUNNING;
}

static int session_status(bool exact)
{
	struct status_nums n = { 0 };
	__u64 tot[RA_NCAUSES] = { 0 };
	struct ra_stats_cpu *st = NULL;
	char line[512], sz[SIZE_TEXT_MAX];
	struct session s;
	int r = session_load(&s), nst, i, j;

	if (r <= 0 || s.exit >= 0 || !session_alive(&s)) {
		r = not_running(&s, r);
		session_free(&s);
		return r;
	}
	nst = ra_stats_read(s.debugfs, &st);
	if (nst < 0 || ra_ctl_read_u64(s.debugfs, "dropped", &n.dropped)) {
		session_free(&s);
		return 1;
	}
	n.ns = s.now - s.start;
	n.records = s.records;
	n.records_rate = s.rrate;
	n.saved = s.bytes;
	n.saved_rate = s.brate;
	n.max_size = s.max_size;
	status_text(line, sizeof(line), &n, exact);
	printf("pid %d, recording into %s (control directory %s)\n%s\n",
	       s.pid, s.dir, s.debugfs, line);
	printf("%-6s %12s %14s", "", "records", "bytes");
	for (j = 0; j < RA_NCAUSES; j++)
		printf(" %8s", ra_causes[j].column);
	printf("\n");
	for (i = 0; i < s.ncpus; i++) {
		const struct ra_stats_cpu *c = ra_stats_find(st, nst,
							     s.cpus[i].cpu);

		printf("cpu%-3d %12llu %14s", s.cpus[i].cpu,
		       (unsigned long long)s.cpus[i].records,
		       size_text(sz, sizeof(sz), s.cpus[i].bytes, exact));
		for (j = 0; j < RA_NCAUSES; j++)
			printf(" %8llu",
			       (unsigned long long)ra_stat(c, ra_causes[j].key));
		printf("\n");
	}
	for (i = 0; i < nst; i++)
		ra_causes_add(tot, &st[i]);
	printf("%-6s %12llu %14s", "total", (unsigned long long)s.records,
	       size_text(sz, sizeof(sz), s.bytes, exact));
	for (j = 0; j < RA_NCAUSES; j++)
		printf(" %8llu", (unsigned long long)tot[j]);
	printf("\n");
	fflush(stdout);
	ra_causes_report(tot, s.debugfs);
	free(st);
	session_free(&s);
	return 0;
}

/* ---- klog stop ----------------------------------------------------------- */

/* Poll pidfd @fd at most @wait seconds: > 0 once the process has exited. */
static int pidfd_wait(int fd, double wait)
{
	struct timespec ts = { (time_t)wait,
			       (long)((wait - (time_t)wait) * 1e9) };
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int r;

	do
		r = ppoll(&p, 1, &ts, NULL);
	while (r < 0 && errno == EINTR);
	return r;
}

/*
 * SIGTERM to the collector of @s, then wait until it has exited, at most
 * @wait seconds. 0 (also if it was gone already), or -1 after a message.
 */
static int session_kill_wait(const struct session *s, double wait)
{
	int fd = syscall(SYS_pidfd_open, s->pid, 0), r = 1;

	if (fd < 0) {
		if (errno == ESRCH)
			return 0;
		ra_err("pidfd_open %d: %s", s->pid, strerror(errno));
		return -1;
	}
	/* the pidfd holds the process: is it still the collector? */
	if (!session_alive(s)) {
		r = 1;	/* gone already */
	} else if (syscall(SYS_pidfd_send_signal, fd, SIGTERM, NULL, 0)) {
		ra_err("kill %d: %s", s->pid, strerror(errno));
		r = -1;
	} else {
		r = pidfd_wait(fd, wait);
		if (r < 0)
			ra_err("poll: %s", strerror(errno));
	}
	if (!r)
		ra_err("the collector (pid %d) has not exited %g s after SIGTERM; it still runs: klog stop waits again (--wait SECONDS), kill -KILL %d ends it without a summary",
		       s->pid, wait, s->pid);
	close(fd);
	return r > 0 ? 0 : -1;
}

/* DIR/log on stderr: what the collector said after it detached. */
static void session_log(const struct session *s)
{
	const unsigned char *data;
	char path[PATH_MAX + 8];
	size_t len = 0;

	snprintf(path, sizeof(path), "%s/" SESSION_LOG, s->dir);
	if (ra_map_file(path, &data, &len) || !len)
		return;
	fwrite(data, 1, len, stderr);
	fflush(stderr);
	munmap((void *)data, len);
}

static int session_stop(double wait)
{
	struct session s;
	int r = session_load(&s), lock, st;

	if (r <= 0)
		return not_running(&s, r);
	if (s.exit < 0 && session_alive(&s)) {
		r = session_kill_wait(&s, wait);
		session_free(&s);
		if (r)
			return 1;
		r = session_load(&s);
		if (r <= 0) {
			if (!r)
				ra_err("%s: removed while the collector stopped (another klog stop?)",
				       session_path());
			return 1;
		}
	}
	session_log(&s);
	if (s.exit >= 0) {
		st = s.exit ? 1 : 0;
		if (s.exit)
			ra_err("the collector (pid %d) exited with status %d",
			       s.pid, s.exit);
		ra_err("session stopped: klog -r %s prints its records", s.dir);
	} else {
		st = 1;
		ra_err("the session's collector (pid %d) was killed before it stopped: %s holds what it saved; the channel is left with what it had not read, for klog -o %s (or klog start -o %s) to resume the collection",
		       s.pid, s.dir, s.dir, s.dir);
		/* what a killed -e left, put back once its last thread,
		 * which holds the lock, is gone (its first a zombie: not a
		 * process that took the pid over, which is not waited for)
		 */
		lock = syscall(SYS_pidfd_open, s.pid, 0);
		if (lock >= 0) {
			if (session_this_boot(&s) && !proc_start(s.pid))
				pidfd_wait(lock, wait);
			close(lock);
		}
		lock = ra_lock(s.debugfs);
		if (lock >= 0)
			close(lock);
	}
	if (unlink(session_path()) && errno != ENOENT) {
		ra_err("%s: unlink: %s", session_path(), strerror(errno));
		st = 1;
	}
	session_free(&s);
	return st;
}

int session_cmd(int argc, char **argv)
{
	bool stop = !strcmp(argv[0], "stop"), exact = false;
	double wait = SESSION_WAIT_S;
	int i;

	for (i = 1; i < argc; i++) {
		if (!stop && !strcmp(argv[i], "--bytes"))
			exact = true;
		else if (stop && !strcmp(argv[i], "--wait") && i + 1 < argc)
			wait = parse_seconds("--wait", argv[++i]);
		else if (stop && !strncmp(argv[i], "--wait=", 7))
			wait = parse_seconds("--wait", argv[i] + 7);
		else
			usage_error("'%s' takes %s, not '%s'", argv[0],
				    stop ? "only --wait SECONDS" : "only --bytes",
				    argv[i]);
	}
	return stop ? session_stop(wait) : session_status(exact);
}
