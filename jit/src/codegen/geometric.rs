//! OpenCL.std geometric functions (`cross`, `length`, `distance`, `normalize` and their `fast_`
//! forms: [`mathfn::geometric`] on the components promoted to double precision, but for the
//! `normalize` of floats, and the results rounded back), `shuffle`/`shuffle2` and the saturating integer helpers.
//!
//! [`mathfn::geometric`]: super::mathfn::geometric

use super::layout::Scalar;
use super::state::{FnTx, R};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, Value};

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

    /// The geometric functions; `args` holds each operand's components, `s` the component type.
    pub(super) fn geometric(&mut self, name: &str, args: &[Vec<Value>], s: Scalar) -> R<Vec<Value>> {
        if s == Scalar::Float(32) && super::mathfn::geometric::single(name) {
            return super::mathfn::geometric::emit(&mut self.b, name, args, false)
                .ok_or_else(|| super::CompileError::new(format!("OpenCL.std {name}: missing operands")));
        }
        let mut ps: Vec<Vec<Value>> = Vec::with_capacity(args.len());
        for a in args {
            let mut v = Vec::with_capacity(a.len());
            for x in a {
                v.push(self.geo_promote(*x, s)?);
            }
            ps.push(v);
        }
        let out = super::mathfn::geometric::emit(&mut self.b, name, &ps, s == Scalar::Float(64)).ok_or_else(|| {
            super::CompileError::new(format!(
                "OpenCL.std {name}: missing operands, or operands of the wrong sizes"
            ))
        })?;
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
