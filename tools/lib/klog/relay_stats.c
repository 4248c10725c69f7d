// SPDX-License-Identifier: GPL-2.0
/*
 * relay_stats.c - klog-mod's stats file, and the causes for which it
 * drops records, as klog's summary, --status and DIR/meta show them
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "relay_app_int.h"

/* Parse "cpu<N> key=value ..."; 0, or -1 if the line is not one. */
static int parse_stats_line(char *line, struct ra_stats_cpu *s)
{
	char *save, *tok, *end;

	memset(s, 0, sizeof(*s));
	tok = strtok_r(line, " \t\n", &save);
	if (!tok)
		return -1;
	s->cpu = ra_parse_cpu(tok, INT_MAX, &end);
	if (s->cpu < 0 || *end)
		return -1;
	while ((tok = strtok_r(NULL, " \t\n", &save))) {
		char *eq = strchr(tok, '=');

		if (!eq || eq == tok || (size_t)(eq - tok) >= sizeof(s->kv[0].key))
			return -1;
		if (!isdigit((unsigned char)eq[1]))
			return -1;
		if (s->n == RA_STAT_MAX)
			continue;
		memcpy(s->kv[s->n].key, tok, eq - tok);
		s->kv[s->n].val = strtoull(eq + 1, &end, 10);
		if (*end)
			return -1;
		s->n++;
	}
	return 0;
}

int ra_stats_read(const char *dir, struct ra_stats_cpu **out)
{
	struct ra_stats_cpu *v = NULL;
	char path[PATH_MAX], *line = NULL;
	size_t cap = 0;
	int n = 0, vcap = 0, lineno = 0;
	FILE *f;

	if (ra_ctl_path(path, sizeof(path), dir, "stats"))
		return -1;
	f = fopen(path, "re");
	if (!f) {
		ra_err("%s: read: %s", path, strerror(errno));
		return -1;
	}
	while (getline(&line, &cap, f) > 0) {
		lineno++;
		if (line[strspn(line, " \t\n")] == '\0')
			continue;
		if (n == vcap) {
			struct ra_stats_cpu *nv;

			vcap = vcap ? 2 * vcap : 16;
			nv = realloc(v, vcap * sizeof(*v));
			if (!nv) {
				ra_err("%s: out of memory", path);
				goto fail;
			}
			v = nv;
		}
		if (parse_stats_line(line, &v[n])) {
			ra_err("%s:%d: not \"cpu<N> key=value ...\"", path,
			       lineno);
			goto fail;
		}
		n++;
	}
	if (ferror(f)) {
		ra_err("%s: read: %s", path, strerror(errno));
		goto fail;
	}
	fclose(f);
	free(line);
	*out = v;
	return n;
fail:
	fclose(f);
	free(line);
	free(v);
	return -1;
}

__u64 ra_stat(const struct ra_stats_cpu *s, const char *key)
{
	int i;

	for (i = 0; s && i < s->n; i++)
		if (!strcmp(s->kv[i].key, key))
			return s->kv[i].val;
	return 0;
}

const struct ra_stats_cpu *ra_stats_find(const struct ra_stats_cpu *v, int n,
					 int cpu)
{
	int i;

	for (i = 0; i < n; i++)
		if (v[i].cpu == cpu)
			return &v[i];
	return NULL;
}

/* "reentered": absent from an older klog-mod's stats (reads 0) */
const struct ra_cause ra_causes[RA_NCAUSES] = {
	{ "full", "full", "buffer full",
	  ". Consider using a larger buffer size (-b/-n)." },
	{ "big", "big", "record larger than a sub-buffer",
	  ". Consider a larger sub-buffer size (-b)." },
	{ "nmi", "nmi", "NMI staging full",
	  " (records made in NMI context faster than their CPU moved them to the buffer)." },
	{ "nest", "nest", "nesting limit",
	  " (klog calls nested too deeply on one CPU)." },
	{ "frozen", "frozen", "frozen",
	  " while recording was frozen (write 0 to %s/frozen to thaw)." },
	{ "reentered", "reenter", "re-entered",
	  " (klog calls made from inside klog's own write path, e.g. by a console or a probe under a printk there)."
	},
};

void ra_causes_add(__u64 *tot, const struct ra_stats_cpu *s)
{
	int i;

	for (i = 0; i < RA_NCAUSES; i++)
		tot[i] += ra_stat(s, ra_causes[i].key);
}

void ra_causes_report(const __u64 *tot, const char *dir)
{
	char tail[PATH_MAX + 160];
	int i;

	for (i = 0; i < RA_NCAUSES; i++) {
		if (!tot[i])
			continue;
		/* the tails are constants here; a %s is the directory */
		snprintf(tail, sizeof(tail), ra_causes[i].tail, dir);
		ra_err("%s: %llu records dropped%s", ra_causes[i].what,
		       (unsigned long long)tot[i], tail);
	}
}
