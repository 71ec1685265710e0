// SPDX-License-Identifier: GPL-2.0
/*
 * perf xen split: one perf.data file per Xen domain.  Each sample goes to
 * the file of the domain PERF_SAMPLE_VIRT_ID names: PREFIX.xen for Xen
 * itself, PREFIX.dom0, PREFIX.d<N>, and PREFIX.unknown for samples whose
 * domain id is reserved, unknown or absent.  Every other record (comm,
 * mmap, lost, ...) is written to every file, so each one is a complete
 * recording of its own; a file opened late first gets the side-band
 * records written before it.  The input's attributes, ids and header
 * features are copied unchanged.  perf's reader maps the input, where a
 * read past the end of the file faults: the sections its header names are
 * checked against the file's size before perf reads them, and the reader
 * refuses an event that runs past the end of the data.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <internal/lib.h>
#include <linux/bitmap.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/zalloc.h>

#include "../data.h"
#include "../debug.h"
#include "../event.h"
#include "../evlist.h"
#include "../evsel.h"
#include "../header.h"
#include "../sample.h"
#include "../session.h"
#include "../tool.h"
#include "machine.h"
#include "split.h"
#include "virt-id.h"

/* One output per domain id below the reserved ones, then Xen, then unknown. */
#define SLOT_XEN	XEN_DOMID_FIRST_RESERVED
#define SLOT_UNKNOWN	(SLOT_XEN + 1)
#define NR_SLOTS	(SLOT_UNKNOWN + 1)

#define OUT_BUF_SIZE	(64 * 1024)

/* "PERFILE2" in the byte order of this host. */
#define SPLIT_PERF_MAGIC	0x32454c4946524550ULL

struct split_out {
	int fd;
	char *path;
	u64 samples;
	u64 data_size;
	size_t used;
	char buf[OUT_BUF_SIZE];
};

struct split {
	struct perf_tool tool;
	struct perf_session *session;
	const char *prefix;
	struct split_out **slots;
	/* Side-band records so far, for files opened later. */
	char *sideband;
	size_t sideband_len, sideband_alloc;
	struct perf_file_section secs[HEADER_LAST_FEATURE];
	u64 file_size;
	struct xen_split_stats *stats;
};

static int out__error(struct split_out *out, const char *what)
{
	int err = errno ? -errno : -EIO;

	pr_err("perf xen split: cannot %s %s: %s\n", what, out->path, strerror(-err));
	return err;
}

static int out__flush(struct split_out *out)
{
	errno = 0;
	if (out->used && writen(out->fd, out->buf, out->used) != (ssize_t)out->used)
		return out__error(out, "write");
	out->used = 0;
	return 0;
}

static int out__write(struct split_out *out, const void *data, size_t len)
{
	int err;

	out->data_size += len;
	if (out->used + len > sizeof(out->buf)) {
		err = out__flush(out);
		if (err)
			return err;
	}
	if (len > sizeof(out->buf)) {
		errno = 0;
		if (writen(out->fd, data, len) != (ssize_t)len)
			return out__error(out, "write");
		return 0;
	}
	memcpy(out->buf + out->used, data, len);
	out->used += len;
	return 0;
}

/* "xen", "dom0", "d7", or "d7-web01" for a named guest: a file name's end. */
static void slot__name(unsigned int slot, char *bf, size_t size)
{
	char *c;

	if (slot == SLOT_UNKNOWN) {
		scnprintf(bf, size, "unknown");
		return;
	}
	xen_virt_id__domain_label(slot == SLOT_XEN ? XEN_VIRT_ID_DOMID_XEN : slot, bf, size);
	c = strchr(bf, ' ');
	if (c)
		*c = '-';
}

static struct split_out *split__open(struct split *split, unsigned int slot)
{
	struct split_out *out = zalloc(sizeof(*out));
	char name[XEN_VIRT_ID_NAME_MAX + 16];
	off_t start;

	if (!out)
		return ERR_PTR(-ENOMEM);
	slot__name(slot, name, sizeof(name));
	if (asprintf(&out->path, "%s.%s", split->prefix, name) < 0) {
		free(out);
		return ERR_PTR(-ENOMEM);
	}
	out->fd = open(out->path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (out->fd < 0) {
		int err = out__error(out, "create");

		free(out->path);
		free(out);
		return ERR_PTR(err);
	}
	split->slots[slot] = out;
	split->stats->files++;
	if (slot == SLOT_XEN)
		split->stats->xen = true;

	/* The header goes in front at the end; events start where it ends. */
	start = perf_session__data_offset(split->session->evlist);
	if (lseek(out->fd, start, SEEK_SET) != start)
		return ERR_PTR(out__error(out, "seek in"));
	if (split->sideband_len) {
		int err = out__write(out, split->sideband, split->sideband_len);

		if (err)
			return ERR_PTR(err);
	}
	return out;
}

static struct split *tool__split(const struct perf_tool *tool)
{
	return container_of(tool, struct split, tool);
}

/* Written to every file open now, and kept when @keep for files opened later. */
static int split__broadcast(struct split *split, const union perf_event *event, bool keep)
{
	size_t len = event->header.size;
	unsigned int slot;
	int err;

	if (keep) {
		if (split->sideband_len + len > split->sideband_alloc) {
			size_t alloc = max(2 * split->sideband_alloc, (size_t)OUT_BUF_SIZE);
			char *buf;

			while (alloc < split->sideband_len + len)
				alloc *= 2;
			buf = realloc(split->sideband, alloc);
			if (!buf)
				return -ENOMEM;
			split->sideband = buf;
			split->sideband_alloc = alloc;
		}
		memcpy(split->sideband + split->sideband_len, event, len);
		split->sideband_len += len;
		split->stats->sideband++;
	}
	for (slot = 0; slot < NR_SLOTS; slot++) {
		if (!split->slots[slot])
			continue;
		err = out__write(split->slots[slot], event, len);
		if (err)
			return err;
	}
	return 0;
}

static unsigned int sample__slot(const struct perf_sample *sample)
{
	struct perf_sample_virt_id id = perf_sample__virt_id(sample->virt_id);

	if (id.domid == XEN_VIRT_ID_DOMID_XEN)
		return SLOT_XEN;
	if (id.domid < XEN_DOMID_FIRST_RESERVED)
		return id.domid;
	return SLOT_UNKNOWN;
}

static int split__sample(const struct perf_tool *tool, union perf_event *event,
			 struct perf_sample *sample, struct evsel *evsel __maybe_unused,
			 struct machine *machine __maybe_unused)
{
	struct split *split = tool__split(tool);
	unsigned int slot = sample__slot(sample);
	struct split_out *out = split->slots[slot];

	if (!out) {
		out = split__open(split, slot);
		if (IS_ERR(out))
			return PTR_ERR(out);
	}
	out->samples++;
	split->stats->samples++;
	if (slot == SLOT_UNKNOWN)
		split->stats->unknown++;
	return out__write(out, event, event->header.size);
}

static int split__sideband(const struct perf_tool *tool, union perf_event *event,
			   struct perf_sample *sample __maybe_unused,
			   struct machine *machine __maybe_unused)
{
	return split__broadcast(tool__split(tool), event, true);
}

static int split__read(const struct perf_tool *tool, union perf_event *event,
		       struct perf_sample *sample __maybe_unused,
		       struct evsel *evsel __maybe_unused, struct machine *machine __maybe_unused)
{
	return split__broadcast(tool__split(tool), event, true);
}

static int split__user(struct perf_session *session, union perf_event *event)
{
	return split__broadcast(tool__split(session->tool), event, true);
}

static int split__id_index(struct perf_session *session, union perf_event *event)
{
	return perf_event__process_id_index(session, event) ?:
	       split__user(session, event);
}

/* A round only orders what came before it: no use to files opened later. */
static int split__finished_round(const struct perf_tool *tool, union perf_event *event,
				 struct ordered_events *oe __maybe_unused)
{
	return split__broadcast(tool__split(tool), event, false);
}

static void split__init_tool(struct perf_tool *tool)
{
	perf_tool__init(tool, /*ordered_events=*/false);
	/* The input's order is kept; a group sample is written once. */
	tool->dont_split_sample_group = true;
	tool->sample = split__sample;
	tool->read = split__read;
	tool->mmap = split__sideband;
	tool->mmap2 = split__sideband;
	tool->comm = split__sideband;
	tool->namespaces = split__sideband;
	tool->cgroup = split__sideband;
	tool->fork = split__sideband;
	tool->exit = split__sideband;
	tool->lost = split__sideband;
	tool->lost_samples = split__sideband;
	tool->context_switch = split__sideband;
	tool->throttle = split__sideband;
	tool->unthrottle = split__sideband;
	tool->ksymbol = split__sideband;
	tool->bpf = split__sideband;
	tool->text_poke = split__sideband;
	tool->finished_round = split__finished_round;
	tool->id_index = split__id_index;
	tool->build_id = split__user;
	tool->time_conv = split__user;
	tool->thread_map = split__user;
	tool->cpu_map = split__user;
	tool->stat_config = split__user;
	tool->stat = split__user;
	tool->stat_round = split__user;
	tool->finished_init = split__user;
}

/**
 * xen_copy_file - copy a file, such as a copy of /proc/xen/xensyms
 * @src: the file to read
 * @dst: the file to create or truncate, mode 0644
 *
 * Return: 0, or a negative errno, with errno set, when either file fails.
 */
int xen_copy_file(const char *src, const char *dst)
{
	char buf[8192];
	int in, out = -1, err = 0;
	ssize_t n;

	in = open(src, O_RDONLY);
	if (in >= 0)
		out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (in < 0 || out < 0)
		err = -errno;
	errno = 0;
	while (!err && (n = read(in, buf, sizeof(buf))) != 0)
		if (n < 0 || write(out, buf, n) != n)
			err = errno ? -errno : -EIO;
	if (out >= 0)
		close(out);
	if (in >= 0)
		close(in);
	if (err)
		errno = -err;
	return err;
}

/* Does SEC end within a file of FILE_SIZE bytes?  Says where it does not. */
static bool section__fits(const struct perf_file_section *sec, u64 file_size,
			  const char *path, const char *what)
{
	if (sec->offset <= file_size && sec->size <= file_size - sec->offset)
		return true;
	pr_err("perf xen split: %s: the %s at offset %#llx claims %llu bytes, past the end of the file (%#llx)\n",
	       path, what, (unsigned long long)sec->offset, (unsigned long long)sec->size,
	       (unsigned long long)file_size);
	return false;
}

static int split__save_section(struct perf_file_section *section,
			       struct perf_header *ph __maybe_unused, int feat,
			       int fd __maybe_unused, void *data)
{
	struct split *split = data;
	char what[32];

	if (feat >= HEADER_LAST_FEATURE)
		return 0;
	snprintf(what, sizeof(what), "header feature %d", feat);
	if (!section__fits(section, split->file_size, split->session->data->path, what))
		return -EFAULT;
	split->secs[feat] = *section;
	return 0;
}

struct split_copier {
	struct feat_copier fc;
	struct split *split;
};

/* Every feature section of the input, byte for byte. */
static int split__copy_feature(struct feat_copier *fc, int feat, struct feat_writer *fw)
{
	struct split *split = container_of(fc, struct split_copier, fc)->split;
	struct perf_file_section *sec;
	int fd = perf_data__fd(split->session->data);
	void *buf;
	int err;

	if (feat >= HEADER_LAST_FEATURE || !split->secs[feat].offset)
		return 0;
	sec = &split->secs[feat];
	buf = malloc(sec->size ?: 1);
	if (!buf)
		return -ENOMEM;
	if (pread(fd, buf, sec->size, sec->offset) != (ssize_t)sec->size)
		err = -EIO;
	else
		err = fw->write(fw, buf, sec->size) ?: 1;
	free(buf);
	return err;
}

static int split__finish(struct split *split, struct split_out *out)
{
	struct perf_header *header = &split->session->header;
	struct split_copier copier = {
		.fc.copy = split__copy_feature,
		.split = split,
	};
	int err = out__flush(out);

	if (err)
		return err;
	header->data_offset = perf_session__data_offset(split->session->evlist);
	header->data_size = out->data_size;
	err = perf_session__inject_header(split->session, split->session->evlist, out->fd,
					  &copier.fc, /*write_attrs_after_data=*/false);
	if (err) {
		pr_err("perf xen split: cannot write the header of %s\n", out->path);
		return err;
	}
	pr_info("%s: %llu samples\n", out->path, (unsigned long long)out->samples);
	return 0;
}

/* Xen's file names Xen's functions from a copy of the input's xensyms. */
static void split__copy_xensyms(const char *input, const char *prefix,
				struct xen_split_stats *stats)
{
	char src[PATH_MAX], dst[PATH_MAX];

	if (snprintf(src, sizeof(src), "%s.xensyms", input) >= (int)sizeof(src) ||
	    snprintf(dst, sizeof(dst), "%s.xen.xensyms", prefix) >= (int)sizeof(dst) ||
	    access(src, R_OK))
		return;
	if (xen_copy_file(src, dst))
		pr_warning("perf xen split: cannot copy %s to %s: %s\n", src, dst,
			   strerror(errno));
	else
		stats->xensyms = true;
}

/*
 * perf's reader trusts the sections the file header names, so check them
 * first: a regular file in this host's byte order whose header, attributes,
 * data and feature table all end within it.  Anything else is left to
 * perf_session__new() and split__check_input().
 */
static int split__check_file(const char *path)
{
	struct perf_file_header h;
	struct perf_file_section table;
	struct stat st;
	ssize_t n;
	int fd;

	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return 0;
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = pread(fd, &h, sizeof(h), 0);
	close(fd);
	if (n < (ssize_t)offsetof(struct perf_file_header, attr_size))
		goto too_short;
	/* Other byte orders and pipe headers are perf's to judge. */
	if (h.magic != SPLIT_PERF_MAGIC ||
	    (h.size != sizeof(h) && h.size != offsetof(struct perf_file_header, adds_features)))
		return 0;
	if (n < (ssize_t)h.size)
		goto too_short;
	if (!section__fits(&h.attrs, st.st_size, path, "attribute section") ||
	    !section__fits(&h.data, st.st_size, path, "data section"))
		return -EFAULT;
	if (h.size == sizeof(h)) {
		table.offset = h.data.offset + h.data.size;
		table.size = bitmap_weight(h.adds_features, HEADER_FEAT_BITS) *
			     sizeof(struct perf_file_section);
		if (!section__fits(&table, st.st_size, path, "feature table"))
			return -EFAULT;
	}
	return 0;
too_short:
	pr_err("perf xen split: %s: %llu bytes, too short for a perf.data file header\n",
	       path, (unsigned long long)st.st_size);
	return -EINVAL;
}

/* Feature bits this perf has no writer for, from a newer perf or damage. */
static void split__drop_unknown_features(struct perf_session *session)
{
	unsigned long *feats = session->header.adds_features;
	int feat = HEADER_LAST_FEATURE;

	for_each_set_bit_from(feat, feats, HEADER_FEAT_BITS) {
		pr_warning("perf xen split: %s: header feature %d unknown to this perf, not copied\n",
			   session->data->path, feat);
		__clear_bit(feat, feats);
	}
}

static int split__check_input(struct perf_session *session)
{
	struct perf_header *header = &session->header;
	struct evsel *evsel;

	if (perf_data__is_pipe(session->data) || perf_data__is_dir(session->data)) {
		pr_err("perf xen split: %s is a pipe or a directory; split needs a perf.data file\n",
		       session->data->path);
		return -EINVAL;
	}
	if (header->needs_swap) {
		pr_err("perf xen split: %s was recorded with the other byte order\n",
		       session->data->path);
		return -EINVAL;
	}
	if (perf_header__has_feat(header, HEADER_AUXTRACE)) {
		pr_err("perf xen split: %s has AUX area data, which cannot be split by domain\n",
		       session->data->path);
		return -EINVAL;
	}
	evlist__for_each_entry(session->evlist, evsel)
		if (evsel->core.attr.sample_type & PERF_SAMPLE_VIRT_ID)
			return 0;
	pr_err("perf xen split: %s has no domain field: record it with perf xen record or --sample-virt-id\n",
	       session->data->path);
	return -EINVAL;
}

/**
 * xen_split - write one perf.data file per Xen domain
 * @input: a perf.data file recorded with PERF_SAMPLE_VIRT_ID
 * @prefix: outputs are PREFIX.xen, PREFIX.dom0, PREFIX.d<N>, PREFIX.unknown
 * @stats: filled in with what was written
 *
 * Only domains with samples get a file.  When Xen gets one and INPUT.xensyms
 * exists, it is copied to PREFIX.xen.xensyms.  On error no output is left.
 *
 * Return: 0, or a negative errno after saying what went wrong.
 */
int xen_split(const char *input, const char *prefix, struct xen_split_stats *stats)
{
	struct perf_data data = {
		.path = input,
		.mode = PERF_DATA_MODE_READ,
	};
	struct split split = {
		.prefix = prefix,
		.stats = stats,
	};
	struct perf_session *session;
	unsigned int slot;
	int err;

	memset(stats, 0, sizeof(*stats));
	err = split__check_file(input);
	if (err)
		return err;
	split__init_tool(&split.tool);
	session = perf_session__new(&data, &split.tool);
	if (IS_ERR(session))
		return PTR_ERR(session);
	split.session = session;
	split.file_size = data.file.size;

	err = split__check_input(session);
	if (err)
		goto out_delete;
	err = -ENOMEM;
	split.slots = calloc(NR_SLOTS, sizeof(*split.slots));
	if (!split.slots)
		goto out_delete;
	err = perf_header__process_sections(&session->header, perf_data__fd(session->data),
					    &split, split__save_section);
	if (err)
		goto out_free;
	/* Only now: the feature table has an entry for each bit set. */
	split__drop_unknown_features(session);

	err = perf_session__process_events(session);
	stats->dropped = session->evlist->stats.nr_unknown_id +
			 session->evlist->stats.nr_unprocessable_samples;

	/* The records were decompressed on the way. */
	perf_header__clear_feat(&session->header, HEADER_COMPRESSED);
	for (slot = 0; slot < NR_SLOTS && !err; slot++)
		if (split.slots[slot])
			err = split__finish(&split, split.slots[slot]);

out_free:
	for (slot = 0; slot < NR_SLOTS; slot++) {
		struct split_out *out = split.slots[slot];

		if (!out)
			continue;
		close(out->fd);
		if (err)
			unlink(out->path);
		free(out->path);
		free(out);
	}
	free(split.slots);
	free(split.sideband);
	if (!err && stats->xen)
		split__copy_xensyms(input, prefix, stats);
out_delete:
	perf_session__delete(session);
	return err;
}
