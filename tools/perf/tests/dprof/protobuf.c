// SPDX-License-Identifier: GPL-2.0
/*
 * The protocol buffers encoder of perf dprof report --pprof, against
 * bytes worked out by hand from the wire format's specification (and
 * checked with protoc --decode_raw).
 */
#include <string.h>
#include "tests/tests.h"
#include "util/dprof/protobuf.h"
#include "dprof-tests.h"

static bool pb_equal(const struct dprof_pb *pb, const u8 *want, size_t len)
{
	size_t i;

	if (pb->len == len && !memcmp(pb->buf, want, len))
		return true;
	pr_debug("encoded %zu bytes:", pb->len);
	for (i = 0; i < pb->len; i++)
		pr_debug(" %02x", pb->buf[i]);
	pr_debug("\nwanted %zu bytes:", len);
	for (i = 0; i < len; i++)
		pr_debug(" %02x", want[i]);
	pr_debug("\n");
	return false;
}

#define PB_EXPECT(text, pb, ...) do {						\
	static const u8 want[] = { __VA_ARGS__ };				\
	TEST_ASSERT_VAL(text, pb_equal(pb, want, sizeof(want)));		\
} while (0)

int test__dprof_protobuf(struct test_suite *test __maybe_unused, int subtest __maybe_unused)
{
	static const u64 vals[] = { 3, 270, 86942 };
	struct dprof_pb pb, msg;
	int i;

	dprof_pb__init(&pb);
	dprof_pb__init(&msg);

	/* protobuf.dev's examples: field 1 = 150, field 2 = "testing" */
	dprof_pb__varint(&pb, 1, 150);
	PB_EXPECT("varint 150", &pb, 0x08, 0x96, 0x01);
	dprof_pb__reset(&pb);
	dprof_pb__string(&pb, 2, "testing");
	PB_EXPECT("string", &pb, 0x12, 0x07, 't', 'e', 's', 't', 'i', 'n', 'g');

	/* packed repeated: field 4 = [3, 270, 86942] */
	dprof_pb__reset(&pb);
	dprof_pb__packed(&pb, 4, vals, 3);
	PB_EXPECT("packed", &pb, 0x22, 0x06, 0x03, 0x8e, 0x02, 0x9e, 0xa7, 0x05);

	/* nested: field 3 { field 1 = 150 } */
	dprof_pb__reset(&pb);
	dprof_pb__varint(&msg, 1, 150);
	dprof_pb__message(&pb, 3, &msg);
	PB_EXPECT("nested", &pb, 0x1a, 0x03, 0x08, 0x96, 0x01);

	/* 0 is written, or left out (_nz); an empty string is a length of 0 */
	dprof_pb__reset(&pb);
	dprof_pb__varint(&pb, 1, 0);
	dprof_pb__varint_nz(&pb, 2, 0);
	dprof_pb__string(&pb, 6, "");
	PB_EXPECT("zero and empty", &pb, 0x08, 0x00, 0x32, 0x00);

	/* int64 -1: ten bytes; a field number past 15 takes a two-byte tag */
	dprof_pb__reset(&pb);
	dprof_pb__varint(&pb, 16, (u64)-1);
	PB_EXPECT("negative, field 16", &pb, 0x80, 0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		  0xff, 0xff, 0xff, 0x01);

	/* a growing buffer: past its first allocation */
	dprof_pb__reset(&pb);
	for (i = 0; i < 1000; i++)
		dprof_pb__varint(&pb, 1, 300);
	TEST_ASSERT_VAL("1000 fields", pb.len == 3000 && !dprof_pb__error(&pb));
	TEST_ASSERT_VAL("the last", pb.buf[2997] == 0x08 && pb.buf[2998] == 0xac &&
			pb.buf[2999] == 0x02);

	dprof_pb__exit(&msg);
	dprof_pb__exit(&pb);
	return TEST_OK;
}
