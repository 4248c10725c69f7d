// SPDX-License-Identifier: GPL-2.0
/*
 * klog-resume.c - continue the DIR/cpuN files of a killed collector;
 * whether an output directory may be written at all
 *
 * See the overview of klog.c.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "klog-app.h"

/*
 * Attached to a killed collector's channel: continue its DIR/cpuN. Cut
 * the file back to its last whole sub-buffer (each is subbuf_size minus
 * its padding long, in both modes), feed the rest to the decoder so the
 * sequence numbers run on, and append from there. 0 if there was nothing
 * to resume, 1 if resumed (k->out_fd open), -1 after a message.
 */
int resume_output(struct klog *kl, struct kcpu *k)
{
	size_t sb = kl->ra->subbuf_size, off = 0, size;
	unsigned char *data = NULL;
	char why[160];
	struct stat st;
	int fd;

	if (lstat(k->out_path, &st) && errno == ENOENT)
		return 0;
	fd = ra_out_open(k->out_path, O_RDWR);
	if (fd < 0)
		goto fail;
	if (fstat(fd, &st)) {
		ra_err("%s: %s", k->out_path, strerror(errno));
		goto fail;
	}
	size = st.st_size;
	if (!size) {
		close(fd);
		return 0;
	}
	data = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	if (data == MAP_FAILED) {
		data = NULL;
		ra_err("%s: mmap: %s", k->out_path, strerror(errno));
		goto fail;
	}
	while (size - off >= sizeof(struct klog_subbuf_hdr)) {
		long used = ks_subbuf_used(data + off, sb, why, sizeof(why));

		if (used < 0) {
			ra_err("%s: cannot resume it: offset %zu is not the header of a %zu-byte sub-buffer (%s); give another -o DIR",
			       k->out_path, off, sb, why);
			goto fail;
		}
		if ((size_t)used > size - off)
			break;		/* cut short by the kill */
		off += used;
	}
	k->ks.join = true;	/* it may itself have started mid-channel */
	if (ks_feed(&k->ks, data, off, NULL, NULL)) {
		ra_err("%s; cannot resume it: give another -o DIR", k->ks.error);
		goto fail;
	}
	if (k->ks.carry.len) {
		ra_err("%s: cannot resume it: a record runs past the end of a sub-buffer; give another -o DIR",
		       k->out_path);
		goto fail;
	}
	munmap(data, size);
	data = NULL;
	if (off < size && ftruncate(fd, off)) {
		ra_err("%s: truncate: %s", k->out_path, strerror(errno));
		goto fail;
	}
	if (lseek(fd, 0, SEEK_END) < 0) {
		ra_err("%s: lseek: %s", k->out_path, strerror(errno));
		goto fail;
	}
	k->out_fd = fd;
	k->resumed = true;
	k->kept = k->ks.records;
	k->cut = size - off;
	return 1;
fail:
	if (data)
		munmap(data, size);
	if (fd >= 0)
		close(fd);
	return -1;
}

#define OUT_NAMES	3	/* entries a refusal names */

int out_dir_usable(const char *dir, bool force, bool *unfinished)
{
	char names[OUT_NAMES][NAME_MAX + 1], esc[4 * NAME_MAX + 1];
	char list[OUT_NAMES * (4 * NAME_MAX + 2) + 32];
	unsigned long n = 0;
	struct dirent *d;
	struct meta m;
	size_t len = 0;
	DIR *dp;
	int i;

	if (unfinished)
		*unfinished = false;
	if (force)
		return 0;
	dp = opendir(dir);
	if (!dp) {
		ra_err("%s: %s", dir, strerror(errno));
		return -1;
	}
	while ((d = readdir(dp))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		/* the first names in strcmp() order, for the message */
		i = n < OUT_NAMES ? (int)n : OUT_NAMES;
		for (; i > 0 && strcmp(d->d_name, names[i - 1]) < 0; i--)
			if (i < OUT_NAMES)
				memcpy(names[i], names[i - 1], sizeof(names[i]));
		if (i < OUT_NAMES)
			snprintf(names[i], sizeof(names[i]), "%s", d->d_name);
		n++;
	}
	closedir(dp);
	if (!n)
		return 0;
	if (unfinished && meta_read(dir, &m) > 0) {
		meta_free(&m);
		if (!strcmp(m.kind, "collection") && !m.stop) {
			*unfinished = true; /* resumed if its channel is there */
			return 0;
		}
	}
	/* a name may hold any byte but '/': escaped, as names from files */
	for (i = 0; i < OUT_NAMES && (unsigned long)i < n; i++)
		len += snprintf(list + len, sizeof(list) - len, "%s%s",
				i ? ", " : "",
				ra_escape(esc, sizeof(esc), names[i],
					  strlen(names[i])));
	if (n > OUT_NAMES)
		snprintf(list + len, sizeof(list) - len, " and %lu more",
			 n - OUT_NAMES);
	ra_err("%s: not empty (holds %s): give -o a new or empty directory, or --force to write into this one, replacing files of the same names",
	       dir, list);
	return -1;
}
