//! OpenCL.std geometric functions (`cross`, `length`, `distance`, `normalize` and their `fast_`
//! forms), `shuffle`/`shuffle2` and the saturating integer helpers.
//!
//! Float and half vectors are computed in double precision: the sum of squares of floats can
//! neither overflow nor underflow there, so `length` and `normalize` are accurate to about half
//! an ulp after the final rounding. Doubles are scaled by a power of two (exact) chosen from the
//! largest magnitude, so that no square overflows and the largest one stays normal. Scaling
//! down can push the small components of a `normalize` into the subnormals, where they lose
//! bits; there each component is divided by the scaled length first and scaled after, so that
//! a subnormal result is rounded once from a value accurate to double precision.

use super::layout::Scalar;
use super::state::{FnTx, R};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types, InstBuilder, Value};

const BIG: f64 = 3.273_390_607_896_142e150; // 2^500
const SMALL: f64 = 3.054_936_363_499_605e-151; // 2^-500
/// The power of two that scales magnitudes above BIG down (and, negated, those below SMALL up).
const SCALE_EXP: i32 = 600;

fn pow2(e: i32) -> f64 {
    f64::from_bits(((1023 + e) as u64) << 52)
}

impl FnTx<'_, '_, '_> {
    /// A float/half/double component as the working f64 value.
    fn geo_promote(&mut self, v: Value, s: Scalar) -> R<Value> {
        Ok(match s {
            Scalar::Float(64) => v,
            Scalar::Float(16) => {
                let f = self.widen_half(v, s)?;
                self.b.ins().fpromote(types::F64, f)
            }
            _ => self.b.ins().fpromote(types::F64, v),
        })
    }

    /// The working f64 value rounded back to the component type.
    fn geo_demote(&mut self, v: Value, s: Scalar) -> R<Value> {
        Ok(match s {
            Scalar::Float(64) => v,
            // Rounded once (through f32 it would be rounded twice).
            Scalar::Float(16) => self.float_to_float(v, Scalar::Float(64), s, super::helpers::RTE)?,
            _ => self.b.ins().fdemote(types::F32, v),
        })
    }

    /// `(scaled components, sum of their squares, unscale factor, scaled-down flag)`: for
    /// doubles the components are multiplied by a power of two that keeps the squares in range
    /// (the flag is set where that power is below one); floats (already in f64) are left as
    /// they are, and have no flag.
    fn scaled_squares(&mut self, xs: &[Value], s: Scalar) -> (Vec<Value>, Value, Value, Option<Value>) {
        let one = self.b.ins().f64const(1.0);
        let (qs, unscale, down_flag) = if s == Scalar::Float(64) {
            let mut m = self.b.ins().fabs(xs[0]);
            for x in &xs[1..] {
                let a = self.b.ins().fabs(*x);
                m = self.b.ins().fmax(m, a);
            }
            let bigc = self.b.ins().f64const(BIG);
            let smallc = self.b.ins().f64const(SMALL);
            let big = self.b.ins().fcmp(FloatCC::GreaterThan, m, bigc);
            let small = self.b.ins().fcmp(FloatCC::LessThan, m, smallc);
            let down = self.b.ins().f64const(pow2(-SCALE_EXP));
            let up = self.b.ins().f64const(pow2(SCALE_EXP));
            let s1 = self.b.ins().select(small, up, one);
            let scale = self.b.ins().select(big, down, s1);
            let u1 = self.b.ins().select(small, down, one);
            let unscale = self.b.ins().select(big, up, u1);
            let qs = xs.iter().map(|x| self.b.ins().fmul(*x, scale)).collect();
            (qs, unscale, Some(big))
        } else {
            (xs.to_vec(), one, None)
        };
        let mut sum = self.b.ins().fmul(qs[0], qs[0]);
        for q in &qs[1..] {
            sum = self.b.ins().fma(*q, *q, sum);
        }
        (qs, sum, unscale, down_flag)
    }

    fn geo_length(&mut self, xs: &[Value], s: Scalar) -> Value {
        let (_, sum, unscale, _) = self.scaled_squares(xs, s);
        let r = self.b.ins().sqrt(sum);
        self.b.ins().fmul(r, unscale)
    }

    /// `normalize` with the section 6.7 special cases (zero vector, NaN, infinities).
    fn geo_normalize(&mut self, xs: &[Value], s: Scalar) -> Vec<Value> {
        let inf = self.b.ins().f64const(f64::INFINITY);
        let mut any_inf: Option<Value> = None;
        let mut is_inf = Vec::new();
        for x in xs {
            let a = self.b.ins().fabs(*x);
            let c = self.b.ins().fcmp(FloatCC::Equal, a, inf);
            is_inf.push(c);
            any_inf = Some(match any_inf {
                Some(p) => self.b.ins().bor(p, c),
                None => c,
            });
        }
        let any_inf = any_inf.unwrap_or_else(|| self.b.ins().iconst(types::I8, 0));
        let one = self.b.ins().f64const(1.0);
        let zero = self.b.ins().f64const(0.0);
        let fixed: Vec<Value> = xs
            .iter()
            .zip(&is_inf)
            .map(|(x, c)| {
                let sgn = self.b.ins().fcopysign(one, *x);
                let z = self.b.ins().fmul(zero, *x);
                let rep = self.b.ins().select(*c, sgn, z);
                self.b.ins().select(any_inf, rep, *x)
            })
            .collect();
        let (qs, sum, _, down) = self.scaled_squares(&fixed, s);
        let l = self.b.ins().sqrt(sum);
        let all_zero = self.b.ins().fcmp(FloatCC::Equal, sum, zero);
        qs.iter()
            .zip(&fixed)
            .zip(xs)
            .map(|((q, f), x)| {
                let mut r = self.b.ins().fdiv(*q, l);
                if let Some(down) = down {
                    // Scaled down: x / l_scaled is at most 2^600 and exact to double
                    // precision; the power of two then rounds it once into the subnormals.
                    let unscaled = self.b.ins().fdiv(*f, l);
                    let post = self.b.ins().f64const(pow2(-SCALE_EXP));
                    let late = self.b.ins().fmul(unscaled, post);
                    r = self.b.ins().select(down, late, r);
                }
                self.b.ins().select(all_zero, *x, r)
            })
            .collect()
    }

    /// `a*b - c*d` in f64 (Kahan's algorithm with fma: about one ulp). Where a product
    /// overflows, Kahan's correction term is infinite and the sum NaN; there the plain
    /// `a*b - c*d` is the right answer (an infinity, or NaN for infinity minus infinity).
    fn diff_of_products(&mut self, a: Value, b: Value, c: Value, d: Value) -> Value {
        let w = self.b.ins().fmul(c, d);
        let nc = self.b.ins().fneg(c);
        let e = self.b.ins().fma(nc, d, w);
        let nw = self.b.ins().fneg(w);
        let f = self.b.ins().fma(a, b, nw);
        let kahan = self.b.ins().fadd(f, e);
        let p = self.b.ins().fmul(a, b);
        let plain = self.b.ins().fsub(p, w);
        let nan = self.b.ins().fcmp(FloatCC::Unordered, kahan, kahan);
        self.b.ins().select(nan, plain, kahan)
    }

    /// The geometric functions; `args` holds each operand's components, `s` the component type.
    pub(super) fn geometric(&mut self, name: &str, args: &[Vec<Value>], s: Scalar) -> R<Vec<Value>> {
        let mut ps: Vec<Vec<Value>> = Vec::with_capacity(args.len());
        for a in args {
            let mut v = Vec::with_capacity(a.len());
            for x in a {
                v.push(self.geo_promote(*x, s)?);
            }
            ps.push(v);
        }
        let operand = |k: usize| -> R<&Vec<Value>> {
            ps.get(k)
                .filter(|v| !v.is_empty())
                .ok_or_else(|| super::CompileError::new(format!("OpenCL.std {name}: missing operand")))
        };
        let out: Vec<Value> = match name {
            "length" | "fast_length" => {
                let xs = operand(0)?.clone();
                vec![self.geo_length(&xs, s)]
            }
            "distance" | "fast_distance" => {
                let (a, b) = (operand(0)?.clone(), operand(1)?.clone());
                if a.len() != b.len() {
                    return Err(super::CompileError::new(format!(
                        "OpenCL.std {name}: operand sizes differ"
                    )));
                }
                let d: Vec<Value> = a.iter().zip(&b).map(|(x, y)| self.b.ins().fsub(*x, *y)).collect();
                vec![self.geo_length(&d, s)]
            }
            "normalize" | "fast_normalize" => {
                let xs = operand(0)?.clone();
                self.geo_normalize(&xs, s)
            }
            _ => {
                // cross: 3- or 4-component vectors (the fourth result component is 0).
                let (a, b) = (operand(0)?.clone(), operand(1)?.clone());
                if a.len() < 3 || b.len() < 3 {
                    return Err(super::CompileError::new(
                        "OpenCL.std cross: operands must have 3 or 4 components",
                    ));
                }
                let mut r = Vec::with_capacity(a.len());
                for (i, j) in [(1, 2), (2, 0), (0, 1)] {
                    let v = if s == Scalar::Float(64) {
                        self.diff_of_products(a[i], b[j], a[j], b[i])
                    } else {
                        // Products of floats are exact in f64: one rounding, then one more.
                        let p = self.b.ins().fmul(a[i], b[j]);
                        let q = self.b.ins().fmul(a[j], b[i]);
                        self.b.ins().fsub(p, q)
                    };
                    r.push(v);
                }
                if a.len() == 4 {
                    let z = self.b.ins().f64const(0.0);
                    r.push(z);
                }
                r
            }
        };
        let mut res = Vec::with_capacity(out.len());
        for v in out {
            res.push(self.geo_demote(v, s)?);
        }
        Ok(res)
    }

    /// `shuffle(x, mask)` / `shuffle2(x, y, mask)`: component `i` of the result is component
    /// `mask[i] % size` of `x` (or of the concatenation of `x` and `y`).
    pub(super) fn shuffle(&mut self, srcs: &[Vec<Value>], mask: &[Value]) -> Vec<Value> {
        let pool: Vec<Value> = srcs.iter().flatten().copied().collect();
        let size = pool.len().max(1);
        // The sizes are powers of two (2, 4, 8, 16 per operand); for anything else fall back
        // to a remainder.
        mask.iter()
            .map(|m| {
                let idx = if size.is_power_of_two() {
                    self.b.ins().band_imm_s(*m, (size - 1) as i64)
                } else {
                    let t = self.b.func.dfg.value_type(*m);
                    let d = self.b.ins().iconst(t, size as i64);
                    self.b.ins().urem(*m, d)
                };
                self.dyn_select(&pool, idx)
            })
            .collect()
    }

    /// Saturating `x + y` / `x - y`.
    pub(super) fn sat_addsub(&mut self, x: Value, y: Value, signed: bool, sub: bool) -> Value {
        let t = self.b.func.dfg.value_type(x);
        let w = t.bits();
        if w < 64 {
            let (xe, ye) = if signed {
                (self.b.ins().sextend(types::I64, x), self.b.ins().sextend(types::I64, y))
            } else {
                (self.b.ins().uextend(types::I64, x), self.b.ins().uextend(types::I64, y))
            };
            let r = if sub {
                self.b.ins().isub(xe, ye)
            } else {
                self.b.ins().iadd(xe, ye)
            };
            let (lo, hi) = if signed {
                (-(1i64 << (w - 1)), (1i64 << (w - 1)) - 1)
            } else {
                (0, (1i64 << w) - 1)
            };
            let (lo, hi) = (self.b.ins().iconst(types::I64, lo), self.b.ins().iconst(types::I64, hi));
            let r = self.b.ins().smax(r, lo);
            let r = self.b.ins().smin(r, hi);
            return self.b.ins().ireduce(t, r);
        }
        let r = if sub {
            self.b.ins().isub(x, y)
        } else {
            self.b.ins().iadd(x, y)
        };
        if signed {
            let a = self.b.ins().bxor(x, r);
            let bb = if sub {
                self.b.ins().bxor(x, y)
            } else {
                self.b.ins().bxor(y, r)
            };
            let o = self.b.ins().band(a, bb);
            let ovf = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, o, 0);
            let sx = self.b.ins().sshr_imm_s(x, 63);
            let sat = self.b.ins().bxor_imm_s(sx, i64::MAX);
            self.b.ins().select(ovf, sat, r)
        } else if sub {
            let ovf = self.b.ins().icmp(IntCC::UnsignedLessThan, x, y);
            let z = self.b.ins().iconst(t, 0);
            self.b.ins().select(ovf, z, r)
        } else {
            let ovf = self.b.ins().icmp(IntCC::UnsignedLessThan, r, x);
            let m = self.b.ins().iconst(t, -1);
            self.b.ins().select(ovf, m, r)
        }
    }

    /// Saturating `x * y + z`.
    pub(super) fn mad_sat(&mut self, x: Value, y: Value, z: Value, signed: bool) -> R<Value> {
        let t = self.b.func.dfg.value_type(x);
        let w = t.bits();
        if w == 64 {
            let sg = self.b.ins().iconst(types::I32, signed as i64);
            return Ok(self.call_helper(
                "clift_mad_sat_i64",
                &[types::I64, types::I64, types::I64, types::I32],
                &[types::I64],
                &[x, y, z, sg],
            )?[0]);
        }
        let ext = |b: &mut Self, v: Value| {
            if signed {
                b.b.ins().sextend(types::I64, v)
            } else {
                b.b.ins().uextend(types::I64, v)
            }
        };
        let (xe, ye, ze) = (ext(self, x), ext(self, y), ext(self, z));
        let p = self.b.ins().imul(xe, ye);
        let r = self.b.ins().iadd(p, ze);
        let r = if signed {
            let lo = self.b.ins().iconst(types::I64, -(1i64 << (w - 1)));
            let hi = self.b.ins().iconst(types::I64, (1i64 << (w - 1)) - 1);
            let r = self.b.ins().smax(r, lo);
            self.b.ins().smin(r, hi)
        } else {
            // At most (2^32-1)^2 + 2^32-1 < 2^64: no wrap as unsigned.
            let hi = self.b.ins().iconst(types::I64, ((1u64 << w) - 1) as i64);
            self.b.ins().umin(r, hi)
        };
        Ok(self.b.ins().ireduce(t, r))
    }
}
