// SPDX-License-Identifier: GPL-2.0
/*
 * klog-meta.c - DIR/meta: what a collection is, for klog -r on any machine
 *
 * A collection (klog -o DIR) or snapshot (klog -s -o DIR) writes DIR/meta
 * beside the cpuN files: text, one "KEY VALUE" line each, the first line
 * "klog-meta 1" (the version; a reader skips keys it does not know, and
 * a new version is for changes old readers would misread). The format is
 * in Documentation/trace/klog.rst ("The metadata file"):
 *
 *   klog-meta 1
 *   kind collection                 (or snapshot)
 *   release 6.12.0                  uname -r, -m, -n of the traced system
 *   machine x86_64
 *   hostname box
 *   buffers per-cpu                 (or global)
 *   cpus 4                          buffers read
 *   subbuf_size 262144
 *   n_subbufs 4
 *   read_mode read                  (or mmap; a snapshot: snapshot)
 *   start 1764545000.123456789      CLOCK_REALTIME when recording started
 *   stop 1764545010.000000001       ... and when it stopped
 *   stop_reason duration reached
 *   clock_start 7005118463 1764545000.123400000
 *   clock_stop 17005118000 1764545010.000000500
 *   dropped cpu0 full=0 big=0 nmi=0 nest=0 frozen=0 reentered=0
 *   bytes cpu0 1048576              DIR/cpu0's size as the stop left it
 *   trigger cpu=0 ts=NS reason=klog_trigger: ...
 *
 * clock_start/clock_stop pair a local_clock() value (the records'
 * timestamps) with CLOCK_REALTIME read at the same moment in the kernel
 * (klog-mod's "clock" file); a timestamp maps to wall-clock time with the
 * start pair's offset (meta_wall()). They are absent when the kernel has
 * no clock file. A
 * collection writes the file when it starts, without the stop lines,
 * and again when it stops (by way of a temporary file renamed over it).
 * The "bytes" lines, the sizes of the cpuN files as the collector left them
 * (meta_add_bytes(), at the stop and by a snapshot), let klog -r
 * tell a cpuN file cut or emptied since, even at a sub-buffer boundary,
 * where its stream alone would look whole.
 *
 * The reader trusts nothing: a regular file of at most 1 MiB, lines of
 * at most 1024 bytes, numbers checked (times and clock values at most
 * INT64_MAX ns); a malformed known line is an error naming the line.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "klog-app.h"

#define META_MAX	1048576
#define META_LINE_MAX	1024

/* The kernel's clock pair: 0, or -1 if the module has no clock file. */
int meta_clock(const char *debugfs, struct meta_clock *c)
{
	char path[PATH_MAX], buf[128];
	unsigned long long local, real;
	int n;

	snprintf(path, sizeof(path), "%s/clock", debugfs);
	if (access(path, R_OK) ||
	    ra_ctl_read(debugfs, "clock", buf, sizeof(buf)))
		return -1;
	n = -1;
	if (sscanf(buf, "local_clock=%llu realtime=%llu%n", &local, &real,
		   &n) != 2 || n != (int)strlen(buf)) {
		ra_err("%s: unexpected contents '%s'", path, buf);
		return -1;
	}
	c->local = local;
	c->real = real;
	c->valid = true;
	return 0;
}

static __u64 real_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (__u64)ts.tv_sec * NSEC + ts.tv_nsec;
}

void meta_start(struct meta *m, const char *kind, const char *debugfs)
{
	struct utsname u;

	memset(m, 0, sizeof(*m));
	snprintf(m->kind, sizeof(m->kind), "%s", kind);
	if (!uname(&u)) {
		snprintf(m->release, sizeof(m->release), "%s", u.release);
		snprintf(m->machine, sizeof(m->machine), "%s", u.machine);
		snprintf(m->hostname, sizeof(m->hostname), "%s", u.nodename);
	}
	m->start = real_now();
	meta_clock(debugfs, &m->clock_start);
}

void meta_stop(struct meta *m, const char *debugfs, const char *reason)
{
	m->stop = real_now();
	snprintf(m->stop_reason, sizeof(m->stop_reason), "%s", reason);
	meta_clock(debugfs, &m->clock_stop);
}

static int put_time(struct ks_buf *b, const char *key, __u64 ns)
{
	return ks_buf_printf(b, "%s %llu.%09llu\n", key,
			     (unsigned long long)(ns / NSEC),
			     (unsigned long long)(ns % NSEC));
}

static int put_clock(struct ks_buf *b, const char *key,
		     const struct meta_clock *c)
{
	return !c->valid ? 0 :
	       ks_buf_printf(b, "%s %llu %llu.%09llu\n", key,
			     (unsigned long long)c->local,
			     (unsigned long long)(c->real / NSEC),
			     (unsigned long long)(c->real % NSEC));
}

/*
 * Write DIR/meta, with the kernel's drop counters if @debugfs is given
 * (at the stop); renamed into place, so that klog -r -f reading it while
 * it is rewritten sees the old or the new file. 0, or -1 after a message.
 */
int meta_write(const char *dir, const struct meta *m, const char *debugfs)
{
	struct ra_stats_cpu *st = NULL;
	struct ks_buf b = { 0 };
	int n = 0, i, j, bad;

	if (debugfs) {
		n = ra_stats_read(debugfs, &st);
		if (n < 0)
			return -1;
	}
	bad = ks_buf_printf(&b, "klog-meta %d\nkind %s\n", KLOG_META_VERSION,
			    m->kind);
	if (*m->release)
		bad |= ks_buf_printf(&b, "release %s\nmachine %s\nhostname %s\n",
				     m->release, m->machine, m->hostname);
	bad |= ks_buf_printf(&b, "buffers %s\ncpus %d\n",
			     m->global ? "global" : "per-cpu", m->cpus);
	bad |= ks_buf_printf(&b, "subbuf_size %llu\nn_subbufs %llu\nread_mode %s\n",
			     (unsigned long long)m->subbuf_size,
			     (unsigned long long)m->n_subbufs, m->read_mode);
	bad |= put_time(&b, "start", m->start);
	if (m->stop)
		bad |= put_time(&b, "stop", m->stop) |
		       ks_buf_printf(&b, "stop_reason %s\n", m->stop_reason);
	bad |= put_clock(&b, "clock_start", &m->clock_start) |
	       put_clock(&b, "clock_stop", &m->clock_stop);
	for (i = 0; i < n; i++) {
		bad |= ks_buf_printf(&b, "dropped cpu%d", st[i].cpu);
		for (j = 0; j < RA_NCAUSES; j++)
			bad |= ks_buf_printf(&b, " %s=%llu", ra_causes[j].key,
					     (unsigned long long)
					     ra_stat(&st[i], ra_causes[j].key));
		bad |= ks_buf_printf(&b, "\n");
	}
	for (i = 0; i < m->nbytes; i++)
		bad |= ks_buf_printf(&b, "bytes cpu%d %llu\n", m->bytes[i].cpu,
				     (unsigned long long)m->bytes[i].bytes);
	if (*m->trigger)
		bad |= ks_buf_printf(&b, "trigger %s\n", m->trigger);
	free(st);
	if (bad)
		ra_err("%s/%s: out of memory", dir, KLOG_META_FILE);
	else
		bad = save_file(dir, KLOG_META_FILE, &b);
	ks_buf_free(&b);
	return bad ? -1 : 0;
}

/* Digits only, at least one: their count, or 0. */
static size_t digits(const char *s)
{
	size_t n = 0;

	while (isdigit((unsigned char)s[n]))
		n++;
	return n;
}

/*
 * A time or clock value in ns: at most INT64_MAX (2262), the range of
 * the kernel's own clocks and of a CTF clock's origin and timestamps.
 */
#define META_NS_MAX	((__u64)INT64_MAX)

/* "SEC.NSEC" with exactly 9 digits after the point, at most META_NS_MAX. */
static int parse_real(const char *s, __u64 *ns)
{
	size_t n = digits(s);
	unsigned long long sec, frac;

	if (!n || n > 10 || s[n] != '.' || digits(s + n + 1) != 9 ||
	    s[n + 10] != '\0')
		return -1;
	sec = strtoull(s, NULL, 10);
	frac = strtoull(s + n + 1, NULL, 10);
	if (sec > (META_NS_MAX - frac) / NSEC)
		return -1;
	*ns = sec * NSEC + frac;
	return 0;
}

/* "LOCAL SEC.NSEC": a local_clock() value (at most META_NS_MAX), a time. */
static int parse_clock(const char *s, struct meta_clock *c)
{
	size_t n = digits(s);
	unsigned long long local;

	if (!n || n > 19 || s[n] != ' ' || parse_real(s + n + 1, &c->real))
		return -1;
	errno = 0;
	local = strtoull(s, NULL, 10);
	if (errno || local > META_NS_MAX)
		return -1;
	c->local = local;
	c->valid = true;
	return 0;
}

static int parse_u64(const char *s, __u64 *v)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end ? -1 : 0;
}

/* One more entry of @m->bytes, for a CPU not in it yet: 0 or -1. */
static int bytes_add(struct meta *m, int cpu, __u64 bytes)
{
	struct meta_bytes *grown;
	int i;

	for (i = 0; i < m->nbytes; i++)
		if (m->bytes[i].cpu == cpu)
			return -1;
	/* at most KLOG_MAX_CPUS entries: each CPU once */
	grown = realloc(m->bytes, (m->nbytes + 1) * sizeof(*grown));
	if (!grown)
		return -1;
	m->bytes = grown;
	m->bytes[m->nbytes].cpu = cpu;
	m->bytes[m->nbytes++].bytes = bytes;
	return 0;
}

/*
 * meta_add_bytes() - the size of DIR/cpu@cpu as its collector leaves it
 * (@fd, written and not yet closed), for DIR/meta's "bytes" line. 0, or
 * -1 after a message naming @path.
 */
int meta_add_bytes(struct meta *m, int cpu, int fd, const char *path)
{
	struct stat sb;

	if (fstat(fd, &sb)) {
		ra_err("%s: %s", path, strerror(errno));
		return -1;
	}
	if (bytes_add(m, cpu, sb.st_size)) {
		ra_err("out of memory");
		return -1;
	}
	return 0;
}

/* "cpuN SIZE": one more entry of @m->bytes, each CPU once. */
static int parse_bytes(struct meta *m, const char *s)
{
	__u64 bytes;
	char *end;
	int cpu = ra_parse_cpu(s, KLOG_MAX_CPUS, &end);

	if (cpu < 0 || *end != ' ' || parse_u64(end + 1, &bytes))
		return -1;
	return bytes_add(m, cpu, bytes);
}

static void copy_text(char *dst, size_t size, const char *s)
{
	size_t i;

	/* printable only: the file may come from anywhere */
	for (i = 0; s[i] && i < size - 1; i++)
		dst[i] = isprint((unsigned char)s[i]) ? s[i] : '?';
	dst[i] = '\0';
}

/*
 * meta_read() - read DIR/meta into @m: 1, 0 if there is none (an older
 * collection), -1 after a message naming the file and line.
 */
int meta_read(const char *dir, struct meta *m)
{
	const unsigned char *data = NULL;
	char path[PATH_MAX], line[META_LINE_MAX + 1], key[32], why[64];
	size_t len = 0, pos = 0;
	struct stat st;
	int lineno = 0, err = 0;

	memset(m, 0, sizeof(*m));
	snprintf(path, sizeof(path), "%s/%s", dir, KLOG_META_FILE);
	if (lstat(path, &st) && errno == ENOENT)
		return 0;
	if (ra_map_file(path, &data, &len))
		return -1;
	if (len > META_MAX) {
		ra_err("%s: %zu bytes: not a klog metadata file (at most %d)",
		       path, len, META_MAX);
		err = -1;
	}
	while (!err && pos < len) {
		const unsigned char *nl = memchr(data + pos, '\n', len - pos);
		size_t n = (nl ? (size_t)(nl - data) : len) - pos;
		char *val;
		__u64 v;

		lineno++;
		if (n > META_LINE_MAX || memchr(data + pos, '\0', n)) {
			snprintf(why, sizeof(why), n > META_LINE_MAX ?
				 "longer than %d bytes" : "a NUL byte",
				 META_LINE_MAX);
			err = -1;
			break;
		}
		memcpy(line, data + pos, n);
		line[n] = '\0';
		pos += n + 1;
		val = strchr(line, ' ');
		if (!val) {
			snprintf(why, sizeof(why), "no space after its key");
			err = -1;
			break;
		}
		*val++ = '\0';
		/* the value of the key named, if it is refused below */
		copy_text(key, sizeof(key), line);
		snprintf(why, sizeof(why), "bad value for '%s'", key);
		if (lineno == 1) {
			if (strcmp(line, "klog-meta") || parse_u64(val, &v) ||
			    v != KLOG_META_VERSION) {
				snprintf(why, sizeof(why),
					 "the first line is not \"klog-meta %d\"",
					 KLOG_META_VERSION);
				err = -1;
			}
			continue;
		}
		if (!strcmp(line, "kind")) {
			copy_text(m->kind, sizeof(m->kind), val);
		} else if (!strcmp(line, "release")) {
			copy_text(m->release, sizeof(m->release), val);
		} else if (!strcmp(line, "machine")) {
			copy_text(m->machine, sizeof(m->machine), val);
		} else if (!strcmp(line, "hostname")) {
			copy_text(m->hostname, sizeof(m->hostname), val);
		} else if (!strcmp(line, "buffers")) {
			if (strcmp(val, "global") && strcmp(val, "per-cpu"))
				err = -1;
			m->global = !strcmp(val, "global");
		} else if (!strcmp(line, "cpus")) {
			err = parse_u64(val, &v) || v > KLOG_MAX_CPUS ? -1 : 0;
			m->cpus = v;
		} else if (!strcmp(line, "subbuf_size")) {
			err = parse_u64(val, &m->subbuf_size);
		} else if (!strcmp(line, "n_subbufs")) {
			err = parse_u64(val, &m->n_subbufs);
		} else if (!strcmp(line, "read_mode")) {
			copy_text(m->read_mode, sizeof(m->read_mode), val);
		} else if (!strcmp(line, "start")) {
			err = parse_real(val, &m->start);
		} else if (!strcmp(line, "stop")) {
			err = parse_real(val, &m->stop);
		} else if (!strcmp(line, "stop_reason")) {
			copy_text(m->stop_reason, sizeof(m->stop_reason), val);
		} else if (!strcmp(line, "clock_start")) {
			err = parse_clock(val, &m->clock_start);
		} else if (!strcmp(line, "clock_stop")) {
			err = parse_clock(val, &m->clock_stop);
		} else if (!strcmp(line, "trigger")) {
			copy_text(m->trigger, sizeof(m->trigger), val);
		} else if (!strcmp(line, "bytes")) {
			err = parse_bytes(m, val);
		}	/* "dropped" and keys of later versions: not needed here */
	}
	if (err)
		ra_err("%s:%d: not a klog metadata line (version %d): %s", path,
		       lineno, KLOG_META_VERSION, why);
	else if (!lineno)	/* written whole (renamed into place) */
		ra_err("%s: empty: not a klog metadata file (its first line is \"klog-meta %d\")",
		       path, KLOG_META_VERSION);
	err = err || !lineno;
	if (len)
		munmap((void *)data, len);
	if (err)
		meta_free(m);
	return err ? -1 : 1;
}

void meta_free(struct meta *m)
{
	free(m->bytes);
	m->bytes = NULL;
	m->nbytes = 0;
}

/*
 * The wall-clock time of local_clock() value @ts: @ts plus the offset of
 * the start pair (CLOCK_REALTIME - local_clock()). The one mapping of
 * klog -r: --time wall prints it and a CTF export's clock origin is the
 * same offset (meta_wall(m, 0, &origin)), so a viewer of the trace shows
 * the times the text report shows. A CTF clock has one constant offset,
 * so the stop pair is not used: between the pairs local_clock() may
 * drift from CLOCK_REALTIME by what the stop pair shows.
 * 0, or -1 if the collection has no clock reference, or one that puts
 * local_clock() 0 before 1970, or @ts maps past META_NS_MAX (2262).
 */
int meta_wall(const struct meta *m, __u64 ts, __u64 *real)
{
	const struct meta_clock *a = &m->clock_start;

	/* meta_read() checked both are at most META_NS_MAX */
	if (!a->valid || a->real < a->local)
		return -1;
	if (ts > META_NS_MAX - (a->real - a->local))
		return -1;
	*real = ts + (a->real - a->local);
	return 0;
}
