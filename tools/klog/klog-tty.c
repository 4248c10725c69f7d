// SPDX-License-Identifier: GPL-2.0
/*
 * klog-tty.c - for a person at a terminal: the pager and colours
 *
 * The pager (klog -r with standard output on a terminal, as git does):
 * what klog prints goes through $PAGER, run by /bin/sh; "less -R" when
 * PAGER is unset (with LESS=FRX when LESS is unset, as git sets it:
 * output of one screen is printed and less quits; none without a less
 * in PATH), none when PAGER is empty or "cat", or with --no-pager.
 * Standard error goes into the pager too when it is a terminal, so that
 * the summary comes after the records instead of over them. Quitting
 * the pager (q) ends klog quietly: SIGPIPE is ignored and the report
 * stops at the first failed write (report_saved() asks pager_gone()).
 * klog waits for the pager before it exits, also when SIGINT, SIGTERM,
 * SIGHUP or SIGQUIT end it.
 *
 * Colours (--color=auto|always|never; auto: on a terminal, or into the
 * pager that runs on one, and NO_COLOR unset or empty): the CPU, the
 * context and the loss lines of text lines (klog -r, -r -f, and -f of a
 * collection); never JSON, CTF or --stat. color_line() colours a line
 * ks_format() made: after the time, its fields are one word each (the
 * task name's spaces are escaped), so the CPU is the first word, then a
 * loss line's "***", or the task and the context.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "klog-app.h"

/* ---- Colours ----------------------------------------------------------- */

#define SGR(x)		"\033[" x "m"
#define C_CPU		SGR("36")	/* cyan */
#define C_LOSS		SGR("1;31")	/* bold red */
#define C_OFF		SGR("0")

bool color_on(enum color_when when, int fd)
{
	const char *no = getenv("NO_COLOR");

	if (when != COLOR_AUTO)
		return when == COLOR_ALWAYS;
	return (isatty(fd) || (fd == STDOUT_FILENO && pager_running())) &&
	       (!no || !*no);
}

/* The colour of context word @w (@n bytes): task, softirq, ... */
static const char *ctx_color(const char *w, size_t n)
{
	static const struct { const char *name, *sgr; } ctx[] = {
		{ "task", SGR("32") }, { "softirq", SGR("33") },
		{ "hardirq", SGR("35") }, { "nmi", SGR("1;35") },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ctx); i++)
		if (strlen(ctx[i].name) == n && !memcmp(w, ctx[i].name, n))
			return ctx[i].sgr;
	return NULL;
}

int color_line(struct ks_buf *b, const char *line)
{
	const char *p = strchr(line, ']'), *w, *sgr;
	size_t n;

	if (!p)
		return ks_buf_printf(b, "%s", line);
	p++;
	if (ks_buf_printf(b, "%.*s", (int)(p - line), line))	/* the time */
		return -1;
	if (*p != ' ')
		return ks_buf_printf(b, "%s", p);
	w = p + 1;
	n = strcspn(w, "\n ");
	if (ks_buf_printf(b, " " C_CPU "%.*s" C_OFF, (int)n, w))
		return -1;
	p = w + n;
	if (!strncmp(p, " ***", 4)) {	/* a loss line, to its end */
		n = strcspn(p + 1, "\n");
		return ks_buf_printf(b, " " C_LOSS "%.*s" C_OFF "%s", (int)n,
				     p + 1, p + 1 + n);
	}
	/* " COMM-PID CTX ..." */
	w = p + (*p == ' ');
	w += strcspn(w, "\n ");
	if (*p != ' ' || *w != ' ')
		return ks_buf_printf(b, "%s", p);
	n = strcspn(w + 1, "\n ");
	sgr = ctx_color(w + 1, n);
	if (!sgr)
		return ks_buf_printf(b, "%s", p);
	return ks_buf_printf(b, "%.*s%s%.*s" C_OFF "%s", (int)(w + 1 - p), p,
			     sgr, (int)n, w + 1, w + 1 + n);
}

/* ---- The pager --------------------------------------------------------- */

static pid_t pager_pid;
static int saved_stderr = -1;	/* the terminal, while stderr is the pipe */

bool pager_running(void)
{
	return pager_pid > 0;
}

/* Close our ends of the pipe and wait for the pager; async-signal-safe. */
static int pager_close_wait(void)
{
	int st = 0;

	close(STDOUT_FILENO);
	if (saved_stderr >= 0)
		dup2(saved_stderr, STDERR_FILENO);
	while (waitpid(pager_pid, &st, 0) < 0 && errno == EINTR)
		;
	pager_pid = 0;
	return st;
}

static void pager_signal(int sig)
{
	if (pager_pid > 0)
		pager_close_wait();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void pager_atexit(void)
{
	pager_end();
}

/* Whether @prog is an executable in $PATH. */
static bool in_path(const char *prog)
{
	const char *dir = getenv("PATH");
	char path[PATH_MAX + 8];
	size_t n;

	while (dir && *dir) {
		n = strcspn(dir, ":");
		snprintf(path, sizeof(path), "%.*s/%s", (int)n, dir, prog);
		if (n && !access(path, X_OK))
			return true;
		dir += n + (dir[n] == ':');
	}
	return false;
}

int pager_start(void)
{
	const char *pager = getenv("PAGER");
	int fds[2];

	if (!pager)	/* less -R, if there is a less (not in every initramfs) */
		pager = in_path("less") ? "less -R" : "";
	if (!*pager || !strcmp(pager, "cat"))
		return 0;
	if (pipe2(fds, O_CLOEXEC)) {
		ra_err("pager: pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	pager_pid = fork();
	if (pager_pid < 0) {
		ra_err("pager: fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		pager_pid = 0;
		return -1;
	}
	if (!pager_pid) {
		dup2(fds[0], STDIN_FILENO);
		setenv("LESS", "FRX", 0);
		execl("/bin/sh", "sh", "-c", pager, (char *)NULL);
		ra_err("pager: /bin/sh: %s", strerror(errno));
		_exit(127);
	}
	if (isatty(STDERR_FILENO))
		saved_stderr = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	dup2(fds[1], STDOUT_FILENO);
	if (saved_stderr >= 0)
		dup2(fds[1], STDERR_FILENO);
	close(fds[0]);
	close(fds[1]);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGINT, pager_signal);
	signal(SIGTERM, pager_signal);
	signal(SIGHUP, pager_signal);
	signal(SIGQUIT, pager_signal);
	atexit(pager_atexit);
	return 0;
}

bool pager_gone(void)
{
	struct pollfd p = { .fd = STDOUT_FILENO, .events = POLLOUT };

	return pager_pid > 0 && poll(&p, 1, 0) == 1 && (p.revents & POLLERR);
}

int pager_end(void)
{
	int st;

	if (pager_pid <= 0)
		return 0;
	fflush(stdout);
	st = pager_close_wait();
	if (WIFEXITED(st) && WEXITSTATUS(st) >= 126) {
		ra_err("PAGER '%s' could not run (exit status %d); --no-pager or PAGER= prints without one",
		       getenv("PAGER") ? getenv("PAGER") : "less -R",
		       WEXITSTATUS(st));
		return -1;
	}
	return 0;
}

/* ---- Options ----------------------------------------------------------- */

void tty_option(struct opts *o, int opt, const char *arg)
{
	static const char *const colors[] = {
		[COLOR_AUTO] = "auto", [COLOR_ALWAYS] = "always",
		[COLOR_NEVER] = "never", NULL
	};

	if (opt == OPT_NO_PAGER) {
		o->no_pager = true;
	} else if (opt == OPT_FOLLOW_OUT) {
		o->follow_out = arg;
		o->follow = true;
	} else {
		o->color_set = true;
		o->color = parse_choice("--color", arg, colors);
	}
}

void tty_check(const struct opts *o)
{
	const char *other = o->json ? "--json" : o->ctf ? "--ctf" :
			    o->stat ? "--stat" : NULL;

	if (o->follow_out && o->report)
		usage_error("--follow-output FILE is for a collection's -f, not -r");
	if (o->report && o->follow && (o->ctf || o->stat))
		usage_error("-r -f follows a collection as text or --json lines, not %s",
			    other);
	if (o->color_set && (other || (!o->report && !o->follow)))
		usage_error("--color colours the text lines of -r and -f%s%s",
			    other ? ", not " : "", other ? other : "");
	if (o->no_pager && !o->report)
		usage_error("--no-pager is an option of -r/--report");
}
