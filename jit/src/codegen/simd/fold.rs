//! Integer values the vector loop can tell from constants while it emits code, before
//! Cranelift's optimizer folds them.
//!
//! A shift amount reaches the vector loop's shifts as a Cranelift value; when it is a constant
//! the shift becomes one instruction with an immediate (`vpslld $k`). Amounts computed from
//! constants (a funnel shift's `32 - n % 32` on `uint4` splats, built lane by lane and read
//! back with `extractlane`) are constants only after the optimizer, which folds the scalar
//! arithmetic but not `extractlane` of a vector built with `insertlane`: the shift then takes
//! its amount from a register (`vmovd` + `vpsrld %xmm`, the amount live across the loop). This
//! follows such a value back through the instructions that built it.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{DataFlowGraph, InstructionData, Opcode, Value};

/// How many instructions deep [`const_int`] looks.
const DEPTH: u32 = 24;

/// The value of integer `v` (scalar) if it follows from constants, as its unsigned bits.
pub(super) fn const_int(dfg: &DataFlowGraph, v: Value) -> Option<u64> {
    scalar(dfg, v, DEPTH)
}

/// `x` kept to the low `bits` bits.
fn trunc(x: u64, bits: u32) -> u64 {
    if bits >= 64 {
        x
    } else {
        x & ((1u64 << bits) - 1)
    }
}

/// `x` of `bits` bits, sign-extended.
fn signed(x: u64, bits: u32) -> i64 {
    if bits >= 64 {
        x as i64
    } else {
        ((x << (64 - bits)) as i64) >> (64 - bits)
    }
}

/// A binary integer operation on `bits`-bit operands, as Cranelift defines it (shift amounts
/// modulo the width); `None` for a division by zero or an operation not handled.
fn binary(op: Opcode, a: u64, b: u64, bits: u32) -> Option<u64> {
    let sh = (b % u64::from(bits)) as u32;
    let r = match op {
        Opcode::Iadd => a.wrapping_add(b),
        Opcode::Isub => a.wrapping_sub(b),
        Opcode::Imul => a.wrapping_mul(b),
        Opcode::Band => a & b,
        Opcode::Bor => a | b,
        Opcode::Bxor => a ^ b,
        Opcode::Ishl => a << sh,
        Opcode::Ushr => trunc(a, bits) >> sh,
        Opcode::Sshr => (signed(a, bits) >> sh) as u64,
        Opcode::Udiv if trunc(b, bits) != 0 => trunc(a, bits) / trunc(b, bits),
        Opcode::Urem if trunc(b, bits) != 0 => trunc(a, bits) % trunc(b, bits),
        Opcode::Umin => trunc(a, bits).min(trunc(b, bits)),
        Opcode::Umax => trunc(a, bits).max(trunc(b, bits)),
        _ => return None,
    };
    Some(trunc(r, bits))
}

fn compare(cc: IntCC, a: u64, b: u64, bits: u32) -> bool {
    let (ua, ub) = (trunc(a, bits), trunc(b, bits));
    let (sa, sb) = (signed(a, bits), signed(b, bits));
    match cc {
        IntCC::Equal => ua == ub,
        IntCC::NotEqual => ua != ub,
        IntCC::UnsignedLessThan => ua < ub,
        IntCC::UnsignedLessThanOrEqual => ua <= ub,
        IntCC::UnsignedGreaterThan => ua > ub,
        IntCC::UnsignedGreaterThanOrEqual => ua >= ub,
        IntCC::SignedLessThan => sa < sb,
        IntCC::SignedLessThanOrEqual => sa <= sb,
        IntCC::SignedGreaterThan => sa > sb,
        IntCC::SignedGreaterThanOrEqual => sa >= sb,
    }
}

fn scalar(dfg: &DataFlowGraph, v: Value, depth: u32) -> Option<u64> {
    let ty = dfg.value_type(v);
    if !ty.is_int() || depth == 0 {
        return None;
    }
    let bits = ty.bits();
    let inst = dfg.value_def(v).inst()?;
    let d = depth - 1;
    match dfg.insts[inst] {
        InstructionData::UnaryImm {
            opcode: Opcode::Iconst,
            imm,
        } => Some(trunc(imm.bits() as u64, bits)),
        InstructionData::Binary { opcode, args } => {
            let a = scalar(dfg, args[0], d)?;
            let b = scalar(dfg, args[1], d)?;
            binary(opcode, a, b, bits)
        }
        InstructionData::Unary { opcode, arg } => {
            let from = dfg.value_type(arg).bits();
            let a = scalar(dfg, arg, d)?;
            match opcode {
                Opcode::Uextend | Opcode::Ireduce => Some(trunc(a, bits.min(from))),
                Opcode::Sextend => Some(trunc(signed(a, from) as u64, bits)),
                Opcode::Bnot => Some(trunc(!a, bits)),
                Opcode::Ineg => Some(trunc(a.wrapping_neg(), bits)),
                _ => None,
            }
        }
        InstructionData::IntCompare {
            opcode: Opcode::Icmp,
            args,
            cond,
        } => {
            let w = dfg.value_type(args[0]).bits();
            let (a, b) = (scalar(dfg, args[0], d)?, scalar(dfg, args[1], d)?);
            Some(u64::from(compare(cond, a, b, w)))
        }
        InstructionData::Ternary {
            opcode: Opcode::Select,
            args,
        } => {
            let c = scalar(dfg, args[0], d)?;
            scalar(dfg, if c != 0 { args[1] } else { args[2] }, d)
        }
        InstructionData::BinaryImm8 {
            opcode: Opcode::Extractlane,
            arg,
            imm,
        } => lane(dfg, arg, u32::from(imm), d),
        _ => None,
    }
}

/// Lane `l` of integer vector `v` if it follows from constants.
fn lane(dfg: &DataFlowGraph, v: Value, l: u32, depth: u32) -> Option<u64> {
    let ty = dfg.value_type(v);
    if !ty.is_vector() || !ty.lane_type().is_int() || l >= ty.lane_count() || depth == 0 {
        return None;
    }
    let bits = ty.lane_bits();
    let inst = dfg.value_def(v).inst()?;
    let d = depth - 1;
    match dfg.insts[inst] {
        InstructionData::UnaryConst {
            opcode: Opcode::Vconst,
            constant_handle,
        } => {
            let bytes = dfg.constants.get(constant_handle).as_slice();
            let n = (bits / 8) as usize;
            let at = l as usize * n;
            let b = bytes.get(at..at + n)?;
            Some(b.iter().rev().fold(0u64, |x, y| (x << 8) | u64::from(*y)))
        }
        InstructionData::Unary {
            opcode: Opcode::Splat,
            arg,
        } => scalar(dfg, arg, d).map(|x| trunc(x, bits)),
        InstructionData::TernaryImm8 {
            opcode: Opcode::Insertlane,
            args,
            imm,
        } => {
            if u32::from(imm) == l {
                scalar(dfg, args[1], d).map(|x| trunc(x, bits))
            } else {
                lane(dfg, args[0], l, d)
            }
        }
        InstructionData::Binary { opcode, args } => {
            let a = lane(dfg, args[0], l, d)?;
            // A vector shift's amount is a scalar.
            let b = match opcode {
                Opcode::Ishl | Opcode::Ushr | Opcode::Sshr => scalar(dfg, args[1], d)?,
                _ => lane(dfg, args[1], l, d)?,
            };
            binary(opcode, a, b, bits)
        }
        InstructionData::Unary {
            opcode: Opcode::Bnot,
            arg,
        } => lane(dfg, arg, l, d).map(|x| trunc(!x, bits)),
        _ => None,
    }
}
