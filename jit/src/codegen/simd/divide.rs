//! Four 32-bit lanes divided by a constant (speed of real kernels: `i / width`, `i % 13`) or
//! by a value of their own ([`by_variable`], through doubles): x86 has no vector division,
//! so each lane went through the scalar unit. A multiplication
//! by the divisor's reciprocal, as a high product of four lanes, and shifts give the quotient
//! of all four at once (Granlund and Montgomery, "Division by invariant integers using
//! multiplication", 1994: figure 4.1 unsigned, 5.2 signed), the remainder `x - q * d`. The
//! result is the scalar translation's for every input: rounding toward zero, and for a signed
//! `i32::MIN / -1` the wrapped `i32::MIN` (remainder 0).

use super::super::vector::vflags;
use cranelift_codegen::ir::{types, ConstantData, InstBuilder, Value};
use cranelift_frontend::FunctionBuilder;
use rspirv::spirv::Op;

/// The high 32 bits of each lane's 64-bit product of four 32-bit lanes (signed or not):
/// the lanes widened in two halves, multiplied as 64-bit pairs (`pmuldq`/`pmuludq`), and the
/// high halves of the four products gathered.
pub(super) fn mul_hi(b: &mut FunctionBuilder, x: Value, y: Value, signed: bool) -> Value {
    let products = [false, true].map(|high| {
        let (a, c) = match (signed, high) {
            (true, false) => (b.ins().swiden_low(x), b.ins().swiden_low(y)),
            (true, true) => (b.ins().swiden_high(x), b.ins().swiden_high(y)),
            (false, false) => (b.ins().uwiden_low(x), b.ins().uwiden_low(y)),
            (false, true) => (b.ins().uwiden_high(x), b.ins().uwiden_high(y)),
        };
        let m = b.ins().imul(a, c);
        b.ins().bitcast(types::I32X4, vflags(), m)
    });
    // Lanes 1 and 3 of each: the high halves of products 0-1 and 2-3.
    let le = vflags();
    let (p, q) = (
        b.ins().bitcast(types::I8X16, le, products[0]),
        b.ins().bitcast(types::I8X16, le, products[1]),
    );
    let bytes: Vec<u8> = [1u8, 3, 5, 7]
        .iter()
        .flat_map(|l| (0..4).map(move |k| 4 * l + k))
        .collect();
    let mask = b.func.dfg.immediates.push(ConstantData::from(bytes));
    let v = b.ins().shuffle(p, q, mask);
    b.ins().bitcast(types::I32X4, le, v)
}

fn splat(b: &mut FunctionBuilder, c: u32) -> Value {
    let k = b.ins().iconst(types::I32, i64::from(c));
    b.ins().splat(types::I32X4, k)
}

/// `ceil(log2(d))` for `d >= 1`.
fn ceil_log2(d: u32) -> u32 {
    32 - (d - 1).leading_zeros()
}

/// `x op d` for `op` one of `UDiv`, `UMod`, `SDiv`, `SRem` on four lanes (`I32X4`) and a
/// nonzero constant `d` (its bits; signed for `SDiv`/`SRem`); `None` for other operations
/// and for `d == 0`.
pub(super) fn by_constant(b: &mut FunctionBuilder, op: Op, x: Value, d: u32) -> Option<Value> {
    if d == 0 {
        return None;
    }
    let q = match op {
        Op::UDiv | Op::UMod if d.is_power_of_two() => b.ins().ushr_imm_u(x, i64::from(d.trailing_zeros())),
        Op::UDiv | Op::UMod => {
            // l = ceil(log2 d) >= 2; m = floor(2^32 (2^l - d) / d) + 1 < 2^32;
            // q = (t + ((x - t) >> 1)) >> (l - 1) with t = mulhi(m, x).
            let l = ceil_log2(d);
            let m = ((1u64 << 32) * ((1u64 << l) - u64::from(d)) / u64::from(d) + 1) as u32;
            let mk = splat(b, m);
            let t = mul_hi(b, x, mk, false);
            let diff = b.ins().isub(x, t);
            let half = b.ins().ushr_imm_u(diff, 1);
            let sum = b.ins().iadd(t, half);
            b.ins().ushr_imm_u(sum, i64::from(l - 1))
        }
        Op::SDiv | Op::SRem => {
            // l = max(ceil(log2 |d|), 1); m = 1 + floor(2^(31 + l) / |d|), used as m - 2^32;
            // q0 = ((x + mulhs(m - 2^32, x)) >> (l - 1)) - (x >> 31); q = d < 0 ? -q0 : q0.
            let ad = (d as i32).unsigned_abs();
            let l = ceil_log2(ad).max(1);
            let m = 1 + (1u64 << (31 + l)) / u64::from(ad);
            let mk = splat(b, m.wrapping_sub(1 << 32) as u32);
            let h = mul_hi(b, x, mk, true);
            let q0 = b.ins().iadd(x, h);
            let q0 = b.ins().sshr_imm_u(q0, i64::from(l - 1));
            let sign = b.ins().sshr_imm_u(x, 31);
            let q0 = b.ins().isub(q0, sign);
            if (d as i32) < 0 {
                b.ins().ineg(q0)
            } else {
                q0
            }
        }
        _ => return None,
    };
    Some(match op {
        Op::UMod | Op::SRem => {
            let dk = splat(b, d);
            let p = b.ins().imul(q, dk);
            b.ins().isub(x, p)
        }
        _ => q,
    })
}

/// Lanes `lanes` (0-3: `a`, 4-7: `c`) of two 32-bit four-lane vectors.
fn lanes32(b: &mut FunctionBuilder, a: Value, c: Value, lanes: [u8; 4]) -> Value {
    let le = vflags();
    let (p, q) = (
        b.ins().bitcast(types::I8X16, le, a),
        b.ins().bitcast(types::I8X16, le, c),
    );
    let bytes: Vec<u8> = lanes.iter().flat_map(|l| (0..4).map(move |k| 4 * l + k)).collect();
    let mask = b.func.dfg.immediates.push(ConstantData::from(bytes));
    let v = b.ins().shuffle(p, q, mask);
    b.ins().bitcast(types::I32X4, le, v)
}

/// `x op d` for `op` one of `UDiv`, `UMod`, `SDiv`, `SRem` on four lanes (`I32X4`) of a
/// divisor of any value, bit for bit the scalar translation's: a divisor of 0, and of -1
/// under a signed `i32::MIN`, is taken as 1 (`FnTx::safe_divisor`). Two lanes at a time, the
/// quotient of the operands as doubles truncated: exact for 32-bit operands (a quotient just
/// below an integer k is at least 1/|x| >= 2^-32 of k below it, far more than a double's
/// rounding of 2^-53), and read back through the bits of `q + 1.5 * 2^52`, whose low 32 bits
/// are `q` (x86 has no vector conversion of doubles to 64-bit integers below AVX-512).
pub(super) fn by_variable(b: &mut FunctionBuilder, op: Op, x: Value, d: Value) -> Option<Value> {
    let signed = match op {
        Op::SDiv | Op::SRem => true,
        Op::UDiv | Op::UMod => false,
        _ => return None,
    };
    let (zero, one) = (splat(b, 0), splat(b, 1));
    let mut bad = b.ins().icmp(cranelift_codegen::ir::condcodes::IntCC::Equal, d, zero);
    if signed {
        use cranelift_codegen::ir::condcodes::IntCC;
        let (min, minus_one) = (splat(b, 0x8000_0000), splat(b, u32::MAX));
        let xm = b.ins().icmp(IntCC::Equal, x, min);
        let dm = b.ins().icmp(IntCC::Equal, d, minus_one);
        let both = b.ins().band(xm, dm);
        bad = b.ins().bor(bad, both);
    }
    let d = b.ins().bitselect(bad, one, d);
    let two32 = b.ins().f64const(4_294_967_296.0);
    let two32 = b.ins().splat(types::F64X2, two32);
    let fzero = b.ins().f64const(0.0);
    let fzero = b.ins().splat(types::F64X2, fzero);
    let magic = b.ins().f64const(6_755_399_441_055_744.0);
    let magic = b.ins().splat(types::F64X2, magic);
    let as_double = |b: &mut FunctionBuilder, v: Value| {
        // (x64 lowers this pair to one `cvtdq2pd`.)
        let w = b.ins().swiden_low(v);
        let f = b.ins().fcvt_from_sint(types::F64X2, w);
        if signed {
            return f;
        }
        // Lanes with the top bit set are 2^32 more as unsigned.
        let neg = b
            .ins()
            .fcmp(cranelift_codegen::ir::condcodes::FloatCC::LessThan, f, fzero);
        let neg = b.ins().bitcast(types::F64X2, vflags(), neg);
        let add = b.ins().band(neg, two32);
        b.ins().fadd(f, add)
    };
    let halves = [0, 1].map(|h| {
        let (xh, dh) = if h == 0 {
            (x, d)
        } else {
            (lanes32(b, x, x, [2, 3, 2, 3]), lanes32(b, d, d, [2, 3, 2, 3]))
        };
        let (xf, df) = (as_double(b, xh), as_double(b, dh));
        let q = b.ins().fdiv(xf, df);
        let q = b.ins().trunc(q);
        let q = b.ins().fadd(q, magic);
        b.ins().bitcast(types::I32X4, vflags(), q)
    });
    let q = lanes32(b, halves[0], halves[1], [0, 2, 4, 6]);
    Some(match op {
        Op::UMod | Op::SRem => {
            let p = b.ins().imul(q, d);
            b.ins().isub(x, p)
        }
        _ => q,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codegen::test_jit::functions;
    use cranelift_codegen::ir::MemFlagsData;

    /// Against the host's division (wrapping for `i32::MIN / -1`) for divisors of every size
    /// and sign and dividends at the extremes and in between.
    #[test]
    fn quotients_and_remainders_match_the_host() {
        let mut ds: Vec<u32> = vec![1, 2, 3, 5, 6, 7, 10, 13, 25, 100, 641, 1000, 65535, 65536, 65537];
        ds.extend([
            0x7fff_ffff,
            0x8000_0000,
            0x8000_0001,
            0xffff_fffe,
            0xffff_ffff,
            0x9e37_79b9,
            12345678,
        ]);
        ds.extend(ds.clone().iter().map(|d| d.wrapping_neg()));
        let ops = [Op::UDiv, Op::UMod, Op::SDiv, Op::SRem];
        let cases: Vec<(Op, u32)> = ds.iter().flat_map(|d| ops.map(|op| (op, *d))).collect();
        let (_jit, f) = functions(&[], cases.len(), |k, _, b, src| {
            let x = b.ins().load(types::I32X4, MemFlagsData::new(), src, 0);
            by_constant(b, cases[k].0, x, cases[k].1).unwrap()
        });
        let mut xs: Vec<u32> = vec![
            0,
            1,
            2,
            3,
            0x7fff_ffff,
            0x8000_0000,
            0x8000_0001,
            0xffff_ffff,
            0xffff_fffe,
        ];
        let mut s = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..400 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            xs.push((s >> (s % 29)) as u32);
        }
        for (k, (op, d)) in cases.iter().enumerate() {
            for chunk in xs.chunks(4) {
                let mut src = [0u32; 4];
                src[..chunk.len()].copy_from_slice(chunk);
                let mut got = [0u32; 4];
                f[k](src.as_ptr() as *const u8, got.as_mut_ptr() as *mut u8);
                for l in 0..chunk.len() {
                    let (x, di) = (src[l] as i32, *d as i32);
                    let want = match op {
                        Op::UDiv => src[l] / d,
                        Op::UMod => src[l] % d,
                        Op::SDiv => x.wrapping_div(di) as u32,
                        _ => x.wrapping_rem(di) as u32,
                    };
                    assert_eq!(got[l], want, "{op:?} {:#x} by {d:#x}", src[l]);
                }
            }
        }
    }

    /// `by_variable` against the host's division with the scalar translation's divisor rule
    /// (0, and -1 under a signed `i32::MIN`, taken as 1), every dividend against every
    /// divisor of a list of extremes and random values, each lane its own pair.
    #[test]
    fn variable_divisors_match_the_host() {
        let ops = [Op::UDiv, Op::UMod, Op::SDiv, Op::SRem];
        let (_jit, f) = functions(&[], ops.len(), |k, _, b, src| {
            let x = b.ins().load(types::I32X4, MemFlagsData::new(), src, 0);
            let d = b.ins().load(types::I32X4, MemFlagsData::new(), src, 16);
            by_variable(b, ops[k], x, d).unwrap()
        });
        let vs = crate::codegen::test_jit::u32_values(
            &[
                0,
                1,
                2,
                3,
                7,
                0x7fff_ffff,
                0x7fff_fffe,
                0x8000_0000,
                0x8000_0001,
                0xffff_ffff,
                0xffff_fffe,
                0xffff_fff9,
                65536,
                0x0001_0001,
            ],
            120,
            0x9e37_79b9_7f4a_7c15,
        );
        for (k, op) in ops.iter().enumerate() {
            crate::codegen::test_jit::each_pair_in_four_lanes(f[k], &vs, |x, d, got| {
                let (xi, di) = (x as i32, d as i32);
                let signed_bad = di == 0 || (xi == i32::MIN && di == -1);
                let want = match op {
                    Op::UDiv => x / d.max(1),
                    Op::UMod => x % d.max(1),
                    Op::SDiv => xi.wrapping_div(if signed_bad { 1 } else { di }) as u32,
                    _ => xi.wrapping_rem(if signed_bad { 1 } else { di }) as u32,
                };
                assert_eq!(got, want, "{op:?} {x:#x} by {d:#x}");
            });
        }
    }
}
