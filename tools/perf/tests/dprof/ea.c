// SPDX-License-Identifier: GPL-2.0
/*
 * dprof software sampler: effective addresses from instruction bytes and
 * interrupt registers, as the x86-64 decoder behind the util/dprof/ea.h
 * hooks computes them (elsewhere there is no decoder: the test skips).
 * Every encoding below was copied from objdump -d of
 * real code: gcc 14 -O2 snippets (some with -mavx2, -mavx512f, -mx32,
 * -fno-pie or -mstringop-strategy=rep_byte) and /usr/bin/ls.
 */
#include <inttypes.h>
#include <string.h>
#include <linux/kernel.h>
#include <linux/perf_event.h>

#include <errno.h>
#include "../../../arch/x86/include/uapi/asm/perf_regs.h"
#include "tests/tests.h"
#include "util/debug.h"
#include "util/sample.h"
#include "util/dprof/ea.h"
#include "dprof-tests.h"

/* The registers of every row, as cpu-clock --intr-regs records them. */
#define RAX	0x1000ULL
#define RBX	0x2000ULL
#define RCX	0x3000ULL
#define RDX	0x4000ULL
#define RSI	0x210ULL
#define RDI	0x7f0000100000ULL
#define RBP	0x6000ULL
#define RSP	0x7ffc0000ULL
#define R8	0x80000ULL
#define R9	0x90000ULL
#define R12	0x3ULL
#define R13	0xd0000ULL

#define B(...)	.code = { __VA_ARGS__ }, .len = sizeof((u8[]){ __VA_ARGS__ })

struct ea_case {
	const char		*text;		/* objdump -d */
	u8			code[15];
	size_t			len;
	u64			ip;
	enum dprof_ea_reason	reason;
	u64			addr;
	u8			seg;
	u8			size;
	bool			is_write;
	bool			stack;
	u8			insn_len;	/* 0: .len, or unchecked if undecodable */
};

static const struct ea_case ea_cases[] = {
	/* base + disp8, base + disp32 */
	{ "48 8b 47 08		mov    0x8(%rdi),%rax",
	  B(0x48, 0x8b, 0x47, 0x08), .reason = DPROF_EA_OK,
	  .addr = RDI + 0x8, .size = 8 },
	{ "48 8b 87 40 01 00 00	mov    0x140(%rdi),%rax",
	  B(0x48, 0x8b, 0x87, 0x40, 0x01, 0x00, 0x00), .reason = DPROF_EA_OK,
	  .addr = RDI + 0x140, .size = 8 },
	/* SIB: base + index * 8 + disp8 */
	{ "48 8b 44 f7 18		mov    0x18(%rdi,%rsi,8),%rax",
	  B(0x48, 0x8b, 0x44, 0xf7, 0x18), .reason = DPROF_EA_OK,
	  .addr = RDI + RSI * 8 + 0x18, .size = 8 },
	{ "0f b6 04 02		movzbl (%rdx,%rax,1),%eax",
	  B(0x0f, 0xb6, 0x04, 0x02), .reason = DPROF_EA_OK,
	  .addr = RDX + RAX, .size = 1 },
	/* SIB without base: mod=00 base=101 means disp32 */
	{ "48 8b 04 fd 00 00 00 00	mov    0x0(,%rdi,8),%rax",
	  B(0x48, 0x8b, 0x04, 0xfd, 0x00, 0x00, 0x00, 0x00), .reason = DPROF_EA_OK,
	  .addr = RDI * 8, .size = 8 },
	/* RIP-relative load and store: ip + insn_len + disp32 */
	{ "1140: 48 8b 05 d1 2e 00 00	mov    0x2ed1(%rip),%rax  # 4018 <g_var>",
	  B(0x48, 0x8b, 0x05, 0xd1, 0x2e, 0x00, 0x00), .ip = 0x1140,
	  .reason = DPROF_EA_OK, .addr = 0x4018, .size = 8 },
	{ "1150: 48 89 3d c1 2e 00 00	mov    %rdi,0x2ec1(%rip)  # 4018 <g_var>",
	  B(0x48, 0x89, 0x3d, 0xc1, 0x2e, 0x00, 0x00), .ip = 0x1150,
	  .reason = DPROF_EA_OK, .addr = 0x4018, .size = 8, .is_write = true },
	/* r8-r15 through REX.B and REX.X */
	{ "49 8b 41 10		mov    0x10(%r9),%rax",
	  B(0x49, 0x8b, 0x41, 0x10), .reason = DPROF_EA_OK,
	  .addr = R9 + 0x10, .size = 8 },
	{ "49 03 40 08		add    0x8(%r8),%rax",
	  B(0x49, 0x03, 0x40, 0x08), .reason = DPROF_EA_OK,
	  .addr = R8 + 0x8, .size = 8 },
	{ "4a 8b 3c e3		mov    (%rbx,%r12,8),%rdi",
	  B(0x4a, 0x8b, 0x3c, 0xe3), .reason = DPROF_EA_OK,
	  .addr = RBX + R12 * 8, .size = 8 },
	{ "49 8b 0c 24		mov    (%r12),%rcx",
	  B(0x49, 0x8b, 0x0c, 0x24), .reason = DPROF_EA_OK,
	  .addr = R12, .size = 8 },
	{ "49 8b 7d 00		mov    0x0(%r13),%rdi",
	  B(0x49, 0x8b, 0x7d, 0x00), .reason = DPROF_EA_OK,
	  .addr = R13, .size = 8 },
	/* %gs: kernel percpu style, %fs: TLS stack protector */
	{ "65 8b 04 25 34 12 00 00	mov    %gs:0x1234,%eax",
	  B(0x65, 0x8b, 0x04, 0x25, 0x34, 0x12, 0x00, 0x00),
	  .reason = DPROF_EA_SEGMENT, .addr = 0x1234, .seg = 'g', .size = 4 },
	{ "64 48 8b 04 25 28 00 00 00	mov    %fs:0x28,%rax",
	  B(0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0x00, 0x00, 0x00),
	  .reason = DPROF_EA_SEGMENT, .addr = 0x28, .seg = 'f', .size = 8 },
	/* moffs: 64-bit absolute address */
	{ "48 a1 bc 9a 78 56 34 12 00 00	movabs 0x123456789abc,%rax",
	  B(0x48, 0xa1, 0xbc, 0x9a, 0x78, 0x56, 0x34, 0x12, 0x00, 0x00),
	  .reason = DPROF_EA_OK, .addr = 0x123456789abcULL, .size = 8 },
	{ "48 a3 bc 9a 78 56 34 12 00 00	movabs %rax,0x123456789abc",
	  B(0x48, 0xa3, 0xbc, 0x9a, 0x78, 0x56, 0x34, 0x12, 0x00, 0x00),
	  .reason = DPROF_EA_OK, .addr = 0x123456789abcULL, .size = 8,
	  .is_write = true },
	/* SSE, AVX (VEX2), AVX-512 (EVEX) */
	{ "f3 0f 6f 47 10		movdqu 0x10(%rdi),%xmm0",
	  B(0xf3, 0x0f, 0x6f, 0x47, 0x10), .reason = DPROF_EA_OK,
	  .addr = RDI + 0x10, .size = 16 },
	{ "c5 fe 6f 47 20		vmovdqu 0x20(%rdi),%ymm0",
	  B(0xc5, 0xfe, 0x6f, 0x47, 0x20), .reason = DPROF_EA_OK,
	  .addr = RDI + 0x20, .size = 32 },
	{ "62 f1 fe 48 6f 87 04 00 00 00	vmovdqu64 0x4(%rdi),%zmm0",
	  B(0x62, 0xf1, 0xfe, 0x48, 0x6f, 0x87, 0x04, 0x00, 0x00, 0x00),
	  .reason = DPROF_EA_OK, .addr = RDI + 0x4 },
	/* EVEX disp8 is scaled by N (here 64): not guessed */
	{ "62 f1 fe 48 6f 47 01	vmovdqu64 0x40(%rdi),%zmm0",
	  B(0x62, 0xf1, 0xfe, 0x48, 0x6f, 0x47, 0x01),
	  .reason = DPROF_EA_DECODE_FAIL, .insn_len = 7 },
	{ "c4 e2 7d 90 0c 97	vpgatherdd %ymm0,(%rdi,%ymm2,4),%ymm1",
	  B(0xc4, 0xe2, 0x7d, 0x90, 0x0c, 0x97), .reason = DPROF_EA_GATHER },
	/* no memory access */
	{ "48 8d 47 28		lea    0x28(%rdi),%rax",
	  B(0x48, 0x8d, 0x47, 0x28), .reason = DPROF_EA_NO_MEMOP },
	{ "0f 1f 84 00 00 00 00 00	nopl   0x0(%rax,%rax,1)",
	  B(0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00),
	  .reason = DPROF_EA_NO_MEMOP },
	{ "66 66 2e 0f 1f 84 00 00 00 00 00	data16 cs nopw 0x0(%rax,%rax,1)",
	  B(0x66, 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00),
	  .reason = DPROF_EA_NO_MEMOP },
	{ "31 c0			xor    %eax,%eax",
	  B(0x31, 0xc0), .reason = DPROF_EA_NO_MEMOP },
	/* the stack */
	{ "53			push   %rbx",
	  B(0x53), .reason = DPROF_EA_STACK },
	{ "41 57			push   %r15",
	  B(0x41, 0x57), .reason = DPROF_EA_STACK },
	{ "c3			ret",
	  B(0xc3), .reason = DPROF_EA_STACK },
	{ "ff 57 10		call   *0x10(%rdi)",
	  B(0xff, 0x57, 0x10), .reason = DPROF_EA_OK, .addr = RDI + 0x10,
	  .size = 8, .stack = true },
	/* strings */
	{ "f3 a4			rep movsb %ds:(%rsi),%es:(%rdi)",
	  B(0xf3, 0xa4), .reason = DPROF_EA_STRING },
	/* 0x67: the address wraps at 32 bits (gcc -mx32) */
	{ "67 8b 47 04		mov    0x4(%edi),%eax",
	  B(0x67, 0x8b, 0x47, 0x04), .reason = DPROF_EA_OK,
	  .addr = (u32)(RDI + 0x4), .size = 4 },
	/* bit string: the register offset selects the word, 0x210 / 64 * 8 */
	{ "f0 48 0f ab 37		lock bts %rsi,(%rdi)",
	  B(0xf0, 0x48, 0x0f, 0xab, 0x37), .reason = DPROF_EA_OK,
	  .addr = RDI + (RSI >> 6) * 8, .size = 8, .is_write = true },
	/* truncated: the first 5 of 7 bytes of mov 0x140(%rdi),%rax */
	{ "48 8b 87 40 01 [00 00]	mov    0x140(%rdi),%rax, truncated",
	  .code = { 0x48, 0x8b, 0x87, 0x40, 0x01, 0x00, 0x00 }, .len = 5,
	  .reason = DPROF_EA_DECODE_FAIL },
};

static void ea_regs__init(struct regs_dump *regs, u64 *vals)
{
	static const struct {
		int	id;
		u64	val;
	} gprs[] = {
		{ PERF_REG_X86_AX, RAX }, { PERF_REG_X86_BX, RBX },
		{ PERF_REG_X86_CX, RCX }, { PERF_REG_X86_DX, RDX },
		{ PERF_REG_X86_SI, RSI }, { PERF_REG_X86_DI, RDI },
		{ PERF_REG_X86_BP, RBP }, { PERF_REG_X86_SP, RSP },
		{ PERF_REG_X86_R8, R8 }, { PERF_REG_X86_R9, R9 },
		{ PERF_REG_X86_R12, R12 }, { PERF_REG_X86_R13, R13 },
	};
	int i, j = 0;

	memset(regs, 0, sizeof(*regs));
	regs->abi = PERF_SAMPLE_REGS_ABI_64;
	/* what perf record --intr-regs asks for: all but ds, es, fs, gs */
	regs->mask = ((1ULL << PERF_REG_X86_64_MAX) - 1) &
		     ~((1ULL << PERF_REG_X86_DS) | (1ULL << PERF_REG_X86_ES) |
		       (1ULL << PERF_REG_X86_FS) | (1ULL << PERF_REG_X86_GS));
	regs->regs = vals;
	for (i = 0; i < PERF_REG_X86_64_MAX; i++) {
		unsigned int k;

		if (!(regs->mask & (1ULL << i)))
			continue;
		vals[j] = 0xdead0000ULL + i;	/* r10, r11, r14, r15, ip... */
		for (k = 0; k < ARRAY_SIZE(gprs); k++)
			if (gprs[k].id == i)
				vals[j] = gprs[k].val;
		j++;
	}
}

static int ea_case__check(const struct ea_case *c, const struct regs_dump *regs)
{
	enum dprof_ea_reason r;
	struct dprof_ea ea;
	u8 insn_len = c->insn_len ?: c->len;

	r = dprof_ea__decode(c->code, c->len, c->ip, regs, &ea);
	pr_debug("%-60s -> %s addr %#" PRIx64 " seg %c size %u%s%s len %u\n",
		 c->text, dprof_ea_reason__str(r), ea.addr, ea.seg ?: '-', ea.size,
		 ea.is_write ? " write" : "", ea.stack ? " stack" : "", ea.insn_len);

	TEST_ASSERT_EQUAL("wrong reason", r, c->reason);
	if (r == DPROF_EA_DECODE_FAIL && !c->insn_len)
		return TEST_OK;		/* e.g. truncated: nothing else is defined */
	TEST_ASSERT_EQUAL("wrong instruction length", ea.insn_len, insn_len);
	if (r != DPROF_EA_OK && r != DPROF_EA_SEGMENT)
		return TEST_OK;
	TEST_ASSERT_VAL("wrong address", ea.addr == c->addr);
	TEST_ASSERT_EQUAL("wrong segment", ea.seg, c->seg);
	TEST_ASSERT_EQUAL("wrong size", ea.size, c->size);
	TEST_ASSERT_EQUAL("wrong direction", ea.is_write, c->is_write);
	TEST_ASSERT_EQUAL("wrong stack flag", ea.stack, c->stack);
	return TEST_OK;
}

#define REG(r)	(1ULL << PERF_REG_X86_##r)
#define GPRS	(REG(AX) | REG(BX) | REG(CX) | REG(DX) | REG(SI) | REG(DI) | \
		 REG(BP) | REG(SP) | REG(R8) | REG(R9) | REG(R10) | REG(R11) | \
		 REG(R12) | REG(R13) | REG(R14) | REG(R15))

/* For the skid rule: does an instruction overwrite its address registers? */
static int test__dprof_ea_clobbers(const struct regs_dump *regs)
{
	/* 48 8b 00		mov    (%rax),%rax */
	static const u8 mov_rax_rax[] = { 0x48, 0x8b, 0x00 };
	/* 48 8b 47 08		mov    0x8(%rdi),%rax */
	static const u8 mov_rdi[] = { 0x48, 0x8b, 0x47, 0x08 };
	/* 49 8b 7d 00		mov    0x0(%r13),%rdi */
	static const u8 mov_r13[] = { 0x49, 0x8b, 0x7d, 0x00 };
	/* 0f b6 04 02		movzbl (%rdx,%rax,1),%eax */
	static const u8 movzbl[] = { 0x0f, 0xb6, 0x04, 0x02 };
	/* 48 89 3d c1 2e 00 00	mov    %rdi,0x2ec1(%rip) */
	static const u8 store_rip[] = { 0x48, 0x89, 0x3d, 0xc1, 0x2e, 0x00, 0x00 };
	/* 5b			pop    %rbx */
	static const u8 pop_rbx[] = { 0x5b };
	/* ff 57 10		call   *0x10(%rdi) */
	static const u8 call_rdi[] = { 0xff, 0x57, 0x10 };
	/* f3 a4		rep movsb %ds:(%rsi),%es:(%rdi) */
	static const u8 rep_movsb[] = { 0xf3, 0xa4 };
	/* c5 fe 6f 47 20	vmovdqu 0x20(%rdi),%ymm0 */
	static const u8 vmovdqu[] = { 0xc5, 0xfe, 0x6f, 0x47, 0x20 };
	/* f0 48 0f ab 37	lock bts %rsi,(%rdi) */
	static const u8 bts[] = { 0xf0, 0x48, 0x0f, 0xab, 0x37 };
	/* 48 8b 87 40 01	mov    0x140(%rdi),%rax, truncated */
	static const u8 truncated[] = { 0x48, 0x8b, 0x87, 0x40, 0x01 };
	struct dprof_ea ea;

	/* the address registers come out of dprof_ea__decode() */
	dprof_ea__decode(mov_rax_rax, sizeof(mov_rax_rax), 0, regs, &ea);
	TEST_ASSERT_VAL("mov (%rax),%rax: addr_regs", ea.addr_regs == REG(AX));
	TEST_ASSERT_VAL("mov (%rax),%rax",
			dprof_ea__clobbers(mov_rax_rax, sizeof(mov_rax_rax), ea.addr_regs));

	dprof_ea__decode(mov_rdi, sizeof(mov_rdi), 0, regs, &ea);
	TEST_ASSERT_VAL("mov 0x8(%rdi): addr_regs", ea.addr_regs == REG(DI));
	TEST_ASSERT_VAL("mov 0x8(%rdi),%rax",
			!dprof_ea__clobbers(mov_rdi, sizeof(mov_rdi), ea.addr_regs));
	TEST_ASSERT_VAL("mov 0x8(%rdi),%rax writes rax",
			dprof_ea__clobbers(mov_rdi, sizeof(mov_rdi), REG(AX)));

	dprof_ea__decode(mov_r13, sizeof(mov_r13), 0, regs, &ea);
	TEST_ASSERT_VAL("mov 0x0(%r13): addr_regs", ea.addr_regs == REG(R13));
	TEST_ASSERT_VAL("mov 0x0(%r13),%rdi",
			!dprof_ea__clobbers(mov_r13, sizeof(mov_r13), ea.addr_regs));
	TEST_ASSERT_VAL("mov 0x0(%r13),%rdi writes rdi",
			dprof_ea__clobbers(mov_r13, sizeof(mov_r13), REG(DI)));

	dprof_ea__decode(movzbl, sizeof(movzbl), 0, regs, &ea);
	TEST_ASSERT_VAL("movzbl: addr_regs", ea.addr_regs == (REG(DX) | REG(AX)));
	TEST_ASSERT_VAL("movzbl (%rdx,%rax,1),%eax",
			dprof_ea__clobbers(movzbl, sizeof(movzbl), ea.addr_regs));
	TEST_ASSERT_VAL("movzbl (%rdx,%rax,1),%eax keeps rdx",
			!dprof_ea__clobbers(movzbl, sizeof(movzbl), REG(DX)));

	dprof_ea__decode(store_rip, sizeof(store_rip), 0x1150, regs, &ea);
	TEST_ASSERT_VAL("rip store: addr_regs", ea.addr_regs == 0);
	TEST_ASSERT_VAL("rip store writes no register",
			dprof_ea__written_regs(store_rip, sizeof(store_rip)) == 0);

	TEST_ASSERT_VAL("pop %rbx",
			dprof_ea__written_regs(pop_rbx, sizeof(pop_rbx)) ==
			(REG(BX) | REG(SP)));
	TEST_ASSERT_VAL("call *0x10(%rdi)",
			dprof_ea__written_regs(call_rdi, sizeof(call_rdi)) == REG(SP));
	TEST_ASSERT_VAL("rep movsb",
			dprof_ea__clobbers(rep_movsb, sizeof(rep_movsb), REG(SI)));
	TEST_ASSERT_VAL("vmovdqu",
			dprof_ea__written_regs(vmovdqu, sizeof(vmovdqu)) == 0);
	TEST_ASSERT_VAL("lock bts",
			dprof_ea__written_regs(bts, sizeof(bts)) == 0);
	TEST_ASSERT_VAL("truncated: all registers",
			dprof_ea__written_regs(truncated, sizeof(truncated)) == GPRS);
	return TEST_OK;
}

/* The other hooks: instruction length, stack pointer, --intr-regs. */
static int test__dprof_ea_hooks(const u8 *insn, size_t len, struct regs_dump *regs)
{
	const char *intr_regs = dprof_ea__intr_regs();
	u64 sp = 0;

	TEST_ASSERT_EQUAL("instruction length", dprof_ea__insn_len(insn, len), (int)len);
	TEST_ASSERT_EQUAL("truncated instruction", dprof_ea__insn_len(insn, len - 1), -EINVAL);
	TEST_ASSERT_EQUAL("stack pointer", dprof_ea__stack_pointer(regs, &sp), 0);
	TEST_ASSERT_VAL("stack pointer value", sp == RSP);
	regs->mask &= ~REG(SP);
	TEST_ASSERT_EQUAL("no stack pointer", dprof_ea__stack_pointer(regs, &sp), -ENOENT);
	TEST_ASSERT_VAL("--intr-regs asks for sp and r15",
			strstr(intr_regs, "sp,") && strstr(intr_regs, ",r15"));
	return TEST_OK;
}

int test__dprof_ea(struct test_suite *test __maybe_unused,
		   int subtest __maybe_unused)
{
	/* 48 8b 47 08		mov    0x8(%rdi),%rax */
	static const u8 mov_rdi[] = { 0x48, 0x8b, 0x47, 0x08 };
	u64 vals[PERF_REG_X86_64_MAX];
	struct regs_dump regs;
	struct dprof_ea ea;
	unsigned int i;
	int r;

	for (i = 0; i <= DPROF_EA__MAX; i++)
		TEST_ASSERT_VAL("reason text", dprof_ea_reason__str(i) &&
				*dprof_ea_reason__str(i));

	if (!dprof_ea__intr_regs()) {
		/* the __weak fallbacks of util/dprof/ea.c */
		pr_debug("no software-sampler decoder in this perf\n");
		return TEST_SKIP;
	}
	ea_regs__init(&regs, vals);

	for (i = 0; i < ARRAY_SIZE(ea_cases); i++) {
		if (ea_case__check(&ea_cases[i], &regs))
			return TEST_FAIL;
	}

	/* registers missing from the sample */
	r = dprof_ea__decode(mov_rdi, sizeof(mov_rdi), 0, NULL, &ea);
	TEST_ASSERT_EQUAL("no registers", r, DPROF_EA_NO_REGS);
	regs.mask &= ~REG(DI);
	r = dprof_ea__decode(mov_rdi, sizeof(mov_rdi), 0, &regs, &ea);
	TEST_ASSERT_EQUAL("no %rdi", r, DPROF_EA_NO_REGS);
	ea_regs__init(&regs, vals);

	if (test__dprof_ea_clobbers(&regs))
		return TEST_FAIL;
	return test__dprof_ea_hooks(mov_rdi, sizeof(mov_rdi), &regs);
}
