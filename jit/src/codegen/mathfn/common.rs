//! OpenCL C's common functions that are a few IEEE operations (6.15.4: `step`, `smoothstep`,
//! `sign`, `mix`, `degrees`, `radians`), `round` (half away from zero) and the math functions
//! that compare or step (6.15.2: `fdim`, `maxmag`, `minmag`, `nextafter`, exact), for one
//! value (`F32`, `F64`) or lanes (`F32X4`, `F64X2`) with the same operations, so that the
//! scalar translation, the scalar path's vector registers and the vector loop give the same
//! bits. Halves are not among them: computed in single precision and rounded back, `fdim`
//! would round twice and `nextafter` step by a float's ulp.

use super::fraction::{copysign, konst};
use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Value};
use cranelift_frontend::FunctionBuilder;

/// The functions this module generates (by their OpenCL.std name).
pub fn known(base: &str) -> bool {
    matches!(
        base,
        "step" | "smoothstep" | "sign" | "mix" | "degrees" | "radians" | "round"
    ) || exact(base)
}

/// The functions of [`known`] with exact results, which halves may not take through floats.
pub fn exact(base: &str) -> bool {
    matches!(base, "fdim" | "maxmag" | "minmag" | "nextafter")
}

/// `base(args)` for operands of one float type (`F32`, `F32X4`, `F64`, `F64X2`); `None` for
/// other functions, types or operand counts.
pub fn emit(b: &mut FunctionBuilder, base: &str, args: &[Value]) -> Option<Value> {
    let x = *args.first()?;
    let t = b.func.dfg.value_type(x);
    if !matches!(
        (t.lane_type(), t.lane_count()),
        (types::F32, 1 | 4) | (types::F64, 1 | 2)
    ) {
        return None;
    }
    if args.iter().any(|a| b.func.dfg.value_type(*a) != t) {
        return None;
    }
    let k = |b: &mut FunctionBuilder, c: f64| konst(b, t, c);
    Some(match (base, args) {
        // step(edge, x): 0 if x < edge, else 1.
        ("step", [edge, x]) => {
            let (z, o) = (k(b, 0.0), k(b, 1.0));
            let c = b.ins().fcmp(FloatCC::LessThan, *x, *edge);
            super::pick(b, c, z, o)
        }
        // t = clamp((x - edge0) / (edge1 - edge0), 0, 1); t * t * (3 - 2 * t)
        ("smoothstep", [e0, e1, v]) => {
            let num = b.ins().fsub(*v, *e0);
            let den = b.ins().fsub(*e1, *e0);
            let q = b.ins().fdiv(num, den);
            let (z, o) = (k(b, 0.0), k(b, 1.0));
            let q = b.ins().fmax(q, z);
            let q = b.ins().fmin(q, o);
            let (two, three) = (k(b, 2.0), k(b, 3.0));
            let tq = b.ins().fmul(two, q);
            let s = b.ins().fsub(three, tq);
            let qq = b.ins().fmul(q, q);
            let r = b.ins().fmul(qq, s);
            // 0 for x <= edge0 and 1 for x >= edge1 even where the quotient is not a number
            // (an infinite edge or x).
            let lo = b.ins().fcmp(FloatCC::LessThanOrEqual, *v, *e0);
            let hi = b.ins().fcmp(FloatCC::GreaterThanOrEqual, *v, *e1);
            let r = super::pick(b, lo, z, r);
            super::pick(b, hi, o, r)
        }
        // 1 with the sign of x; a zero stays that zero; NaN gives 0.
        ("sign", [x]) => {
            let (z, o) = (k(b, 0.0), k(b, 1.0));
            let so = copysign(b, o, *x);
            let zs = copysign(b, z, *x);
            let is_zero = b.ins().fcmp(FloatCC::Equal, *x, z);
            let r = super::pick(b, is_zero, zs, so);
            let nan = b.ins().fcmp(FloatCC::Unordered, *x, *x);
            super::pick(b, nan, z, r)
        }
        ("mix", [x, y, a]) => {
            let d = b.ins().fsub(*y, *x);
            let m = b.ins().fmul(d, *a);
            b.ins().fadd(*x, m)
        }
        ("degrees", [x]) => {
            let c = k(b, 180.0 / std::f64::consts::PI);
            b.ins().fmul(*x, c)
        }
        ("radians", [x]) => {
            let c = k(b, std::f64::consts::PI / 180.0);
            b.ins().fmul(*x, c)
        }
        // Half-way cases away from zero: trunc(x), plus 1 with x's sign where the fraction
        // is at least one half.
        ("round", [x]) => {
            let tr = b.ins().trunc(*x);
            let d = b.ins().fsub(*x, tr);
            let ad = b.ins().fabs(d);
            let (half, one) = (k(b, 0.5), k(b, 1.0));
            let s = copysign(b, one, *x);
            let up = b.ins().fadd(tr, s);
            let c = b.ins().fcmp(FloatCC::GreaterThanOrEqual, ad, half);
            super::pick(b, c, up, tr)
        }
        // x - y where x > y, +0 where not, NaN where either is (their sum).
        ("fdim", [x, y]) => {
            let d = b.ins().fsub(*x, *y);
            let z = k(b, 0.0);
            let gt = b.ins().fcmp(FloatCC::GreaterThan, *x, *y);
            let r = super::pick(b, gt, d, z);
            let sum = b.ins().fadd(*x, *y);
            let nan = b.ins().fcmp(FloatCC::Unordered, *x, *y);
            super::pick(b, nan, sum, r)
        }
        // The operand of the larger (smaller) magnitude; where the magnitudes are equal (or
        // one is NaN) fmax (fmin): the non-NaN operand, and of two equal magnitudes the bits
        // both have in common (max: +0 over -0, the positive of x and -x) or either has (min).
        ("maxmag" | "minmag", [x, y]) => {
            let max = base == "maxmag";
            let (ax, ay) = (b.ins().fabs(*x), b.ins().fabs(*y));
            let cc = if max { FloatCC::GreaterThan } else { FloatCC::LessThan };
            let it = t.as_int();
            let (xb, yb) = (
                b.ins().bitcast(it, MemFlagsData::new(), *x),
                b.ins().bitcast(it, MemFlagsData::new(), *y),
            );
            let tie = if max { b.ins().band(xb, yb) } else { b.ins().bor(xb, yb) };
            let tie = b.ins().bitcast(t, MemFlagsData::new(), tie);
            let y_nan = b.ins().fcmp(FloatCC::Unordered, *y, *y);
            let r = super::pick(b, y_nan, *x, tie);
            let x_nan = b.ins().fcmp(FloatCC::Unordered, *x, *x);
            let r = super::pick(b, x_nan, *y, r);
            let y_wins = b.ins().fcmp(cc, ay, ax);
            let r = super::pick(b, y_wins, *y, r);
            let x_wins = b.ins().fcmp(cc, ax, ay);
            super::pick(b, x_wins, *x, r)
        }
        // The next representable value after x towards y: x's bits plus one where that moves
        // away from zero (y beyond x on x's side), minus one where towards it; from a zero the
        // smallest subnormal with y's sign; y where x == y; NaN where either is (their sum).
        ("nextafter", [x, y]) => {
            let it = t.as_int();
            let xb = b.ins().bitcast(it, MemFlagsData::new(), *x);
            let yb = b.ins().bitcast(it, MemFlagsData::new(), *y);
            let z = k(b, 0.0);
            let toward_y_up = b.ins().fcmp(FloatCC::GreaterThan, *y, *x);
            let negative = b.ins().fcmp(FloatCC::LessThan, *x, z);
            let away = b.ins().bxor(toward_y_up, negative);
            let (one, minus_one) = (super::ik(b, it, 1), super::ik(b, it, -1));
            let step = super::pick(b, away, one, minus_one);
            let stepped = b.ins().iadd(xb, step);
            let sign_mask = super::ik(b, it, i64::MIN >> (64 - it.lane_bits()));
            let ys = b.ins().band(yb, sign_mask);
            let tiny = b.ins().bor(ys, one);
            let is_zero = b.ins().fcmp(FloatCC::Equal, *x, z);
            let r = super::pick(b, is_zero, tiny, stepped);
            let r = b.ins().bitcast(t, MemFlagsData::new(), r);
            let eq = b.ins().fcmp(FloatCC::Equal, *x, *y);
            let r = super::pick(b, eq, *y, r);
            let sum = b.ins().fadd(*x, *y);
            let nan = b.ins().fcmp(FloatCC::Unordered, *x, *y);
            super::pick(b, nan, sum, r)
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtins::{double as d, float as f};
    use crate::codegen::test_jit::functions;
    use cranelift_codegen::ir::Type;

    const NAMES: [&str; 4] = ["fdim", "maxmag", "minmag", "nextafter"];
    const SHAPES: [Type; 4] = [types::F32, types::F32X4, types::F64, types::F64X2];

    /// Floats: zeros, infinities, NaNs (quiet, with payloads, signed), the extremes and their
    /// neighbours, subnormals, values equal in magnitude, and random bits.
    fn floats() -> Vec<f32> {
        let mut v = vec![
            0.0f32,
            -0.0,
            1.0,
            -1.0,
            1.5,
            -1.5,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            f32::from_bits(0xffc0_1234),
            f32::MAX,
            -f32::MAX,
            f32::MIN_POSITIVE,
            -f32::MIN_POSITIVE,
            f32::from_bits(1),
            f32::from_bits(0x8000_0001),
            f32::from_bits(0x007f_ffff),
            0.1,
            -7.25e-30,
            3.0e38,
        ];
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..40 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            v.push(f32::from_bits(s as u32));
        }
        v
    }

    fn same(a: u64, b: u64, nan_a: bool, nan_b: bool) -> bool {
        a == b || (nan_a && nan_b)
    }

    #[test]
    fn compare_and_step_functions_match_the_library() {
        let (_jit, fs) = functions(&[], NAMES.len() * SHAPES.len(), |i, _, b, src| {
            let t = SHAPES[i % 4];
            let x = b.ins().load(t, MemFlagsData::new(), src, 0);
            let y = b.ins().load(t, MemFlagsData::new(), src, 16);
            emit(b, NAMES[i / 4], &[x, y]).unwrap()
        });
        let f32s = floats();
        let f64s: Vec<f64> = f32s
            .iter()
            .map(|v| *v as f64 * 1.0e-300)
            .chain(f32s.iter().map(|v| *v as f64))
            .chain([
                f64::from_bits(1),
                f64::MAX,
                f64::MIN_POSITIVE,
                -f64::from_bits(0x000f_ffff_ffff_ffff),
            ])
            .collect();
        let lib32: [extern "C" fn(f32, f32) -> f32; 4] = [
            f::clift_fdim_f32,
            f::clift_maxmag_f32,
            f::clift_minmag_f32,
            f::clift_nextafter_f32,
        ];
        let lib64: [extern "C" fn(f64, f64) -> f64; 4] = [
            d::clift_fdim_f64,
            d::clift_maxmag_f64,
            d::clift_minmag_f64,
            d::clift_nextafter_f64,
        ];
        for (k, name) in NAMES.iter().enumerate() {
            for x in &f32s {
                for y4 in f32s.chunks(4) {
                    let mut src = [0f32; 8];
                    let mut four = [0f32; 4];
                    for (l, y) in y4.iter().enumerate() {
                        let want = lib32[k](*x, *y);
                        let mut one = [*x, 0.0, 0.0, 0.0, *y, 0.0, 0.0, 0.0];
                        let mut got = 0f32;
                        fs[4 * k](one.as_mut_ptr() as *const u8, &mut got as *mut f32 as *mut u8);
                        let ok = same(got.to_bits() as u64, want.to_bits() as u64, got.is_nan(), want.is_nan());
                        assert!(
                            ok,
                            "{name}({x:e}, {y:e}) = {got:e} ({:#x}), want {want:e}",
                            got.to_bits()
                        );
                        src[l] = *x;
                        src[4 + l] = *y;
                        four[l] = got;
                    }
                    let mut got4 = [0f32; 4];
                    fs[4 * k + 1](src.as_ptr() as *const u8, got4.as_mut_ptr() as *mut u8);
                    for l in 0..y4.len() {
                        assert_eq!(
                            got4[l].to_bits(),
                            four[l].to_bits(),
                            "four lanes: {name}({x:e}, {:e})",
                            y4[l]
                        );
                    }
                }
            }
            for x in &f64s {
                for y2 in f64s.chunks(2) {
                    let mut src = [0f64; 4];
                    let mut two = [0f64; 2];
                    for (l, y) in y2.iter().enumerate() {
                        let want = lib64[k](*x, *y);
                        let one = [*x, 0.0, *y, 0.0];
                        let mut got = 0f64;
                        fs[4 * k + 2](one.as_ptr() as *const u8, &mut got as *mut f64 as *mut u8);
                        let ok = same(got.to_bits(), want.to_bits(), got.is_nan(), want.is_nan());
                        assert!(ok, "{name}({x:e}, {y:e}) = {got:e}, want {want:e}");
                        src[l] = *x;
                        src[2 + l] = *y;
                        two[l] = got;
                    }
                    let mut got2 = [0f64; 2];
                    fs[4 * k + 3](src.as_ptr() as *const u8, got2.as_mut_ptr() as *mut u8);
                    for l in 0..y2.len() {
                        assert_eq!(
                            got2[l].to_bits(),
                            two[l].to_bits(),
                            "two lanes: {name}({x:e}, {:e})",
                            y2[l]
                        );
                    }
                }
            }
        }
    }
}
