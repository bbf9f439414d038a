//! OpenCL C's integer built-ins (6.15.3) that SSE has no one instruction for, on four 32-bit
//! lanes (`I32X4`): `add_sat`, `sub_sat`, `abs`, `abs_diff`, `hadd` and `rhadd`, signed
//! (`s_`) and unsigned (`u_`). Each result is defined exactly, so these are bit for bit the
//! scalar translation's (which widens to 64 bits and clamps):
//! - unsigned saturation: `umin(x, !y) + y` (the sum where it fits, else all ones) and
//!   `umax(x, y) - y`;
//! - signed saturation: the wrapped result, replaced where the operation overflowed (the
//!   result's sign differs from both operands' for a sum, from `x`'s where the operands'
//!   signs differ for a difference) by `INT_MAX` or `INT_MIN` after `x`'s sign;
//! - `abs_diff` is `max - min` (wrapping to the unsigned difference), `abs` `iabs`;
//! - `hadd` is `(x >> 1) + (y >> 1) + (x & y & 1)`, `rhadd` the same with `(x | y) & 1`, the
//!   shifts arithmetic for signed operands: no intermediate overflows.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, Value};
use cranelift_frontend::FunctionBuilder;

/// The functions [`emit`] generates (by their OpenCL.std name).
pub(super) fn known(base: &str) -> bool {
    matches!(
        base,
        "s_add_sat"
            | "u_add_sat"
            | "s_sub_sat"
            | "u_sub_sat"
            | "s_abs"
            | "u_abs"
            | "s_abs_diff"
            | "u_abs_diff"
            | "s_hadd"
            | "u_hadd"
            | "s_rhadd"
            | "u_rhadd"
    )
}

/// The functions [`emit_small`] generates on 8- and 16-bit integers.
pub(super) fn known_small(base: &str) -> bool {
    known(base) || matches!(base, "s_max" | "u_max" | "s_min" | "u_min" | "s_clamp" | "u_clamp")
}

/// `base(args)` on four lanes of `bits`-bit integers (8 or 16) held in the low bits of
/// 32-bit lanes: the operands extended (sign for `s_`, zero for `u_`), the function computed
/// in 32 bits, where nothing overflows, and a saturating result clamped to the type's range.
/// `None` for another function or operand count.
pub(super) fn emit_small(b: &mut FunctionBuilder, base: &str, args: &[Value], bits: u32) -> Option<Value> {
    let signed = base.starts_with("s_");
    let shift = i64::from(32 - bits);
    let x: Vec<Value> = args
        .iter()
        .map(|v| {
            if signed {
                let s = b.ins().iconst(types::I32, shift);
                let up = b.ins().ishl(*v, s);
                b.ins().sshr(up, s)
            } else {
                let m = splat(b, (1i64 << bits) - 1);
                b.ins().band(*v, m)
            }
        })
        .collect();
    let (lo, hi) = if signed {
        (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
    } else {
        (0, (1i64 << bits) - 1)
    };
    let min =
        |b: &mut FunctionBuilder, p: Value, q: Value| if signed { b.ins().smin(p, q) } else { b.ins().umin(p, q) };
    let max =
        |b: &mut FunctionBuilder, p: Value, q: Value| if signed { b.ins().smax(p, q) } else { b.ins().umax(p, q) };
    let name = base.get(2..)?;
    Some(match (name, x.as_slice()) {
        ("add_sat" | "sub_sat", [p, q]) => {
            let r = if name == "add_sat" {
                b.ins().iadd(*p, *q)
            } else {
                b.ins().isub(*p, *q)
            };
            let (l, h) = (splat(b, lo), splat(b, hi));
            let r = b.ins().smax(r, l);
            b.ins().smin(r, h)
        }
        ("abs", [p]) if signed => b.ins().iabs(*p),
        ("abs", [p]) => *p,
        ("abs_diff", [p, q]) => {
            let (m, n) = (max(b, *p, *q), min(b, *p, *q));
            b.ins().isub(m, n)
        }
        ("hadd" | "rhadd", [p, q]) => {
            let mut t = b.ins().iadd(*p, *q);
            if name == "rhadd" {
                let one = splat(b, 1);
                t = b.ins().iadd(t, one);
            }
            let one = b.ins().iconst(types::I32, 1);
            b.ins().sshr(t, one)
        }
        ("max", [p, q]) => max(b, *p, *q),
        ("min", [p, q]) => min(b, *p, *q),
        ("clamp", [v, l, h]) => {
            let m = max(b, *v, *l);
            min(b, m, *h)
        }
        _ => return None,
    })
}

fn splat(b: &mut FunctionBuilder, c: i64) -> Value {
    let k = b.ins().iconst(types::I32, c);
    b.ins().splat(types::I32X4, k)
}

/// `base(args)` on four lanes; `None` for another function or operand count.
pub(super) fn emit(b: &mut FunctionBuilder, base: &str, args: &[Value]) -> Option<Value> {
    Some(match (base, args) {
        ("u_add_sat", [x, y]) => {
            let room = b.ins().bnot(*y);
            let m = b.ins().umin(*x, room);
            b.ins().iadd(m, *y)
        }
        ("u_sub_sat", [x, y]) => {
            let m = b.ins().umax(*x, *y);
            b.ins().isub(m, *y)
        }
        ("s_add_sat" | "s_sub_sat", [x, y]) => {
            let add = base == "s_add_sat";
            let r = if add {
                b.ins().iadd(*x, *y)
            } else {
                b.ins().isub(*x, *y)
            };
            let xr = b.ins().bxor(*x, r);
            let other = if add { b.ins().bxor(*y, r) } else { b.ins().bxor(*x, *y) };
            let o = b.ins().band(xr, other);
            let zero = splat(b, 0);
            let overflow = b.ins().icmp(IntCC::SignedLessThan, o, zero);
            // INT_MAX for a non-negative x, INT_MIN for a negative one.
            let sign = b.ins().sshr_imm_u(*x, 31);
            let max = splat(b, i64::from(i32::MAX));
            let sat = b.ins().bxor(sign, max);
            b.ins().bitselect(overflow, sat, r)
        }
        ("s_abs", [x]) => b.ins().iabs(*x),
        ("u_abs", [x]) => *x,
        ("s_abs_diff", [x, y]) => {
            let (hi, lo) = (b.ins().smax(*x, *y), b.ins().smin(*x, *y));
            b.ins().isub(hi, lo)
        }
        ("u_abs_diff", [x, y]) => {
            let (hi, lo) = (b.ins().umax(*x, *y), b.ins().umin(*x, *y));
            b.ins().isub(hi, lo)
        }
        ("s_hadd" | "u_hadd" | "s_rhadd" | "u_rhadd", [x, y]) => {
            let signed = base.starts_with('s');
            let (hx, hy) = if signed {
                (b.ins().sshr_imm_u(*x, 1), b.ins().sshr_imm_u(*y, 1))
            } else {
                (b.ins().ushr_imm_u(*x, 1), b.ins().ushr_imm_u(*y, 1))
            };
            let low = if base.ends_with("rhadd") {
                b.ins().bor(*x, *y)
            } else {
                b.ins().band(*x, *y)
            };
            let one = splat(b, 1);
            let low = b.ins().band(low, one);
            let s = b.ins().iadd(hx, hy);
            b.ins().iadd(s, low)
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codegen::test_jit::functions;
    use cranelift_codegen::ir::MemFlagsData;

    const NAMES: [&str; 12] = [
        "s_add_sat",
        "u_add_sat",
        "s_sub_sat",
        "u_sub_sat",
        "s_abs",
        "u_abs",
        "s_abs_diff",
        "u_abs_diff",
        "s_hadd",
        "u_hadd",
        "s_rhadd",
        "u_rhadd",
    ];

    /// OpenCL C's definitions in 64-bit host arithmetic.
    fn reference(name: &str, x: u32, y: u32) -> u32 {
        let (sx, sy) = (x as i32 as i64, y as i32 as i64);
        let (ux, uy) = (x as i64, y as i64);
        let sat = |v: i64, lo: i64, hi: i64| v.clamp(lo, hi) as u32;
        let (smin, smax) = (i32::MIN as i64, i32::MAX as i64);
        match name {
            "s_add_sat" => sat(sx + sy, smin, smax),
            "u_add_sat" => sat(ux + uy, 0, u32::MAX as i64),
            "s_sub_sat" => sat(sx - sy, smin, smax),
            "u_sub_sat" => sat(ux - uy, 0, u32::MAX as i64),
            "s_abs" => sx.unsigned_abs() as u32,
            "u_abs" => x,
            "s_abs_diff" => (sx - sy).unsigned_abs() as u32,
            "u_abs_diff" => (ux - uy).unsigned_abs() as u32,
            "s_hadd" => ((sx + sy) >> 1) as u32,
            "u_hadd" => ((ux + uy) >> 1) as u32,
            "s_rhadd" => ((sx + sy + 1) >> 1) as u32,
            _ => ((ux + uy + 1) >> 1) as u32,
        }
    }

    #[test]
    fn four_lanes_match_the_definitions() {
        let (_jit, f) = functions(&[], NAMES.len(), |k, _, b, src| {
            let x = b.ins().load(types::I32X4, MemFlagsData::new(), src, 0);
            let y = b.ins().load(types::I32X4, MemFlagsData::new(), src, 16);
            let args: &[Value] = if NAMES[k].ends_with("_abs") { &[x] } else { &[x, y] };
            emit(b, NAMES[k], args).unwrap()
        });
        let vs = crate::codegen::test_jit::u32_values(
            &[
                0,
                1,
                2,
                3,
                0x7fff_ffff,
                0x7fff_fffe,
                0x8000_0000,
                0x8000_0001,
                0xffff_ffff,
            ],
            60,
            0x2545_f491_4f6c_dd1d,
        );
        for (k, name) in NAMES.iter().enumerate() {
            crate::codegen::test_jit::each_pair_in_four_lanes(f[k], &vs, |x, y, got| {
                assert_eq!(got, reference(name, x, y), "{name}({x:#x}, {y:#x})");
            });
        }
    }
}
