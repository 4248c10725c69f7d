// SPDX-License-Identifier: GPL-2.0
/*
 * klog-sitectl.c - the collector drives the call-site table: klog --sites
 * lists sites, klog -e enables only the selected ones for a collection
 *
 * DOC: call sites from the collector
 *
 * The core describes its call sites in two debugfs files beside the
 * channel's (see "Controlling call sites" in klog.rst): ``sites`` (TAB
 * fields: id, live or gone, kind, module, file, line, function, format,
 * escaped) and ``control`` (one line per live site with its flags and
 * ``id=N``). Both are read without trust: a line that does not parse is
 * an error naming the file and line.
 *
 * Queries: a QUERY of --sites and -e is the selection part of a control
 * query (module, file, func, line, format, id; no flags). It is parsed
 * by the kernel's own parser, kernel/klog_query.h, compiled in here
 * (words, quotes, wildcards ``*`` and ``?``, ranges, the escapes of
 * ``format``), and evaluated here with its klog_query_match(), on the
 * sites file, which also describes the gone sites. A bad query is a
 * usage error (exit 2) with the parser's message, before anything is
 * changed.
 *
 * -e: once the collector holds the collectors' lock (relay_app's flock()
 * on the channel's ``create`` file, which every klog collection takes
 * for as long as it runs), sitectl_begin() saves every
 * live site's id and flag to the state file KLOG_SITES_SAVED
 * (/run/klog/sites.saved: 0600 in a 0700 directory, never through a
 * symbolic link; written to a temporary name and renamed, so it is
 * whole or absent), then writes ``=_`` and each QUERY with ``+p`` to
 * ``control`` in one write(2) (the kernel applies a batch whole or not
 * at all). sitectl_end() puts the saved flags back with ``id A-B =p``
 * and ``id A-B =_`` queries for runs of ids (ids are never reused within
 * a boot, so a saved id names the same site or a gone one) and removes
 * the file. It runs after the channel is disabled, so that no record of
 * a site enabled again enters the collection, with SIGINT, SIGTERM and
 * SIGHUP blocked.
 *
 * A collector killed before that leaves the file. Whoever takes the
 * lock next - a collection, klog -R, -s, --thaw, --stop - puts
 * that state back first (relay_app's ra_lock(), ra_sites_restore()) and
 * says so on stderr. The lock means that two collectors never save or
 * restore at once: the second one fails at ra_open() before it reads
 * anything. The file names the boot it was written in
 * (/proc/sys/kernel/random/boot_id) and the control directory; a file
 * from another boot is removed unused, one of another directory left
 * alone. A second Ctrl-C while the collection stops does not cut this
 * short: the signals stay blocked until ra_close() (relay_app's
 * ra_stop()).
 *
 * Limits: sites of a module loaded during the collection start in the
 * kernel's default state (klog.sites_default=), whatever -e selected,
 * and are left as they are at the end; ``<module>.klog=`` sets them at
 * load.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "klog-app.h"
#include "klog_query.h"	/* kernel/klog_query.h: the one query parser */

#define SC_CONTROL_MAX	RA_CONTROL_MAX
#define SC_CONTROL_HDR	"# file:line [module]function =flags "

/*
 * The sites file, parsed by the tool's one parser (klog-stream-sites.c),
 * and each site's flag from the control file: on[i] for t.v[i], 1 or 0
 * for a live site, -1 until control names it.
 */
struct sites {
	struct ks_sites	t;
	signed char	*on;
};

/* The selection part of a control query. */
struct squery {
	struct klog_query	q;
	char			*buf;	/* the words */
};

/* ---- Reading the core's files ---------------------------------------- */

/* All of a (debugfs) file as a NUL-terminated string, or NULL after a message. */
static char *read_all(const char *path)
{
	size_t len;
	char *buf = ra_read_file(path, KS_SITES_MAX_FILE, &len, true);

	if (!buf && errno == ENOENT)
		ra_err("%s: open: %s (is this kernel built with CONFIG_KLOG and debugfs mounted?)",
		       path, strerror(ENOENT));
	if (buf && strlen(buf) != len) {
		ra_err("%s: a NUL byte in the file", path);
		free(buf);
		return NULL;
	}
	return buf;
}

static int site_cmp_id(const void *a, const void *b)
{
	const struct ks_site *const *x = a, *const *y = b;

	return (*x)->id < (*y)->id ? -1 : (*x)->id > (*y)->id;
}

/* The index of the site with @id in @ss, or -1. */
static long site_index(const struct sites *ss, unsigned int id)
{
	struct ks_site key = { .id = id }, *kp = &key, **slot;

	slot = bsearch(&kp, ss->t.v, ss->t.n, sizeof(*ss->t.v), site_cmp_id);
	return slot ? slot - ss->t.v : -1;
}

static void sitectl_sites_free(struct sites *ss)
{
	ks_sites_free(&ss->t);
	free(ss->on);
	*ss = (struct sites) { 0 };
}

/*
 * The state of every live site from the control file: "... =p ... id=N
 * records=N" (the flags follow "[module]function", the id is the last
 * "id=" of the line: a format's own text is escaped inside quotes).
 */
static int read_control(const char *dir, struct sites *ss)
{
	char path[PATH_MAX], *text, *line, *next, *p;
	unsigned int id, lineno = 1;
	long i;
	int ret = -1;

	snprintf(path, sizeof(path), "%s/control", dir);
	text = read_all(path);
	if (!text)
		return -1;
	if (strncmp(text, SC_CONTROL_HDR, strlen(SC_CONTROL_HDR))) {
		ra_err("%s: not klog's control file (its first line is not its header)",
		       path);
		goto out;
	}
	for (line = strchr(text, '\n'); line && line[1]; line = next) {
		line++;
		lineno++;
		next = strchr(line, '\n');
		if (next)
			*next = '\0';
		p = strchr(line, ']');
		p = p ? strchr(p, ' ') : NULL;
		if (!p || p[1] != '=' || (p[2] != 'p' && p[2] != '_') ||
		    p[3] != ' ') {
			ra_err("%s:%u: no \" =p \" or \" =_ \" after [module]function",
			       path, lineno);
			goto out;
		}
		p = strrchr(line, ' ');
		if (!p || strncmp(p, " records=", 9)) {
			ra_err("%s:%u: does not end in records=N", path, lineno);
			goto out;
		}
		*p = '\0';
		p = strrchr(line, ' ');
		if (!p || strncmp(p, " id=", 4) || ra_parse_uint(p + 4, &id)) {
			ra_err("%s:%u: no id=N before records=N", path, lineno);
			goto out;
		}
		i = site_index(ss, id);
		if (i < 0 || !ss->t.v[i]->live) {
			ra_err("%s:%u: site id %u is not a live site of %s/sites (did a module load or unload just now? try again)",
			       path, lineno, id, dir);
			goto out;
		}
		p = strchr(strchr(line, ']'), ' ');
		ss->on[i] = p[2] == 'p';
	}
	ret = 0;
out:
	free(text);
	return ret;
}

/* Read the sites file and, with @state, the flags of the live sites. */
static int sites_read(const char *dir, struct sites *ss, bool state)
{
	char path[PATH_MAX], err[PATH_MAX + 256], *text;
	size_t i;
	int ret;

	*ss = (struct sites) { 0 };
	snprintf(path, sizeof(path), "%s/sites", dir);
	text = read_all(path);
	if (!text)
		return -1;
	ret = ks_sites_parse(&ss->t, text, strlen(text), path, err, sizeof(err));
	free(text);
	if (ret) {
		ra_err("%s", err);
		return -1;
	}
	ss->on = malloc(ss->t.n + 1);
	if (!ss->on) {
		ra_err("out of memory");
		goto fail;
	}
	memset(ss->on, -1, ss->t.n + 1);
	if (state && read_control(dir, ss))
		goto fail;
	for (i = 0; state && i < ss->t.n; i++) {
		if (ss->t.v[i]->live && ss->on[i] < 0) {
			ra_err("%s: site id %u is live but not in %s/control (did a module load just now? try again)",
			       path, ss->t.v[i]->id, dir);
			goto fail;
		}
	}
	return 0;
fail:
	sitectl_sites_free(ss);
	return -1;
}

/* ---- Queries ----------------------------------------------------------- */

/*
 * Parse @text, one query without flags, with the kernel's own parser
 * (kernel/klog_query.h). What only the collector refuses is checked
 * here: a second query or a comment (a QUERY is one query: -e is
 * repeatable), flags. 0, or -1 with a message in @e. An empty query
 * selects every site.
 */
static int squery_parse(const char *text, struct squery *sq,
			struct klog_query_err *e)
{
	char *words[KLOG_QUERY_WORDS - 1], *pos, *last, end = '\0';
	int n = 0, ret;

	*sq = (struct squery) { .buf = strdup(text) };
	if (!sq->buf) {
		snprintf(e->msg, sizeof(e->msg), "out of memory");
		return -1;
	}
	pos = sq->buf;
	/* The kernel takes one more word: the flags that -e appends. */
	ret = klog_query_split(&pos, words, KLOG_QUERY_WORDS - 1, &n, &end, e);
	if (ret < 0)
		return -1;
	if (end) {
		snprintf(e->msg, sizeof(e->msg),
			 "'%c' would end the query or start a comment: give one query (-e is repeatable)",
			 end == '\n' ? 'n' : end);
		return -1;
	}
	/*
	 * Flags: a last word that is not a value (+x, =), or one that reads
	 * as flags (func +p: a value in the kernel's grammar, but a slip).
	 */
	last = n ? words[n - 1] : "";
	if (*last && strchr("+-=", *last) &&
	    (n % 2 || (last[1] && !last[1 + strspn(last + 1, "p_")]))) {
		snprintf(e->msg, sizeof(e->msg),
			 "\"%s\": a QUERY only selects sites (module, file, func, line, format, id); give no flags",
			 klog_q_word(e, 0, last));
		return -1;
	}
	return klog_query_parse(&sq->q, words, n, false, e) ? -1 : 0;
}

static bool site_is_raw(const struct ks_site *s)
{
	return !strcmp(s->kind, "raw");
}

/* Whether the query @sq selects the site @s (of the sites file). */
static bool squery_match(const struct squery *sq, const struct ks_site *s)
{
	return klog_query_match(&sq->q, s->module, s->file, s->func,
				site_is_raw(s) ? NULL : s->fmt, s->line, s->id);
}

void sitectl_check_query(const char *opt, const char *query)
{
	struct klog_query_err err;
	struct squery sq;
	bool empty;
	int ret;

	ret = squery_parse(query, &sq, &err);
	empty = !sq.q.module && !sq.q.file && !sq.q.func && !sq.q.format &&
		!sq.q.lines && !sq.q.ids;
	free(sq.buf);
	if (ret)
		usage_error("%s '%s': %s", opt, query, err.msg);
	if (empty && !strcmp(opt, "-e"))
		usage_error("%s '%s': an empty query would select every site; say which to enable",
			    opt, query);
}

/* ---- klog --sites ------------------------------------------------------ */

/*
 * A site's module, FILE:LINE and function as a terminal may show them,
 * whole: a field of the sites file has at most KS_FUNC_MAX bytes, and
 * ra_escape() writes at most 4 for each.
 */
struct site_names {
	char mod[4 * KS_FUNC_MAX + 1], loc[4 * (KS_FUNC_MAX + 16) + 1];
	char func[4 * KS_FUNC_MAX + 1];
};

static void site_names(struct site_names *n, const struct ks_site *s)
{
	char loc[KS_FUNC_MAX + 16];
	int len = snprintf(loc, sizeof(loc), "%s:%u", s->file, s->line);

	ra_escape(n->mod, sizeof(n->mod), s->module, strlen(s->module));
	ra_escape(n->loc, sizeof(n->loc), loc,
		  len < (int)sizeof(loc) ? (size_t)len : sizeof(loc) - 1);
	ra_escape(n->func, sizeof(n->func), s->func, strlen(s->func));
}

int sites_list(const char *dir, const char *query)
{
	int wmod = 6, wloc = 9, wfunc = 8, w, ret = 0;
	static struct site_names nm;
	struct klog_query_err err;
	struct ks_buf fmt = { 0 };
	struct sites ss;
	struct squery q;
	size_t i;

	if (squery_parse(query, &q, &err))
		usage_error("--sites '%s': %s", query, err.msg);
	if (sites_read(dir, &ss, true)) {
		free(q.buf);
		return 1;
	}
	for (i = 0; i < ss.t.n; i++) {
		const struct ks_site *s = ss.t.v[i];

		if (!squery_match(&q, s))
			continue;
		site_names(&nm, s);
		w = strlen(nm.mod);
		wmod = w > wmod ? w : wmod;
		w = strlen(nm.loc);
		wloc = w > wloc ? w : wloc;
		w = strlen(nm.func);
		wfunc = w > wfunc ? w : wfunc;
	}
	printf("%-10s %-5s %-*s %-*s %-*s %s\n", "ID", "STATE", wmod, "MODULE",
	       wloc, "FILE:LINE", wfunc, "FUNCTION", "FORMAT");
	for (i = 0; i < ss.t.n && !ret; i++) {
		const struct ks_site *s = ss.t.v[i];

		if (!squery_match(&q, s))
			continue;
		site_names(&nm, s);
		printf("%-10u %-5s %-*s %-*s %-*s ", s->id,
		       !s->live ? "gone" : ss.on[i] ? "on" : "off", wmod,
		       nm.mod, wloc, nm.loc, wfunc, nm.func);
		fmt.len = 0;
		if (site_is_raw(s))
			puts("raw");
		else if (ks_site_escape(&fmt, s->fmt) || ks_buf_reserve(&fmt, 0))
			ret = 1;
		else
			printf("\"%.*s\"\n", (int)fmt.len, fmt.p);
	}
	if (ret)
		ra_err("out of memory");
	ks_buf_free(&fmt);
	free(q.buf);
	sitectl_sites_free(&ss);
	if (fflush(stdout) || ferror(stdout)) {
		ra_err("standard output: %s", strerror(errno));
		return 1;
	}
	return ret;
}

/* ---- The state file ---------------------------------------------------- */

int state_dir(void)
{
	const char *dir = getenv("KLOG_STATE_DIR");

	dir = dir && *dir ? dir : KLOG_STATE_DIR;
	/* /run/klog: /run may be missing in a minimal root (an initramfs) */
	if (!strcmp(dir, KLOG_STATE_DIR) && mkdir("/run", 0755) &&
	    errno != EEXIST) {
		ra_err("/run: mkdir: %s", strerror(errno));
		return -1;
	}
	return ra_out_dir(dir);
}

/* Save the flags of every live site of @ss, whole or not at all. */
static int state_save(const struct sites *ss, const char *dir)
{
	const char *path = ra_sites_state_path();
	char tmp[PATH_MAX + 8], boot[64];
	FILE *f;
	size_t i;
	int fd;

	if (state_dir())
		return -1;
	snprintf(tmp, sizeof(tmp), "%s.new", path);
	fd = ra_out_open(tmp, O_WRONLY | O_CREAT | O_TRUNC);
	if (fd < 0)
		return -1;
	f = fdopen(fd, "w");
	if (!f) {
		ra_err("%s: %s", tmp, strerror(errno));
		close(fd);
		return -1;
	}
	ra_boot_id(boot, sizeof(boot));
	fprintf(f, RA_SITES_STATE_HDR "%s pid=%d dir=%s\n", boot, (int)getpid(),
		dir);
	for (i = 0; i < ss->t.n; i++)
		if (ss->t.v[i]->live)
			fprintf(f, "%u\t%c\n", ss->t.v[i]->id,
				ss->on[i] ? 'p' : '_');
	if (fflush(f) || ferror(f) || fsync(fd)) {
		ra_err("%s: write: %s", tmp, strerror(errno));
		fclose(f);
		return -1;
	}
	if (fclose(f)) {
		ra_err("%s: close: %s", tmp, strerror(errno));
		return -1;
	}
	if (ra_out_rename(tmp, path))
		return -1;
	return 0;
}

/* ---- klog -e ----------------------------------------------------------- */

static bool sitectl_saved;	/* our state file is there to put back */

int sitectl_begin(const char *dir, const char *const *queries, int n,
		  bool quiet)
{
	size_t len = 3, i, selected = 0, live = 0;
	struct klog_query_err err;
	struct squery *qs;
	struct sites ss;
	char *buf;
	int k, ret = -1;

	/* a killed collector's state was put back by ra_lock() */
	if (!n)
		return 0;
	if (sites_read(dir, &ss, true))
		return -1;
	qs = calloc(n, sizeof(*qs));
	for (k = 0; k < n; k++)
		len += strlen(queries[k]) + 4;
	buf = malloc(len + 1);
	if (!qs || !buf) {
		ra_err("out of memory");
		goto out;
	}
	memcpy(buf, "=_\n", 4);
	for (k = 0; k < n; k++) {
		if (squery_parse(queries[k], &qs[k], &err)) {
			ra_err("-e '%s': %s", queries[k], err.msg);	/* checked before */
			goto out;
		}
		strcat(buf, queries[k]);
		strcat(buf, " +p\n");
	}
	if (strlen(buf) > SC_CONTROL_MAX) {
		ra_err("-e: the queries take %zu bytes, more than the %d the control file takes in one write",
		       strlen(buf), SC_CONTROL_MAX);
		goto out;
	}
	for (i = 0; i < ss.t.n; i++) {
		if (!ss.t.v[i]->live)
			continue;
		live++;
		for (k = 0; k < n; k++) {
			if (squery_match(&qs[k], ss.t.v[i])) {
				selected++;
				break;
			}
		}
	}
	if (state_save(&ss, dir))
		goto out;
	sitectl_saved = true;
	if (ra_control_write(dir, buf, strlen(buf))) {
		ra_err("-e: the kernel refused the queries (its message is in dmesg); nothing changed");
		goto out;
	}
	if (!quiet || !selected)
		ra_err("-e: %zu of %zu call sites enabled, the others disabled until the collection ends (state saved in %s)%s",
		       selected, live, ra_sites_state_path(),
		       selected ? "" :
		       "; no site selected now: a module loaded later gets klog.sites_default");
	ret = 0;
out:
	for (k = 0; qs && k < n; k++)
		free(qs[k].buf);
	free(qs);
	free(buf);
	sitectl_sites_free(&ss);
	return ret;
}

int sitectl_end(const char *dir, bool quiet)
{
	if (!sitectl_saved)
		return 0;
	/* before ra_close(): a second Ctrl-C is still blocked, not lost */
	sitectl_saved = false;
	return ra_sites_restore(dir, false, quiet);
}
