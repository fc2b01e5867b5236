/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_DPROF_PROTOBUF_H
#define __PERF_DPROF_PROTOBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/*
 * A protocol buffers encoder, of the wire format's varint and
 * length-delimited fields only (what pprof's profile.proto uses): a
 * message is built in a buffer, a nested one in a buffer of its own that
 * is then added as a field.  No schema, no decoder.
 *
 * Errors stick: after a failed allocation every call does nothing and
 * dprof_pb__error() says -ENOMEM.
 */
struct dprof_pb {
	u8	*buf;
	size_t	len;
	size_t	alloc;
	int	err;
};

void dprof_pb__init(struct dprof_pb *pb);
void dprof_pb__exit(struct dprof_pb *pb);
/* Empty @pb for the next message, keeping its buffer. */
void dprof_pb__reset(struct dprof_pb *pb);
int dprof_pb__error(const struct dprof_pb *pb);

/* Field @field as a varint: int64 (two's complement, 10 bytes if < 0), uint64, bool. */
void dprof_pb__varint(struct dprof_pb *pb, u32 field, u64 val);
/* ... left out when 0, as proto3 does for a scalar at its default. */
void dprof_pb__varint_nz(struct dprof_pb *pb, u32 field, u64 val);
void dprof_pb__bytes(struct dprof_pb *pb, u32 field, const void *data, size_t len);
void dprof_pb__string(struct dprof_pb *pb, u32 field, const char *str);
/* A repeated varint field, packed: one length-delimited field. */
void dprof_pb__packed(struct dprof_pb *pb, u32 field, const u64 *vals, size_t nr);
/* A nested message, built in @msg. */
void dprof_pb__message(struct dprof_pb *pb, u32 field, const struct dprof_pb *msg);

#endif /* __PERF_DPROF_PROTOBUF_H */
