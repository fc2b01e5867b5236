// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof: a protocol buffers encoder for pprof's profile.proto.
 *
 * The wire format (protobuf.dev/programming-guides/encoding): a field is
 * a tag, (field number << 3 | wire type), as a varint, then its value:
 * wire type 0 a varint (7 bits a byte, low first, the top bit set on
 * every byte but the last), wire type 2 a varint length and that many
 * bytes (strings, bytes, nested messages, packed repeated scalars).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/zalloc.h>

#include "protobuf.h"

#define PB_WIRE_VARINT	0
#define PB_WIRE_LEN	2
#define PB_VARINT_MAX	10	/* bytes of a 64-bit varint */

void dprof_pb__init(struct dprof_pb *pb)
{
	memset(pb, 0, sizeof(*pb));
}

void dprof_pb__exit(struct dprof_pb *pb)
{
	zfree(&pb->buf);
	pb->len = 0;
	pb->alloc = 0;
}

void dprof_pb__reset(struct dprof_pb *pb)
{
	pb->len = 0;
	pb->err = 0;
}

int dprof_pb__error(const struct dprof_pb *pb)
{
	return pb->err;
}

static bool dprof_pb__grow(struct dprof_pb *pb, size_t more)
{
	size_t want;
	u8 *buf;

	if (pb->err)
		return false;
	if (pb->len + more <= pb->alloc)
		return true;
	want = pb->alloc ? pb->alloc : 256;
	while (want < pb->len + more)
		want *= 2;
	buf = realloc(pb->buf, want);
	if (!buf) {
		pb->err = -ENOMEM;
		return false;
	}
	pb->buf = buf;
	pb->alloc = want;
	return true;
}

static void dprof_pb__raw_varint(struct dprof_pb *pb, u64 val)
{
	if (!dprof_pb__grow(pb, PB_VARINT_MAX))
		return;
	while (val >= 0x80) {
		pb->buf[pb->len++] = (u8)(val | 0x80);
		val >>= 7;
	}
	pb->buf[pb->len++] = (u8)val;
}

static void dprof_pb__tag(struct dprof_pb *pb, u32 field, u32 wire)
{
	dprof_pb__raw_varint(pb, (u64)field << 3 | wire);
}

void dprof_pb__varint(struct dprof_pb *pb, u32 field, u64 val)
{
	dprof_pb__tag(pb, field, PB_WIRE_VARINT);
	dprof_pb__raw_varint(pb, val);
}

void dprof_pb__varint_nz(struct dprof_pb *pb, u32 field, u64 val)
{
	if (val)
		dprof_pb__varint(pb, field, val);
}

void dprof_pb__bytes(struct dprof_pb *pb, u32 field, const void *data, size_t len)
{
	dprof_pb__tag(pb, field, PB_WIRE_LEN);
	dprof_pb__raw_varint(pb, len);
	if (!len || !dprof_pb__grow(pb, len))
		return;
	memcpy(pb->buf + pb->len, data, len);
	pb->len += len;
}

void dprof_pb__string(struct dprof_pb *pb, u32 field, const char *str)
{
	dprof_pb__bytes(pb, field, str, strlen(str));
}

static size_t dprof_pb__varint_len(u64 val)
{
	size_t n = 1;

	while (val >= 0x80) {
		val >>= 7;
		n++;
	}
	return n;
}

void dprof_pb__packed(struct dprof_pb *pb, u32 field, const u64 *vals, size_t nr)
{
	size_t i, len = 0;

	if (!nr)
		return;
	for (i = 0; i < nr; i++)
		len += dprof_pb__varint_len(vals[i]);
	dprof_pb__tag(pb, field, PB_WIRE_LEN);
	dprof_pb__raw_varint(pb, len);
	for (i = 0; i < nr; i++)
		dprof_pb__raw_varint(pb, vals[i]);
}

void dprof_pb__message(struct dprof_pb *pb, u32 field, const struct dprof_pb *msg)
{
	if (msg->err) {
		pb->err = msg->err;
		return;
	}
	dprof_pb__bytes(pb, field, msg->buf, msg->len);
}
