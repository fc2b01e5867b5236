// SPDX-License-Identifier: GPL-2.0
/*
 * dprof software sampler: the data address of the instruction at a sampled
 * ip, computed from its bytes and the interrupt registers (x86-64).
 *
 * A cpu-clock interrupt is taken on an instruction boundary: the sampled ip
 * is the next instruction to execute and --intr-regs holds its inputs, so
 * base + index * scale + disp is exact.  Anything this file cannot compute
 * exactly gets a reason instead of an address.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <linux/bitops.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/perf_event.h>

/*
 * perf's copy of the x86 instruction decoder (tools/arch/x86/lib/insn.c) is
 * not a library of its own: util/intel-pt-decoder/intel-pt-insn-decoder.c
 * #includes inat.c and insn.c, which define insn_decode() and friends with
 * external linkage, and archinsn.c here already calls insn_decode() through
 * that object.  So we do the same and only use the header.  Compiling
 * insn.c into our own object instead would define the same global symbols
 * twice.  The price: this file is built only with CONFIG_AUXTRACE (on by
 * default, off with NO_AUXTRACE=1), as archinsn.o is; without it the
 * fallbacks in util/dprof/ea.c say there is no decoder.
 */
#include "../../../../arch/x86/include/asm/insn.h"
#include <asm/perf_regs.h>

#include "../../../util/debug.h"
#include "../../../util/sample.h"
#include "../../../util/dprof/ea.h"

/*
 * 1 << PERF_REG_X86_* for the 16 general purpose registers: ax..sp are
 * ids 0-7, r8..r15 are ids 16-23.
 */
#define ALL_GPRS	(0xffULL | (0xffULL << 16))

/* ModRM/SIB register number (with REX/VEX extension) -> PERF_REG_X86_* */
static const u8 x86_gpr_to_perf[16] = {
	PERF_REG_X86_AX, PERF_REG_X86_CX, PERF_REG_X86_DX, PERF_REG_X86_BX,
	PERF_REG_X86_SP, PERF_REG_X86_BP, PERF_REG_X86_SI, PERF_REG_X86_DI,
	PERF_REG_X86_R8, PERF_REG_X86_R9, PERF_REG_X86_R10, PERF_REG_X86_R11,
	PERF_REG_X86_R12, PERF_REG_X86_R13, PERF_REG_X86_R14, PERF_REG_X86_R15,
};

#define GPR_BIT(n)	(1ULL << x86_gpr_to_perf[(n) & 15])
#define RAX		GPR_BIT(0)
#define RDX		GPR_BIT(2)
#define RSP		GPR_BIT(4)
#define RBP		GPR_BIT(5)

/* The decoded instruction, normalised across legacy, REX, VEX and EVEX. */
struct ea_insn {
	struct insn	insn;
	unsigned int	map;		/* 0: one byte, 1: 0f, 2: 0f38, 3: 0f3a, ... */
	u8		op;		/* opcode byte within the map */
	u8		simd_pfx;	/* 0, 0x66, 0xf2 or 0xf3 (VEX.pp included) */
	u8		mod;		/* ModRM fields; mod == 3 when no ModRM */
	u8		reg;		/* ModRM.reg with REX.R/VEX.R */
	u8		rm;		/* ModRM.rm with REX.B/VEX.B (register forms) */
	bool		rex;		/* any REX prefix: no %ah..%bh byte registers */
	bool		rex_x;
	bool		rex_b;
	bool		vex;		/* VEX or EVEX */
	bool		evex;
	u8		seg;		/* 'f', 'g' or 0 */
};

/*
 * Like perf_reg_value(), but without writing the cache in *regs, so that
 * the sample can stay const: regs[] holds the registers of mask in id order.
 */
static int ea__reg(const struct regs_dump *regs, int id, u64 *val)
{
	if (!regs || !regs->regs || regs->abi == PERF_SAMPLE_REGS_ABI_NONE)
		return -EINVAL;
	if (!(regs->mask & (1ULL << id)))
		return -ENOENT;
	*val = regs->regs[hweight64(regs->mask & ((1ULL << id) - 1))];
	return 0;
}

static int ea_insn__decode(struct ea_insn *d, const u8 *code, size_t len)
{
	struct insn *insn = &d->insn;
	unsigned int i;
	insn_byte_t p;

	memset(d, 0, sizeof(*d));
	if (!code || !len)
		return -EINVAL;
	if (len > MAX_INSN_SIZE)
		len = MAX_INSN_SIZE;
	if (insn_decode(insn, code, len, INSN_MODE_64) < 0 || insn->length > len)
		return -EINVAL;

	if (insn->rex_prefix.nbytes == 2) {
		/* APX REX2: r16-r31 are not in the sample, and too new to trust */
		pr_debug("dprof: REX2 (APX) instruction not handled\n");
		return -EOPNOTSUPP;
	}

	for_each_insn_prefix(insn, i, p) {
		switch (p) {
		case 0x64:
		case 0x65:
			if (d->seg)	/* both %fs and %gs: which one wins? */
				return -EOPNOTSUPP;
			d->seg = p == 0x64 ? 'f' : 'g';
			break;
		case 0x66:
			if (!d->simd_pfx)
				d->simd_pfx = p;
			break;
		case 0xf2:
		case 0xf3:
			/* the last of f2/f3 is the mandatory prefix */
			if (insn->prefixes.bytes[3] == p ||
			    (d->simd_pfx != 0xf2 && d->simd_pfx != 0xf3))
				d->simd_pfx = p;
			break;
		default:
			break;
		}
	}

	if (insn->vex_prefix.nbytes) {
		static const u8 vex_pp[4] = { 0, 0x66, 0xf3, 0xf2 };
		u8 b1 = insn->vex_prefix.bytes[1];

		d->vex = true;
		d->evex = insn->vex_prefix.nbytes == 4;
		d->map = insn_vex_m_bits(insn);
		d->op = insn->opcode.bytes[0];
		d->simd_pfx = vex_pp[insn_vex_p_bits(insn)];
		/* R, X, B are stored inverted; VEX2 has R only */
		d->reg = b1 & 0x80 ? 0 : 8;
		if (insn->vex_prefix.nbytes > 2) {
			d->rex_x = !(b1 & 0x40);
			d->rex_b = !(b1 & 0x20);
		}
		/*
		 * EVEX P0 bit 3 must be 0 and P1 bit 2 must be 1 before APX,
		 * which reuses them as B4 and ~X4 to reach r16-r31.
		 */
		if (d->evex && ((b1 & 0x08) || !(insn->vex_prefix.bytes[2] & 0x04))) {
			pr_debug("dprof: EVEX with APX register extension not handled\n");
			return -EOPNOTSUPP;
		}
		d->rex = true;
	} else {
		u8 rex = insn->rex_prefix.nbytes ? insn->rex_prefix.bytes[0] : 0;

		d->rex = rex != 0;
		d->reg = X86_REX_R(rex) ? 8 : 0;
		d->rex_x = X86_REX_X(rex);
		d->rex_b = X86_REX_B(rex);
		if (insn->opcode.bytes[0] != 0x0f) {
			d->map = 0;
			d->op = insn->opcode.bytes[0];
		} else if (insn->opcode.nbytes == 2) {
			d->map = 1;
			d->op = insn->opcode.bytes[1];
		} else {
			d->map = insn->opcode.bytes[1] == 0x38 ? 2 : 3;
			d->op = insn->opcode.bytes[2];
		}
	}

	if (insn->modrm.nbytes) {
		u8 modrm = insn->modrm.bytes[0];

		d->mod = X86_MODRM_MOD(modrm);
		d->reg |= X86_MODRM_REG(modrm);
		d->rm = X86_MODRM_RM(modrm) | (d->rex_b ? 8 : 0);
	} else {
		d->mod = 3;
	}
	return 0;
}

/* ModRM.reg as an opcode extension (/digit) */
static inline u8 ea_insn__ext(const struct ea_insn *d)
{
	return d->reg & 7;
}

/*
 * Classify the instruction: DPROF_EA_OK when it has an explicit memory
 * operand (ModRM or moffs) whose address we know how to compute.
 */
static enum dprof_ea_reason ea_insn__classify(const struct ea_insn *d,
					      struct dprof_ea *ea)
{
	bool mem = d->mod != 3;

	if (d->map == 0) {
		switch (d->op) {
		case 0x8d:			/* lea: computes, does not access */
			return DPROF_EA_NO_MEMOP;
		case 0x6c ... 0x6f:		/* ins, outs */
		case 0xa4 ... 0xa7:		/* movs, cmps */
		case 0xaa ... 0xaf:		/* stos, lods, scas */
		case 0xd7:			/* xlat: (%rbx,%al) */
			return DPROF_EA_STRING;
		case 0x50 ... 0x5f:		/* push, pop reg */
		case 0x68:
		case 0x6a:			/* push imm */
		case 0x9c:
		case 0x9d:			/* pushf, popf */
		case 0xc2:
		case 0xc3:			/* ret */
		case 0xc8:
		case 0xc9:			/* enter, leave */
		case 0xca:
		case 0xcb:
		case 0xcf:			/* lret, iret */
		case 0xe8:			/* call rel32 */
			return DPROF_EA_STACK;
		case 0x8f:			/* pop r/m */
			if (!mem)
				return DPROF_EA_STACK;
			ea->stack = true;
			break;
		case 0xff:
			/* call *m, lcall *m, push m: the operand and the stack */
			if (ea_insn__ext(d) == 2 || ea_insn__ext(d) == 3 ||
			    ea_insn__ext(d) == 6) {
				if (!mem)
					return DPROF_EA_STACK;
				ea->stack = true;
			}
			break;
		case 0xa0 ... 0xa3:		/* mov moffs */
			return DPROF_EA_OK;
		default:
			break;
		}
	} else if (d->map == 1) {
		switch (d->op) {
		case 0xa0:
		case 0xa1:
		case 0xa8:
		case 0xa9:			/* push/pop %fs/%gs */
			if (!d->vex)
				return DPROF_EA_STACK;
			break;
		case 0x19:
		case 0x1d ... 0x1f:		/* hint nops, endbr */
		case 0x0b:
		case 0xb9:
		case 0xff:			/* ud2, ud1, ud0 */
			if (!d->vex)
				return DPROF_EA_NO_MEMOP;
			break;
		case 0x1a:
		case 0x1b:			/* MPX: bound tables, lea-like bndmk */
			if (!d->vex)
				return DPROF_EA_DECODE_FAIL;
			break;
		case 0x01:			/* invlpg m: an address, no access */
			if (!d->vex && mem && ea_insn__ext(d) == 7)
				return DPROF_EA_NO_MEMOP;
			break;
		default:
			break;
		}
	} else if (d->map == 2 && d->vex) {
		switch (d->op) {
		case 0x90 ... 0x93:		/* gathers */
		case 0xa0 ... 0xa3:		/* scatters */
		case 0xc6:
		case 0xc7:			/* gather/scatter prefetches */
			return DPROF_EA_GATHER;
		case 0x49:
		case 0x4b:			/* AMX tile load/store: many rows */
			if (mem)
				return DPROF_EA_DECODE_FAIL;
			break;
		default:
			break;
		}
	}
	return mem ? DPROF_EA_OK : DPROF_EA_NO_MEMOP;
}

/* Best effort operand size and direction of the memory operand. */
static void ea_insn__size_dir(const struct ea_insn *d, struct dprof_ea *ea)
{
	u8 opnd = d->insn.opnd_bytes;
	u8 vlen = d->vex && (d->insn.vex_prefix.bytes[2] & 0x04) ? 32 : 16;
	u8 ext = ea_insn__ext(d);
	u8 op = d->op;

	if (d->evex)
		vlen = 0;	/* EVEX.L'L: not needed yet */

	if (d->map == 0) {
		switch (op) {
		case 0x00 ... 0x3f:
			if ((op & 7) > 3)
				break;
			ea->size = op & 1 ? opnd : 1;
			/* r/m destination, except cmp */
			ea->is_write = !(op & 2) && (op & 0x38) != 0x38;
			break;
		case 0x63:				/* movsxd */
			ea->size = 4;
			break;
		case 0x69:
		case 0x6b:
		case 0x85:
		case 0x8b:
			ea->size = opnd;
			break;
		case 0x84:
		case 0x8a:
			ea->size = 1;
			break;
		case 0x86:
		case 0x88:
			ea->size = 1;
			ea->is_write = true;
			break;
		case 0x87:
		case 0x89:
			ea->size = opnd;
			ea->is_write = true;
			break;
		case 0x8c:
			ea->size = 2;
			ea->is_write = true;
			break;
		case 0x8e:
			ea->size = 2;
			break;
		case 0x8f:
			ea->size = 8;
			ea->is_write = true;
			break;
		case 0x80:
		case 0x82:
		case 0x81:
		case 0x83:
			ea->size = op & 1 ? opnd : 1;
			ea->is_write = ext != 7;
			break;
		case 0xc0:
		case 0xd0:
		case 0xd2:
		case 0xc6:
			ea->size = 1;
			ea->is_write = true;
			break;
		case 0xc1:
		case 0xd1:
		case 0xd3:
		case 0xc7:
			ea->size = opnd;
			ea->is_write = true;
			break;
		case 0xf6:
		case 0xf7:
			ea->size = op & 1 ? opnd : 1;
			ea->is_write = ext == 2 || ext == 3;
			break;
		case 0xfe:
			ea->size = 1;
			ea->is_write = ext < 2;
			break;
		case 0xff:
			if (ext < 2) {
				ea->size = opnd;
				ea->is_write = true;
			} else if (ext == 2 || ext == 4 || ext == 6) {
				ea->size = 8;
			}
			break;
		case 0xa0:
		case 0xa2:
			ea->size = 1;
			ea->is_write = op == 0xa2;
			break;
		case 0xa1:
		case 0xa3:
			ea->size = opnd;
			ea->is_write = op == 0xa3;
			break;
		default:
			break;
		}
		return;
	}

	if (d->map == 2 && !d->vex && (op == 0xf0 || op == 0xf1) &&
	    d->simd_pfx != 0xf2) {			/* movbe */
		ea->size = opnd;
		ea->is_write = op == 0xf1;
		return;
	}
	if (d->map != 1)
		return;

	switch (op) {
	case 0x40 ... 0x4f:				/* cmovcc */
	case 0xaf:					/* imul */
	case 0xa3:					/* bt */
		if (!d->vex)
			ea->size = opnd;
		break;
	case 0x90 ... 0x9f:				/* setcc */
		if (!d->vex) {
			ea->size = 1;
			ea->is_write = true;
		}
		break;
	case 0xab:
	case 0xb3:
	case 0xbb:					/* bts, btr, btc */
	case 0xb1:
	case 0xc1:					/* cmpxchg, xadd */
	case 0xc3:					/* movnti */
		ea->size = opnd;
		ea->is_write = true;
		break;
	case 0xba:
		ea->size = opnd;
		ea->is_write = ext >= 5;
		break;
	case 0xb0:
	case 0xc0:
		ea->size = 1;
		ea->is_write = true;
		break;
	case 0xb6:
	case 0xbe:					/* movzb, movsb */
		ea->size = 1;
		break;
	case 0xb7:
	case 0xbf:					/* movzw, movsw */
		ea->size = 2;
		break;
	case 0xc7:
		if (ext == 1) {				/* cmpxchg8b/16b */
			ea->size = opnd == 8 ? 16 : 8;
			ea->is_write = true;
		}
		break;
	case 0x10:
	case 0x11:		/* movups, movupd, movss, movsd */
		if (d->simd_pfx == 0xf3)
			ea->size = 4;
		else if (d->simd_pfx == 0xf2)
			ea->size = 8;
		else
			ea->size = vlen;
		ea->is_write = op == 0x11;
		break;
	case 0x28:
	case 0x29:
	case 0x2b:		/* movaps, movapd, movntps */
		ea->size = vlen;
		ea->is_write = op != 0x28;
		break;
	case 0x6f:
	case 0x7f:
	case 0xe7:		/* movdqa, movdqu, movntdq; mmx movq */
		ea->size = d->simd_pfx ? vlen : 8;
		ea->is_write = op != 0x6f;
		break;
	case 0x12:
	case 0x13:
	case 0x16:
	case 0x17:		/* movlps, movhps, ... */
		if (d->mod != 3) {
			ea->size = 8;
			ea->is_write = op & 1;
		}
		break;
	case 0xd6:		/* movq xmm, m64 */
		ea->size = 8;
		ea->is_write = true;
		break;
	case 0x7e:		/* movq m64, xmm; movd/movq xmm, r/m */
		if (d->simd_pfx == 0xf3) {
			ea->size = 8;
		} else {
			ea->size = opnd;
			ea->is_write = true;
		}
		break;
	case 0x6e:		/* movd/movq r/m, xmm */
		ea->size = opnd;
		break;
	case 0xae:
		if (!d->vex && d->mod != 3) {
			/* fxsave, stmxcsr, xsave, xsaveopt write */
			ea->is_write = ext == 0 || ext == 3 || ext == 4 || ext == 6;
			if (ext == 2 || ext == 3)
				ea->size = 4;
		}
		break;
	default:
		break;
	}
}

/* The ModRM memory operand: base + index * scale + disp, or RIP + disp. */
static enum dprof_ea_reason ea_insn__modrm(const struct ea_insn *d, u64 ip,
					   const struct regs_dump *regs,
					   struct dprof_ea *ea)
{
	const struct insn *insn = &d->insn;
	u8 rm = X86_MODRM_RM(insn->modrm.bytes[0]);
	s64 disp = insn->displacement.value;	/* sign-extended by insn.c */
	u64 addr, val;
	int base = -1, index = -1, scale = 0;

	if (d->evex && insn->displacement.nbytes == 1) {
		/* disp8 * N, N depends on the tuple type of each opcode */
		pr_debug("dprof: EVEX compressed disp8 not handled\n");
		return DPROF_EA_DECODE_FAIL;
	}

	if (d->mod == 0 && rm == 5) {
		/* RIP-relative: from the end of this instruction */
		addr = ip + insn->length + disp;
	} else {
		if (rm == 4) {
			u8 sib = insn->sib.bytes[0];

			index = X86_SIB_INDEX(sib) | (d->rex_x ? 8 : 0);
			scale = X86_SIB_SCALE(sib);
			if (index == 4)			/* %rsp: no index */
				index = -1;
			/* mod == 0 with base 101 (rbp or r13): disp32, no base */
			if (!(d->mod == 0 && X86_SIB_BASE(sib) == 5))
				base = X86_SIB_BASE(sib) | (d->rex_b ? 8 : 0);
		} else {
			base = d->rm;
		}

		addr = disp;
		if (base >= 0) {
			ea->addr_regs |= GPR_BIT(base);
			if (ea__reg(regs, x86_gpr_to_perf[base], &val))
				return DPROF_EA_NO_REGS;
			addr += val;
		}
		if (index >= 0) {
			ea->addr_regs |= GPR_BIT(index);
			if (ea__reg(regs, x86_gpr_to_perf[index], &val))
				return DPROF_EA_NO_REGS;
			addr += val << scale;
		}
	}

	/* 0x67: the address wraps at 32 bits, RIP-relative included */
	if (insn->addr_bytes == 4)
		addr = (u32)addr;
	ea->addr = addr;
	return DPROF_EA_OK;
}

/*
 * bt/bts/btr/btc with a register bit offset reach outside their operand:
 * the signed offset selects the word, EA + size * (offset DIV bits).
 */
static enum dprof_ea_reason ea_insn__bitop(const struct ea_insn *d,
					   const struct regs_dump *regs,
					   struct dprof_ea *ea)
{
	u64 val;
	s64 off;

	if (d->map != 1 || d->vex ||
	    (d->op != 0xa3 && d->op != 0xab && d->op != 0xb3 && d->op != 0xbb))
		return DPROF_EA_OK;

	if (ea__reg(regs, x86_gpr_to_perf[d->reg], &val))
		return DPROF_EA_NO_REGS;
	ea->addr_regs |= GPR_BIT(d->reg);
	switch (d->insn.opnd_bytes) {
	case 2:
		off = (s16)val;
		break;
	case 4:
		off = (s32)val;
		break;
	default:
		off = (s64)val;
		break;
	}
	/* arithmetic shift: DIV rounds towards minus infinity here */
	off >>= 3 + ilog2(d->insn.opnd_bytes);
	ea->addr += off * d->insn.opnd_bytes;
	if (d->insn.addr_bytes == 4)
		ea->addr = (u32)ea->addr;
	return DPROF_EA_OK;
}

/**
 * dprof_ea__decode - the data address of the instruction at a sampled ip
 * @code: the instruction bytes at @ip
 * @len: number of bytes at @code, up to 15; may be shorter near the end of
 *	a map, the instruction must fit in it
 * @ip: address of @code[0]
 * @regs: the sample's intr_regs, the inputs of the instruction at @ip;
 *	may be NULL when only the instruction is of interest
 * @ea: filled in; ->insn_len is set whenever the bytes decode
 *
 * Decodes 64-bit code only: the caller must not pass 32-bit (compat) user
 * code.  With DPROF_EA_SEGMENT, ->addr is the offset within %fs/%gs and
 * ->seg says which.  ->addr_regs lists the base/index registers, for
 * dprof_ea__clobbers().  ->size and ->is_write are best effort.
 *
 * Return: DPROF_EA_OK when ->addr is the exact data address, else why not.
 */
enum dprof_ea_reason dprof_ea__decode(const u8 *code, size_t len, u64 ip,
				      const struct regs_dump *regs,
				      struct dprof_ea *ea)
{
	enum dprof_ea_reason r;
	struct ea_insn d;
	const struct insn *insn = &d.insn;

	memset(ea, 0, sizeof(*ea));
	if (ea_insn__decode(&d, code, len)) {
		if (insn->length && insn->length <= len && insn->length <= MAX_INSN_SIZE)
			ea->insn_len = insn->length;
		pr_debug("dprof: cannot decode instruction at %#" PRIx64 "\n", ip);
		return DPROF_EA_DECODE_FAIL;
	}
	ea->insn_len = insn->length;

	r = ea_insn__classify(&d, ea);
	if (r != DPROF_EA_OK)
		return r;

	ea_insn__size_dir(&d, ea);

	if (d.map == 0 && d.op >= 0xa0 && d.op <= 0xa3) {
		/* mov moffs: an absolute address of addr_bytes bytes */
		ea->addr = (u32)insn->moffset1.value;
		if (insn->addr_bytes == 8)
			ea->addr |= (u64)(u32)insn->moffset2.value << 32;
	} else {
		r = ea_insn__modrm(&d, ip, regs, ea);
		if (r == DPROF_EA_OK)
			r = ea_insn__bitop(&d, regs, ea);
		if (r != DPROF_EA_OK)
			return r;
	}

	if (d.seg) {
		ea->seg = d.seg;
		return DPROF_EA_SEGMENT;
	}
	return DPROF_EA_OK;
}

/* ModRM.rm as a destination register: only in the register form. */
static u64 ea_insn__rm_dst(const struct ea_insn *d, bool byte)
{
	u64 bits;

	if (d->mod != 3)
		return 0;
	bits = GPR_BIT(d->rm);
	/* without REX, byte registers 4-7 are %ah, %ch, %dh, %bh */
	if (byte && !d->rex && d->rm >= 4 && d->rm < 8)
		bits |= GPR_BIT(d->rm - 4);
	return bits;
}

static u64 ea_insn__reg_dst(const struct ea_insn *d, u8 reg, bool byte)
{
	u64 bits = GPR_BIT(reg);

	if (byte && !d->rex && reg >= 4 && reg < 8)
		bits |= GPR_BIT(reg - 4);
	return bits;
}

/* SSE/AVX map 1 opcodes whose destination is never a general register. */
static bool ea_insn__simd_no_gpr(const struct ea_insn *d)
{
	switch (d->op) {
	case 0x10 ... 0x17:
	case 0x28 ... 0x2b:
	case 0x2e:
	case 0x2f:
	case 0x51 ... 0x7d:
	case 0x7f:
	case 0xc2 ... 0xc4:
	case 0xc6:
	case 0xd0 ... 0xd6:
	case 0xd8 ... 0xfe:
		/* but vmread, vmwrite */
		return d->op != 0x78 && d->op != 0x79;
	case 0x7e:	/* movq m64/xmm to xmm; without F3 it goes to r/m */
		return d->simd_pfx == 0xf3 || d->mod != 3;
	default:
		return false;
	}
}

static u64 ea_insn__written_map0(const struct ea_insn *d)
{
	u8 op = d->op, ext = ea_insn__ext(d);
	u8 opreg = (op & 7) | (d->rex_b ? 8 : 0);	/* register in the opcode */

	switch (op) {
	case 0x00 ... 0x3f:
		if ((op & 7) > 5)
			return ALL_GPRS;		/* not valid in 64-bit mode */
		if ((op & 0x38) == 0x38)		/* cmp */
			return 0;
		switch (op & 7) {
		case 0:
		case 1:
			return ea_insn__rm_dst(d, !(op & 1));
		case 2:
		case 3:
			return ea_insn__reg_dst(d, d->reg, !(op & 1));
		default:
			return RAX;
		}
	case 0x50 ... 0x57:
	case 0x68:
	case 0x6a:
	case 0x9c:
	case 0x9d:
	case 0xc2:
	case 0xc3:
	case 0xe8:
		return RSP;
	case 0x58 ... 0x5f:
		return RSP | GPR_BIT(opreg);
	case 0x63:
	case 0x69:
	case 0x6b:
	case 0x8b:
	case 0x8d:
		return GPR_BIT(d->reg);
	case 0x8a:
		return ea_insn__reg_dst(d, d->reg, true);
	case 0x70 ... 0x7f:
	case 0x84:
	case 0x85:
	case 0xa8:
	case 0xa9:
	case 0xe9:
	case 0xeb:
	case 0xf5:
	case 0xf8 ... 0xfd:
		return 0;
	case 0x80 ... 0x83:
		return ext == 7 ? 0 : ea_insn__rm_dst(d, !(op & 1));
	case 0x86:
	case 0x87:
		return ea_insn__reg_dst(d, d->reg, op == 0x86) |
		       ea_insn__rm_dst(d, op == 0x86);
	case 0x88:
	case 0x89:
	case 0x8c:
		return ea_insn__rm_dst(d, op == 0x88);
	case 0x8f:
		return ext == 0 ? RSP | ea_insn__rm_dst(d, false) : ALL_GPRS;
	case 0x90:			/* nop, pause; xchg %r8,%rax with REX.B */
		return d->rex_b ? RAX | GPR_BIT(8) : 0;
	case 0x91 ... 0x97:
		return RAX | GPR_BIT(opreg);
	case 0x98:
		return RAX;
	case 0x99:
		return RDX;
	case 0xb0 ... 0xbf:
		return ea_insn__reg_dst(d, opreg, op < 0xb8);
	case 0xc0:
	case 0xc1:
	case 0xd0 ... 0xd3:
		return ea_insn__rm_dst(d, !(op & 1));
	case 0xc6:
	case 0xc7:
		return ext == 0 ? ea_insn__rm_dst(d, op == 0xc6) : ALL_GPRS;
	case 0xc9:
		return RSP | RBP;
	case 0xf6:
	case 0xf7:
		if (ext < 2)
			return 0;
		if (ext < 4)
			return ea_insn__rm_dst(d, op == 0xf6);
		return RAX | RDX;
	case 0xfe:
	case 0xff:
		if (ext < 2)
			return ea_insn__rm_dst(d, op == 0xfe);
		if (op == 0xff && ext == 4)
			return 0;
		if (op == 0xff && (ext == 2 || ext == 6))
			return RSP;
		return ALL_GPRS;
	default:
		return ALL_GPRS;
	}
}

static u64 ea_insn__written_map1(const struct ea_insn *d)
{
	u8 op = d->op, ext = ea_insn__ext(d);

	if (d->vex)
		return ea_insn__simd_no_gpr(d) ? 0 : ALL_GPRS;

	switch (op) {
	case 0x0b:
	case 0x0d:
	case 0x18:
	case 0x19:
	case 0x1d:
	case 0x1f:
	case 0x80 ... 0x8f:
		return 0;
	case 0x1e:			/* endbr64, endbr32; rdssp writes */
		return d->insn.modrm.bytes[0] == 0xfa ||
		       d->insn.modrm.bytes[0] == 0xfb ? 0 : ALL_GPRS;
	case 0x40 ... 0x4f:
	case 0xaf:
	case 0xb6:
	case 0xb7:
	case 0xb8:
	case 0xbc ... 0xbf:
		return GPR_BIT(d->reg);
	case 0x90 ... 0x9f:
		return ea_insn__rm_dst(d, true);
	case 0xa3:
		return 0;
	case 0xa4:
	case 0xa5:
	case 0xab:
	case 0xac:
	case 0xad:
	case 0xb3:
	case 0xbb:
		return ea_insn__rm_dst(d, false);
	case 0xba:
		if (ext == 4)
			return 0;
		return ext > 4 ? ea_insn__rm_dst(d, false) : ALL_GPRS;
	case 0xb0:
	case 0xb1:
		return RAX | ea_insn__rm_dst(d, op == 0xb0);
	case 0xc0:
	case 0xc1:
		return ea_insn__reg_dst(d, d->reg, op == 0xc0) |
		       ea_insn__rm_dst(d, op == 0xc0);
	case 0xc7:
		return ext == 1 && d->mod != 3 ? RAX | RDX : ALL_GPRS;
	case 0xc8 ... 0xcf:
		return GPR_BIT((op & 7) | (d->rex_b ? 8 : 0));
	case 0xae:			/* lfence, mfence, sfence */
		return d->mod == 3 && ext >= 5 ? 0 : ALL_GPRS;
	default:
		return ea_insn__simd_no_gpr(d) ? 0 : ALL_GPRS;
	}
}

/**
 * dprof_ea__written_regs - the general registers an instruction may write
 * @code: the instruction bytes
 * @len: number of bytes at @code
 *
 * Conservative: an instruction that does not decode, or that is not known
 * here, writes every register.  Flags are not counted; %rsp is written by
 * push, pop, call and ret.
 *
 * Return: a mask of 1 << PERF_REG_X86_* bits, of the 16 general purpose
 * registers.
 */
u64 dprof_ea__written_regs(const u8 *code, size_t len)
{
	struct ea_insn d;

	if (ea_insn__decode(&d, code, len))
		return ALL_GPRS;
	if (d.map == 0)
		return ea_insn__written_map0(&d);
	if (d.map == 1)
		return ea_insn__written_map1(&d);
	return ALL_GPRS;
}

/**
 * dprof_ea__insn_len - the length of the x86-64 instruction at @code
 * @code: the instruction bytes
 * @len: number of bytes at @code; the instruction must fit in them
 *
 * Return: the length in bytes, or -EINVAL when the bytes do not decode.
 */
int dprof_ea__insn_len(const u8 *code, size_t len)
{
	struct insn insn;

	if (insn_decode(&insn, code, len, INSN_MODE_64) < 0 || insn.length > len)
		return -EINVAL;
	return insn.length;
}

/**
 * dprof_ea__mem_syntax - does an instruction show a memory operand
 * @code: the instruction bytes
 * @len: number of bytes at @code
 *
 * In AT&T syntax: "(...)", "%gs:..." or an absolute address, i.e. a
 * ModRM memory form, moffs; and the implicit operands the disassembly
 * writes in parentheses: string and port I/O instructions, xlat, x87's
 * "%st(i)" registers.  Yes for what does not decode.
 *
 * Return: false only when no operand is in memory syntax.
 */
bool dprof_ea__mem_syntax(const u8 *code, size_t len)
{
	struct ea_insn d;

	if (ea_insn__decode(&d, code, len) || d.mod != 3)
		return true;
	if (d.map || d.vex)
		return false;
	switch (d.op) {
	case 0x6c ... 0x6f:	/* ins, outs */
	case 0xa0 ... 0xaf:	/* mov moffs, movs, cmps, stos, lods, scas */
	case 0xd7:		/* xlat */
	case 0xd8 ... 0xdf:	/* x87: %st(i) */
	case 0xe4 ... 0xe7:
	case 0xec ... 0xef:	/* in, out: (%dx) */
		return true;
	default:
		return false;
	}
}

/**
 * dprof_ea__may_fuse - may an instruction be taken as fused with the next
 * @code: the instruction bytes
 * @len: number of bytes at @code
 *
 * perf's x86 annotation fuses a cmp, test, add, sub, and, inc, dec (and on
 * AMD or, xor) with the instruction after it, by a match on the mnemonic.
 * No only for one-byte opcodes whose mnemonics match none of those:
 * moves, lea, push/pop, jumps, calls, returns, shifts, flag operations.
 *
 * Return: false only when perf never takes it for the first of a pair.
 */
bool dprof_ea__may_fuse(const u8 *code, size_t len)
{
	struct ea_insn d;

	if (ea_insn__decode(&d, code, len) || d.map || d.vex)
		return true;
	switch (d.op) {
	case 0x50 ... 0x5f:	/* push, pop */
	case 0x63:		/* movslq */
	case 0x68 ... 0x6b:	/* push imm, imul */
	case 0x70 ... 0x7f:	/* jcc */
	case 0x86 ... 0x8f:	/* xchg, mov, lea, pop */
	case 0x90 ... 0x9f:	/* nop, xchg, cltq, cqto, wait, pushf, popf, sahf, lahf */
	case 0xb0 ... 0xbf:	/* mov imm */
	case 0xc0 ... 0xc3:	/* shifts, ret */
	case 0xc6 ... 0xcf:	/* mov, enter, leave, lret, int3, int, iret */
	case 0xd0 ... 0xd3:	/* shifts */
	case 0xe0 ... 0xef:	/* loop, jrcxz, in, out, call, jmp */
	case 0xf4:
	case 0xf5:		/* hlt, cmc */
	case 0xf8 ... 0xfd:	/* clc, stc, cli, sti, cld, std */
		return false;
	default:
		return true;
	}
}

/**
 * dprof_ea__intr_regs - the registers dprof_ea__decode() reads
 *
 * The 16 general purpose registers: not ip, which the sample has, nor
 * flags, which no address uses (16 bytes of every sample, 7% of them).
 * Segment bases are not in perf's x86 register set, so %fs and %gs
 * operands come back as offsets (DPROF_EA_SEGMENT).
 *
 * Return: the 'perf record --intr-regs=' list.
 */
const char *dprof_ea__intr_regs(void)
{
	return "ax,bx,cx,dx,si,di,bp,sp,r8,r9,r10,r11,r12,r13,r14,r15";
}

/**
 * dprof_ea__stack_pointer - %rsp in a sample's registers
 * @regs: the sample's intr_regs
 * @sp: set to %rsp
 *
 * Return: 0, or a negative errno when %rsp was not sampled.
 */
int dprof_ea__stack_pointer(const struct regs_dump *regs, u64 *sp)
{
	return ea__reg(regs, PERF_REG_X86_SP, sp) ? -ENOENT : 0;
}
