// SPDX-License-Identifier: GPL-2.0
/*
 * relay_sites_state.c - putting back the call-site state klog -e saved
 *
 * klog -e (tools/klog/klog-sitectl.c) saves the flag of every live call
 * site in the state file before it turns sites off, and puts it back at
 * the end with ra_sites_restore(); a collector killed before that leaves
 * the file, and whoever takes the collectors' lock next (ra_lock())
 * puts it back first. The file is not trusted: it must be the caller's
 * and writable by it alone, checked line by line (ids increasing) before
 * anything is written, and of this boot (site ids mean nothing in
 * another: such a file is removed unused); one saved for another control
 * directory is left alone. The flags go back as "id A-B =p" and "id A-B
 * =_" queries, one per run of consecutive ids, in writes the kernel
 * takes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "relay_app_int.h"

const char *ra_sites_state_path(void)
{
	const char *dir = getenv("KLOG_STATE_DIR");
	static char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/sites.saved",
		 dir && *dir ? dir : RA_SITES_STATE_DIR);
	return path;
}

void ra_boot_id(char *buf, size_t size)
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");

	if (!f || !fgets(buf, size, f))
		snprintf(buf, size, "unknown");
	buf[strcspn(buf, "\n")] = '\0';
	if (f)
		fclose(f);
}

/*
 * Put the flags of the saved sites back: "id A-B =p" or "=_" for each
 * run of consecutive saved ids with the same flag, in writes that the
 * kernel takes (under RA_CONTROL_MAX bytes). @n saved pairs in @ids,
 * @on. Returns 0 or -1 after a message.
 */
static int state_apply(const char *dir, const unsigned int *ids,
		       const bool *on, size_t n)
{
	char *buf = malloc(RA_CONTROL_MAX);
	size_t i, j, len = 0;
	int w, ret = 0;

	if (!buf) {
		ra_err("out of memory");
		return -1;
	}
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && on[j] == on[i] &&
		     ids[j] == ids[j - 1] + 1; j++)
			;
		if (len + 40 > RA_CONTROL_MAX) {
			if (ra_control_write(dir, buf, len))
				ret = -1;
			len = 0;
		}
		w = snprintf(buf + len, RA_CONTROL_MAX - len, "id %u-%u =%c\n",
			     ids[i], ids[j - 1], on[i] ? 'p' : '_');
		len += w;
	}
	if (len && ra_control_write(dir, buf, len))
		ret = -1;
	free(buf);
	return ret;
}

/* A decimal id of the state file: 1 to UINT_MAX. 0 or -1. */
static int state_id(const char *s, unsigned int *v)
{
	return ra_parse_uint(s, v) || !*v ? -1 : 0;
}

/*
 * Whether the state file's header (after the boot id) is for the
 * control directory @dir: its "dir=" says so; a file without one (an
 * older klog's) is for any directory that has a control file.
 */
static bool state_for_dir(const char *rest, const char *dir)
{
	const char *d = strstr(rest, " dir=");
	char path[PATH_MAX];

	if (d)
		return !strcmp(d + 5, dir);
	return !ra_ctl_path(path, sizeof(path), dir, "control") &&
	       !access(path, F_OK);
}

int ra_sites_restore(const char *dir, bool killed, bool quiet)
{
	const char *path = ra_sites_state_path();
	unsigned int *ids = NULL, lineno = 1;
	char boot[64], *text = NULL, *line, *next, *tab;
	size_t n = 0, cap = 0, len;
	bool *on = NULL;
	struct stat st;
	int fd, ret = -1;
	void *grown;

	fd = ra_open_regular(path, &st, true);
	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	if (st.st_uid != geteuid() || (st.st_mode & 022)) {
		ra_err("%s: not a file of this user writable only by it; not used: remove it",
		       path);
		close(fd);
		return -1;
	}
	text = ra_read_fd(fd, &st, path, RA_STATE_MAX, &len);
	close(fd);
	if (!text)
		return -1;
	if (strlen(text) != len) {
		ra_err("%s: a NUL byte; not used: remove it", path);
		goto out;
	}
	ra_boot_id(boot, sizeof(boot));
	line = text;
	next = strchr(line, '\n');
	if (strncmp(line, RA_SITES_STATE_HDR, strlen(RA_SITES_STATE_HDR)) ||
	    !next) {
		ra_err("%s:1: not a klog site state file; not used: remove it",
		       path);
		goto out;
	}
	*next = '\0';
	line += strlen(RA_SITES_STATE_HDR);
	if (strncmp(line, boot, strlen(boot)) || line[strlen(boot)] != ' ') {
		ra_err("%s: saved in another boot: its site ids mean nothing now; removed unused",
		       path);
		ret = ra_out_unlink(path) ? -1 : 0;
		goto out;
	}
	if (!state_for_dir(line + strlen(boot), dir)) {
		ret = 0;	/* another channel's: not ours to put back */
		goto out;
	}
	for (line = next + 1; *line; line = next + 1) {
		lineno++;
		next = strchr(line, '\n');
		if (!next) {
			ra_err("%s:%u: the last line has no newline; not used: remove it",
			       path, lineno);
			goto out;
		}
		*next = '\0';
		tab = strchr(line, '\t');
		if (tab)
			*tab = '\0';
		if (n == cap) {
			cap = cap ? 2 * cap : 1024;
			grown = realloc(ids, cap * sizeof(*ids));
			if (grown)
				ids = grown;
			grown = grown ? realloc(on, cap * sizeof(*on)) : NULL;
			if (!grown) {
				ra_err("out of memory");
				goto out;
			}
			on = grown;
		}
		if (!tab || state_id(line, &ids[n]) ||
		    (tab[1] != 'p' && tab[1] != '_') || tab[2] ||
		    (n && ids[n] <= ids[n - 1])) {
			ra_err("%s:%u: not \"ID<TAB>p\" or \"ID<TAB>_\" with ids increasing; not used: remove it",
			       path, lineno);
			goto out;
		}
		on[n++] = tab[1] == 'p';
	}
	if (state_apply(dir, ids, on, n))
		goto out;
	if (ra_out_unlink(path)) {
		ra_err("%s: unlink: %s", path, strerror(errno));
		goto out;
	}
	if (killed)
		ra_err("%s: a killed collector's saved call-site state: put back (%zu sites)",
		       path, n);
	else if (!quiet)
		ra_err("call-site state put back (%zu sites)", n);
	ret = 0;
out:
	free(text);
	free(ids);
	free(on);
	return ret;
}
