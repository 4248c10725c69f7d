// SPDX-License-Identifier: GPL-2.0
/*
 * relay_opts.c - what the user is told, and what it asks: messages,
 * usage errors, the options of a collection
 *
 * A message is one line on stderr, "PROG: message" (ra_err()); a usage
 * error adds "Try 'PROG --help' ..." and exits 2. Text read from files
 * (a site's function, a symbol) is printed through ra_escape(), so that
 * no byte of it reaches the terminal raw. ra_getopt() merges the common
 * options (struct ra_opts) with the tool's own into one getopt_long()
 * table on its first call: the tool's loop sees both in the order they
 * were given, and ra_opt_name() names any of them as the table spells
 * it. A number is all of its argument (no sign, no blanks, nothing
 * after it), its range checked before a suffix's shift could overflow.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "relay_app_int.h"
#include "klog-stream.h"

void ra_err(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: %s\n", program_invocation_short_name, msg);
}

void usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", program_invocation_short_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help' for more information.\n",
		program_invocation_short_name);
	exit(2);
}

char *ra_escape(char *buf, size_t size, const void *data, size_t n)
{
	const unsigned char *p = data;
	size_t i, o = 0;

	if (!size)
		return buf;
	for (i = 0; i < n; i++) {
		char e[4];
		size_t k = ks_escape_byte(p[i], e);

		if (o + k >= size)
			break;		/* cut at a whole escape */
		memcpy(buf + o, e, k);
		o += k;
	}
	buf[o] = '\0';
	return buf;
}

/* kept in nanoseconds: anything else could not be honoured */
#define RA_SECONDS_MIN	0.000000001

#define RA_SECONDS_MAX	1e9

double parse_seconds(const char *opt, const char *arg)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(v) || v <= 0)
		usage_error("%s: invalid value '%s' (expected seconds > 0, e.g. 10 or 0.5)",
			    opt, arg);
	if (v < RA_SECONDS_MIN || v > RA_SECONDS_MAX)
		usage_error("%s: invalid value '%s' (expected %g to %g seconds)",
			    opt, arg, RA_SECONDS_MIN, RA_SECONDS_MAX);
	return v;
}

unsigned long long parse_count(const char *opt, const char *arg,
			       const char *suffixes, unsigned long long min,
			       unsigned long long max, const char *expected)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	errno = 0;
	if (!isdigit((unsigned char)arg[0]))
		goto bad;
	v = strtoull(arg, &end, 10);
	if (errno)
		goto bad;
	if (suffixes && *end && strchr(suffixes, *end)) {
		shift = tolower((unsigned char)*end) == 'k' ? 10 :
			tolower((unsigned char)*end) == 'm' ? 20 : 30;
		end++;
	}
	if (*end || v > (max >> shift) || (v << shift) < min)
		goto bad;
	return v << shift;
bad:
	usage_error("%s: invalid value '%s' (expected %s)", opt, arg, expected);
}

int ra_parse_uint(const char *s, unsigned int *v)
{
	unsigned long long x = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		x = x * 10 + (*s - '0');
		if (x > UINT_MAX)
			return -1;
	}
	*v = x;
	return 0;
}

int ra_parse_cpu(const char *s, int max, char **end)
{
	unsigned long long n;

	if (strncmp(s, "cpu", 3) || !isdigit((unsigned char)s[3]) ||
	    (s[3] == '0' && isdigit((unsigned char)s[4])))
		return -1;
	errno = 0;
	n = strtoull(s + 3, end, 10);
	return errno || n >= (unsigned int)max ? -1 : (int)n;
}

char *const *ra_command_arg(int argc, char **argv)
{
	return optind < argc ? argv + optind : NULL;
}

int parse_choice(const char *opt, const char *arg, const char *const *names)
{
	char expected[256] = "";
	int i;

	for (i = 0; names[i]; i++)
		if (!strcmp(arg, names[i]))
			return i;
	for (i = 0; names[i]; i++)	/* "a, b or c" */
		snprintf(expected + strlen(expected),
			 sizeof(expected) - strlen(expected), "%s%s",
			 !i ? "" : names[i + 1] ? ", " : " or ", names[i]);
	usage_error("%s: invalid value '%s' (expected %s)", opt, arg, expected);
}

static bool ra_parse_opt(int c, const char *arg, struct ra_opts *o)
{
	static const char *const ra_modes[] = {
		[RA_MODE_READ] = "read", [RA_MODE_MMAP] = "mmap", NULL
	};

	switch (c) {
	case 'b':
		o->subbuf_size = parse_count("-b/--subbuf-size", arg, "kKmMgG",
					     1, SIZE_MAX,
					     "a positive size in bytes, e.g. 1048576 or 1M");
		return true;
	case 'n':
		o->n_subbufs = parse_count("-n/--n-subbufs", arg, NULL,
					   1, SIZE_MAX, "a positive integer");
		return true;
	case 'm':
		o->mode = parse_choice("-m/--mode", arg, ra_modes);
		return true;
	case 'o':
		o->out = arg;
		return true;
	case 't':
		o->duration = parse_seconds("-t/--duration", arg);
		return true;
	case 'd':
		o->debugfs = arg;
		return true;
	case 'q':
		o->quiet = true;
		return true;
	case 'x':
		o->replace = true;
		return true;
	}
	return false;
}

#define RA_OPTS_SHORT	"b:n:m:o:t:d:qxh"

#define RA_LONGOPTS_MAX	64

static const struct option ra_longopts[] = {
	{ "subbuf-size",	required_argument, NULL, 'b' },
	{ "n-subbufs",		required_argument, NULL, 'n' },
	{ "mode",		required_argument, NULL, 'm' },
	{ "output",		required_argument, NULL, 'o' },
	{ "duration",		required_argument, NULL, 't' },
	{ "debugfs",		required_argument, NULL, 'd' },
	{ "replace",		no_argument,	   NULL, 'x' },
	{ "quiet",		no_argument,	   NULL, 'q' },
	{ "help",		no_argument,	   NULL, 'h' },
};

/* getopt_long() (opterr = 0) returned ':' or '?': the usage error */
__noreturn static void usage_bad_option(int c, char **argv)
{
	if (c == ':')
		usage_error("option '%s' needs a value", argv[optind - 1]);
	if (optopt)
		usage_error("unknown option '-%c'", optopt);
	usage_error("unknown option '%s'", argv[optind - 1]);
}

/* the common options and the tool's, merged on the first ra_getopt() */
static struct option ra_allopts[RA_LONGOPTS_MAX + 1];

int ra_getopt(int argc, char **argv, const char *shortopts,
	      const struct option *longopts, struct ra_opts *o)
{
	static char optstring[128];
	size_t n = ARRAY_SIZE(ra_longopts);
	int c;

	if (!optstring[0]) {
		memcpy(ra_allopts, ra_longopts, sizeof(ra_longopts));
		for (; longopts->name && n < RA_LONGOPTS_MAX; longopts++)
			ra_allopts[n++] = *longopts;
		snprintf(optstring, sizeof(optstring), "+:%s%s",
			 RA_OPTS_SHORT, shortopts);
		opterr = 0;
	}
	c = getopt_long(argc, argv, optstring, ra_allopts, NULL);
	if (c == ':' || c == '?')
		usage_bad_option(c, argv);
	if (c == 'h') {
		o->help(stdout);
		exit(0);
	}
	if (c != -1)
		ra_parse_opt(c, optarg, o);
	return c;
}

const char *ra_opt_name(int c)
{
	/* one buffer per option: a name stays valid after the next call */
	static char names[RA_LONGOPTS_MAX + 1][40];
	const char *name;
	size_t i;

	for (i = 0; ra_allopts[i].name && ra_allopts[i].val != c; i++)
		;
	name = ra_allopts[i].name ? ra_allopts[i].name : "?";
	if (c > 255)	/* a long option alone */
		snprintf(names[i], sizeof(names[i]), "--%s", name);
	else
		snprintf(names[i], sizeof(names[i]), "-%c/--%s", c, name);
	return names[i];
}
