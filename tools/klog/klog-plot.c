// SPDX-License-Identifier: GPL-2.0
/*
 * klog-plot.c - klog --plot FILE [DIR]: records per second as an SVG image
 *
 * A report sink (klog-report.c), so -r's filters apply: the records
 * they select are counted in time bins per CPU (the record's cpu field)
 * and per call site, and the losses where the streams show them. At the
 * end one self-contained SVG file (no script, no external reference):
 * a panel of a line per CPU, one of a line for each of the PLOT_TOP
 * sites with the most records, a red mark at each loss with its count
 * beside it and in its <title> (the tooltip).
 *
 * Bins: PLOT_BINS of a width that starts at PLOT_W0 and doubles (bins
 * merged in pairs) whenever an event falls past the last, so that one
 * pass over a collection of unknown length ends with PLOT_BINS / 2 to
 * PLOT_BINS of them (fewer if it lasted under PLOT_BINS * PLOT_W0). A
 * point is a bin's records per second, at its middle; the last bin's
 * over the part of it up to the last event (a quarter at least), lest
 * every plot seem to slow down at its end. The losses of a bin make one
 * mark, at the first one's time.
 *
 * The file is created 0600, never through a symbolic link; one that
 * exists is refused before the collection is read, unless --force.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "klog-app.h"
#include "../lib/klog/klog_hash.h"
#include "../lib/klog/u64map.h"

#define PLOT_BINS	200
#define PLOT_W0		1000		/* ns: the first bins' width */
#define PLOT_TOP	5		/* sites drawn */
#define PLOT_FUNC_SHOWN	20		/* bytes of a function's name shown */
/* The layout, in pixels: plot area, legend, row of the legend */
#define PL	70
#define PR	720
#define LX	740
#define WIDTH	1000
#define ROW	16

/* A series' key: what it counts (never 0) above KEY_SHIFT, and which. */
#define KEY_SHIFT	62
enum {
	KEY_CPU = 1,	/* the cpu */
	KEY_SITE,	/* the site id (version 2) */
	KEY_V1,		/* line << 32 | fnv1a(function), probed on */
};

#define KEY(kind, id)	((__u64)(kind) << KEY_SHIFT | (id))

struct series {
	__u64	key, total;
	char	name[4 * PLOT_FUNC_SHOWN + 32];	/* "cpu3", "func:line" */
	__u64	bins[PLOT_BINS];
};

struct series_idx {
	__u64	key;
	size_t	i;
};

struct loss {			/* the losses of one bin (counts > 0) */
	__u64	records, subbufs;
	__u64	ts;		/* the first one's */
	int	cpu;		/* its buffer; -1: more than one */
};

struct plot {
	const char	*path, *dir;
	bool		force, filtered;
	struct series	**s;
	size_t		n, cap;
	struct u64map	idx;	/* struct series_idx */
	struct loss	loss[PLOT_BINS];
	__u64		origin, last, width, records, lost;
	size_t		nbins;	/* in use */
	bool		started;
};

static const char *const colors[] = {
	"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2",
	"#7f7f7f", "#bcbd22", "#17becf",	/* not the losses' red */
};

#define NCOLORS		ARRAY_SIZE(colors)
#define LOSS_COLOR	"#d62728"

/* Twice the bin width: bins 2j and 2j + 1 become bin j. */
static void plot_halve(struct plot *p)
{
	size_t i, j;

	for (i = 0; i < p->n; i++) {
		__u64 *v = p->s[i]->bins;

		for (j = 0; j < PLOT_BINS / 2; j++)
			v[j] = v[2 * j] + v[2 * j + 1];
		memset(v + PLOT_BINS / 2, 0, PLOT_BINS / 2 * sizeof(*v));
	}
	for (j = 0; j < PLOT_BINS / 2; j++) {
		struct loss m = p->loss[2 * j], *b = &p->loss[2 * j + 1];

		if (!m.records && !m.subbufs)
			m = *b;
		else if (b->records || b->subbufs)
			m = (struct loss) { ks_add_sat(m.records, b->records),
					    ks_add_sat(m.subbufs, b->subbufs),
					    m.ts, b->cpu == m.cpu ? m.cpu : -1 };
		p->loss[j] = m;
	}
	memset(p->loss + PLOT_BINS / 2, 0, PLOT_BINS / 2 * sizeof(p->loss[0]));
	p->width *= 2;
	p->nbins = (p->nbins + 1) / 2;
}

/* The series of @key (@ev's CPU or site), made on first sight; NULL: memory. */
static struct series *series_get(struct plot *p, __u64 key,
				 const struct ks_event *ev)
{
	struct series_idx *e, ne;
	struct series *s;
	char name[sizeof(s->name)], esc[4 * PLOT_FUNC_SHOWN + 1];
	size_t n = ev->func_len;

	e = u64map_find(&p->idx, key);
	if (e && key >> KEY_SHIFT != KEY_V1)
		return p->s[e->i];
	if (key >> KEY_SHIFT != KEY_CPU && ev->func && n)	/* names from a file: escaped */
		snprintf(name, sizeof(name), "%s%s:%u",
			 ra_escape(esc, sizeof(esc), ev->func,
				   n > PLOT_FUNC_SHOWN ? PLOT_FUNC_SHOWN : n),
			 n > PLOT_FUNC_SHOWN ? "..." : "", ev->line);
	else if (key >> KEY_SHIFT != KEY_CPU)
		snprintf(name, sizeof(name), ev->version >= 2 ? "site#%u" : "?:%u",
			 ev->version >= 2 ? ev->rec.site_id : ev->line);
	else
		snprintf(name, sizeof(name), "cpu%u", ev->rec.cpu);
	/* a version 1 key is a hash: equal keys of other names probe on */
	for (; e; e = u64map_find(&p->idx, ++key))
		if (!strcmp(p->s[e->i]->name, name))
			return p->s[e->i];
	if (p->n == p->cap) {
		void *v = realloc(p->s, (p->cap + 64) * sizeof(*p->s));

		if (!v)
			return NULL;
		p->s = v;
		p->cap += 64;
	}
	ne = (struct series_idx) { .key = key, .i = p->n };
	s = calloc(1, sizeof(*s));
	if (!s || !u64map_add(&p->idx, &ne)) {
		free(s);
		return NULL;
	}
	s->key = key;
	memcpy(s->name, name, sizeof(name));
	p->s[p->n++] = s;
	return s;
}

static int plot_event(void *priv, int src, const struct ks_event *ev)
{
	struct series *c, *s;
	struct plot *p = priv;
	__u64 d, key, b;

	(void)src;
	if (ev->kind == KS_SUBBUF)
		return 0;
	if (!p->started)
		p->origin = ev->ts;
	p->started = true;
	d = ev->ts > p->origin ? ev->ts - p->origin : 0;
	if (d > p->last)
		p->last = d;
	while (d / p->width >= PLOT_BINS)
		plot_halve(p);
	b = d / p->width;
	if (b >= p->nbins)
		p->nbins = b + 1;
	if (ev->kind != KS_RECORD) {
		struct loss *l = &p->loss[b];

		if (!l->records && !l->subbufs)
			*l = (struct loss) { .ts = d, .cpu = ev->cpu };
		else if (l->cpu != ev->cpu)
			l->cpu = -1;
		if (ev->kind == KS_LOST) {
			l->records = ks_add_sat(l->records, ev->count);
			p->lost = ks_add_sat(p->lost, ev->count);
		} else {
			l->subbufs = ks_add_sat(l->subbufs, ev->count);
		}
		return 0;
	}
	if (ev->version >= 2)
		key = KEY(KEY_SITE, ev->rec.site_id);
	else
		key = KEY(KEY_V1, (__u64)(ev->line & 0xfffffff) << 32 |
			  klog_fnv1a(KLOG_FNV1A_INIT, ev->func, ev->func_len));
	c = series_get(p, KEY(KEY_CPU, ev->rec.cpu), ev);
	s = c ? series_get(p, key, ev) : NULL;
	if (!s) {
		ra_err("out of memory");
		return -1;
	}
	c->bins[b]++;
	s->bins[b]++;
	c->total++;
	s->total++;
	p->records++;
	return 0;
}

/* CPUs first, by number; then sites, most records first, then by name. */
static int series_cmp(const void *a, const void *b)
{
	const struct series *x = *(void *const *)a, *y = *(void *const *)b;
	bool xc = x->key >> KEY_SHIFT == KEY_CPU;
	bool yc = y->key >> KEY_SHIFT == KEY_CPU;

	if (xc != yc)
		return xc ? -1 : 1;
	if (!xc && x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return strverscmp(x->name, y->name);
}

/* The part of bin @j the events span: 1 but in the last bin. */
static double bin_part(const struct plot *p, size_t j)
{
	double part = (p->last + 1 - (double)j * p->width) / p->width;

	return j + 1 < p->nbins || part >= 1 ? 1 : part < 0.25 ? 0.25 : part;
}

/* Records a second of @s in bin @j. */
static double rate(const struct plot *p, const struct series *s, size_t j)
{
	return s->bins[j] * (double)NSEC / p->width / bin_part(p, j);
}

/* A step of 1, 2 or 5 times a power of ten, about @range / @n. */
static double nice_step(double range, int n)
{
	double m = 1.0 / NSEC, r = range / n;

	while (m * 10 <= r)
		m *= 10;
	return r <= m ? m : r <= 2 * m ? 2 * m : r <= 5 * m ? 5 * m : 10 * m;
}

/* @s (printable ASCII: escaped names, numbers) as XML text. */
static void xml_text(FILE *f, const char *s)
{
	for (; *s; s++)
		if (strchr("&<>\"'", *s))
			fprintf(f, "&#%d;", *s);
		else
			fputc(*s, f);
}

/* A legend row at @y: a line of @color and @dash, @name, @count. */
static void legend_row(FILE *f, double y, const char *color, const char *dash,
		       const char *name, __u64 count)
{
	fprintf(f, "<line x1='%d' x2='%d' y1='%.0f' y2='%.0f' stroke='%s' stroke-width='2'%s/>",
		LX, LX + 18, y - 4, y - 4, color, dash);
	fprintf(f, "<text x='%d' y='%.0f'>", LX + 24, y);
	xml_text(f, name);
	fprintf(f, "</text><text x='%d' y='%.0f' text-anchor='end'>%llu</text>\n",
		WIDTH - 6, y, (unsigned long long)count);
}

/* A panel of @n series from @top, @h high: axes, lines, legend. */
static void panel(FILE *f, const struct plot *p, const char *title,
		  struct series **v, size_t n, int top, int h)
{
	double span = (double)p->nbins * p->width / NSEC, ymax = 0, step, y, x;
	size_t i, j;
	int k;

	for (i = 0; i < n; i++)
		for (j = 0; j < p->nbins; j++)
			if (rate(p, v[i], j) > ymax)
				ymax = rate(p, v[i], j);
	step = nice_step(ymax > 0 ? ymax : 1, 5);
	ymax = step * (int)(ymax / step + 0.999999);
	if (ymax < step)
		ymax = step;
	fprintf(f, "<rect x='%d' y='%d' width='%d' height='%d' fill='none' stroke='#888'/>\n",
		PL, top, PR - PL, h);
	for (k = 0; k * step <= ymax * 1.000001; k++) {
		double r = k * step;

		y = top + h - h * r / ymax;
		fprintf(f, "<line x1='%d' x2='%d' y1='%.1f' y2='%.1f' stroke='#ddd'/>\n",
			PL, PR, y, y);
		fprintf(f, "<text x='%d' y='%.1f' text-anchor='end'>%g%s</text>\n",
			PL - 5, y + 4, r >= 1e6 ? r / 1e6 : r >= 1e3 ? r / 1e3 : r,
			r >= 1e6 ? "M" : r >= 1e3 ? "k" : "");
	}
	step = nice_step(span, 8);
	for (k = 0; k * step <= span * 1.000001; k++) {
		x = PL + (PR - PL) * k * step / span;
		fprintf(f, "<line x1='%.1f' x2='%.1f' y1='%d' y2='%d' stroke='#ddd'/>\n",
			x, x, top, top + h);
		fprintf(f, "<text x='%.1f' y='%d' text-anchor='middle'>%g</text>\n",
			x, top + h + 14, k * step);
	}
	fprintf(f, "<text transform='translate(%d,%d) rotate(-90)'", PL - 50, top + h / 2);
	fprintf(f, " text-anchor='middle'>records/s</text>\n");
	fprintf(f, "<text x='%d' y='%d' font-weight='bold'>%s</text>\n",
		LX, top + 10, title);
	for (i = 0; i < n; i++) {
		const char *dash = i / NCOLORS % 2 ? " stroke-dasharray='6 3'" : "";
		const char *color = colors[i % NCOLORS];

		fprintf(f, "<polyline fill='none' stroke='%s' stroke-width='1.5'%s points='",
			color, dash);
		for (j = 0; j < p->nbins; j++)
			fprintf(f, "%s%.1f,%.1f", j ? " " : "",
				PL + (PR - PL) * (j + bin_part(p, j) / 2) / p->nbins,
				top + h - h * (rate(p, v[i], j) / ymax));
		fprintf(f, "'><title>");
		xml_text(f, v[i]->name);
		fprintf(f, "</title></polyline>\n");
		legend_row(f, top + 10 + ROW * (i + 1), color, dash, v[i]->name,
			   v[i]->total);
	}
}

/* The losses' marks over both panels, from @top to @bottom. */
static void loss_marks(FILE *f, const struct plot *p, int top, int bottom)
{
	double span = (double)p->nbins * p->width;
	size_t j;

	for (j = 0; j < p->nbins; j++) {
		const struct loss *l = &p->loss[j];
		double x = PL + (PR - PL) * l->ts / span;

		if (!l->records && !l->subbufs)
			continue;
		fprintf(f, "<g class='loss'><title>");
		if (l->records)
			fprintf(f, "%llu records lost", (unsigned long long)l->records);
		if (l->subbufs)
			fprintf(f, "%s%llu sub-buffers lost", l->records ? ", " : "",
				(unsigned long long)l->subbufs);
		if (l->cpu >= 0)
			fprintf(f, " (buffer cpu%d)", l->cpu);
		fprintf(f, " at %.6f s</title>\n", (double)l->ts / NSEC);
		fprintf(f, "<line x1='%.1f' x2='%.1f' y1='%d' y2='%d' stroke='%s'",
			x, x, top, bottom, LOSS_COLOR);
		fprintf(f, " stroke-dasharray='4 3'/>\n");
		fprintf(f, "<path d='M%.1f,%d l-5,-9 h10 z' fill='%s'/>\n",
			x, top, LOSS_COLOR);
		fprintf(f, "<text x='%.1f' y='%d' text-anchor='middle'", x, top - 12);
		fprintf(f, " fill='%s'>%llu%s</text></g>\n", LOSS_COLOR,
			(unsigned long long)(l->records ? l->records : l->subbufs),
			l->records ? "" : " sub-buffers");
	}
}

static int plot_finish(void *priv)
{
	struct plot *p = priv;
	size_t ncpu = 0, nsites;
	int fd, top1 = 80, top2, h1, h2, y, err = 0;
	char dir[4 * 256 + 1];
	FILE *f;

	if (p->n)	/* p->s is NULL without series: not for qsort() */
		qsort(p->s, p->n, sizeof(*p->s), series_cmp);
	while (ncpu < p->n && p->s[ncpu]->key >> KEY_SHIFT == KEY_CPU)
		ncpu++;
	nsites = p->n - ncpu < PLOT_TOP ? p->n - ncpu : PLOT_TOP;
	if (!p->nbins)
		p->nbins = 1;
	h1 = ROW * (ncpu + 3) > 200 ? ROW * (ncpu + 3) : 200;
	h2 = ROW * (nsites + 2) > 200 ? ROW * (nsites + 2) : 200;
	top2 = top1 + h1 + 40;

	fd = ra_out_open(p->path, O_WRONLY | O_CREAT |
			 (p->force ? O_TRUNC : O_EXCL));
	if (fd < 0)
		return -1;
	f = fdopen(fd, "w");
	if (!f) {
		ra_err("%s: %s", p->path, strerror(errno));
		close(fd);
		return -1;
	}
	fprintf(f, "<?xml version='1.0' encoding='UTF-8'?>\n");
	fprintf(f, "<svg xmlns='http://www.w3.org/2000/svg' font-family='sans-serif'\n");
	fprintf(f, " font-size='11' width='%d' height='%d' viewBox='0 0 %d %d'>\n",
		WIDTH, top2 + h2 + 50, WIDTH, top2 + h2 + 50);
	ra_escape(dir, sizeof(dir), p->dir, strnlen(p->dir, 256));
	fprintf(f, "<title>klog: records per second, ");
	xml_text(f, dir);
	fprintf(f, "</title>\n<rect width='100%%' height='100%%' fill='#fff'/>\n");
	fprintf(f, "<text x='20' y='26' font-size='16' font-weight='bold'>");
	fprintf(f, "klog: records per second, ");
	xml_text(f, dir);
	fprintf(f, "</text>\n<text x='20' y='46' font-size='12'>");
	fprintf(f, "%llu records%s, %llu lost; %zu CPUs; the top %zu of %zu sites; ",
		(unsigned long long)p->records, p->filtered ? " (filtered)" : "",
		(unsigned long long)p->lost, ncpu, nsites, p->n - ncpu);
	fprintf(f, "%.3f s in %zu bins of %g ms</text>\n",
		(double)p->last / NSEC, p->nbins, (double)p->width / 1e6);
	panel(f, p, "per CPU", p->s, ncpu, top1, h1);
	panel(f, p, "top sites (function:line)", p->n ? p->s + ncpu : NULL,
	      nsites, top2, h2);
	y = top1 + 10 + ROW * ((int)ncpu + 1);
	fprintf(f, "<path d='M%d,%d l5,9 l5,-9 z' fill='%s'/>\n", LX + 4, y - 12,
		LOSS_COLOR);
	legend_row(f, y, "none", "", "lost (records)", p->lost);
	loss_marks(f, p, top1, top2 + h2);
	fprintf(f, "<text x='%d' y='%d' text-anchor='middle'>%s</text>\n</svg>\n",
		(PL + PR) / 2, top2 + h2 + 36, "seconds from the first record");
	if (fflush(f) || ferror(f)) {
		ra_err("%s: write: %s", p->path, strerror(errno));
		err = -1;
	}
	if (fclose(f) && !err) {
		ra_err("%s: close: %s", p->path, strerror(errno));
		err = -1;
	}
	return err;
}

static void plot_free(void *priv)
{
	struct plot *p = priv;
	size_t i;

	for (i = 0; i < p->n; i++)
		free(p->s[i]);
	free(p->s);
	u64map_free(&p->idx);
	free(p);
}

int plot_sink_open(struct report_sink *sink, const char *path,
		   const char *dir, bool force, bool filtered)
{
	const struct u64map idx = U64MAP_INIT(struct series_idx);
	struct plot *p;
	struct stat st;

	if (!force && !lstat(path, &st)) {
		ra_err("%s: exists; not replaced without --force", path);
		return -1;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		ra_err("out of memory");
		return -1;
	}
	*p = (struct plot) {
		.path = path, .dir = dir, .force = force, .filtered = filtered,
		.idx = idx, .width = PLOT_W0,
	};
	*sink = (struct report_sink) {
		.priv = p, .event = plot_event, .finish = plot_finish,
		.free = plot_free,
	};
	return 0;
}
