// SPDX-License-Identifier: GPL-2.0
/*
 * klog-resume.c - continue the DIR/cpuN files of a killed collector
 *
 * See the overview of klog.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
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
	if (k->ks.items.carry.len) {
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
