//! Vectors of 8- and 16-bit integers in the vector loop (`uchar4`, `short2`, `char16`...):
//! each component is a 32-bit lane of which only the low 8 or 16 bits are the value
//! (`simd::narrow`). Adding, multiplying, bitwise operations and left shifts wrap in the low
//! bits as they would in narrow lanes, so they run unchanged; what reads a component's value
//! (a conversion, a widening) first extends its low bits, and what writes memory keeps them.
//!
//! In memory, each lane's vector is a few 32-bit words (a `uchar4` one, a `short8` four):
//! loaded as rows of words (one 16-byte load for four consecutive `uchar4`s or `short2`s),
//! each component shifted down from its word; stored by packing the components' low bits
//! back into words. Lane by lane, each component is truncated to its type or widened from it
//! (`lane_vals`, `put_lane_vals`), so the scalar translation sees the values it computes with.
//!
//! Vectors of booleans (vector comparisons' results) are held the same way, each component a
//! lane mask (all ones where true, as a scalar bool); lane by lane they are 0 or 1.

use super::{Plan, Vecs};
use crate::codegen::layout::Id;
use crate::codegen::simd::{is_bool_vector, narrow, Class, LANES};
use crate::codegen::state::{FnTx, R};
use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Type, Value};

impl FnTx<'_, '_, '_> {
    /// The component type (`I8`, `I16`) of value `id` when it is a narrow vector.
    pub(super) fn narrow_of(&self, id: Id, plan: &Plan) -> Option<Type> {
        let t = plan
            .tys
            .get(&id)
            .copied()
            .or_else(|| self.cx.m.constant(id).map(|c| c.ty))?;
        narrow(self.cx, t)
    }

    /// Whether value `id` is a vector of booleans (each component a lane mask).
    pub(super) fn bool_vector_of(&self, id: Id, plan: &Plan) -> bool {
        let t = plan
            .tys
            .get(&id)
            .copied()
            .or_else(|| self.cx.m.constant(id).map(|c| c.ty));
        t.is_some_and(|t| is_bool_vector(self.cx, t))
    }

    /// A four-lane splat of the 32-bit constant `k`.
    fn splat_i32(&mut self, k: i64) -> Value {
        let c = self.b.ins().iconst(types::I32, k);
        self.b.ins().splat(types::I32X4, c)
    }

    /// Four lanes' low `bits` extended over the whole lane, zero or sign.
    pub(super) fn extend_low(&mut self, v: Value, bits: u32, signed: bool) -> Value {
        if bits >= 32 {
            return v;
        }
        if signed {
            let s = self.b.ins().iconst(types::I32, i64::from(32 - bits));
            let up = self.b.ins().ishl(v, s);
            self.b.ins().sshr(up, s)
        } else {
            let m = self.splat_i32((1i64 << bits) - 1);
            self.b.ins().band(v, m)
        }
    }

    /// Four 32-bit lanes `w` clamped to the range of a `bits`-bit integer (signed or not);
    /// 32 bits: `w` itself.
    pub(super) fn clamp_to_bits(&mut self, w: Value, bits: u32, signed: bool) -> Value {
        if bits >= 32 {
            return w;
        }
        let (lo, hi) = if signed {
            (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
        } else {
            (0, (1i64 << bits) - 1)
        };
        let (lo, hi) = (self.splat_i32(lo), self.splat_i32(hi));
        let w = self.b.ins().smax(w, lo);
        self.b.ins().smin(w, hi)
    }

    /// A scalar lane `x` of a narrow component widened to 32 bits (its low bits are what
    /// count).
    pub(super) fn widen_lane(&mut self, x: Value) -> Value {
        match self.b.func.dfg.value_type(x) {
            types::I8 | types::I16 => self.b.ins().uextend(types::I32, x),
            _ => x,
        }
    }

    /// Scalar operand `x` of 8 or 16 bits (a component put into a narrow vector) as four
    /// 32-bit lanes; `None` for other operands.
    pub(super) fn narrow_scalar_lanes(&mut self, x: Id, plan: &Plan, vecs: &Vecs) -> R<Option<Value>> {
        let t = plan
            .tys
            .get(&x)
            .copied()
            .or_else(|| self.cx.m.constant(x).map(|c| c.ty));
        let bits = t.and_then(|t| self.cx.layout.get(t).ok()).map(|i| i.leaves.clone());
        if !matches!(bits.as_deref(), Some([types::I8 | types::I16])) {
            return Ok(None);
        }
        if plan.class.get(&x).is_none_or(|c| *c == Class::Uniform) && !vecs.q.contains_key(&x) {
            let v = self.val1(x)?;
            let w = self.widen_lane(v);
            return Ok(Some(self.b.ins().splat(types::I32X4, w)));
        }
        let q = self.quad(x, plan, vecs)?.map(|v| self.widen_lane(v));
        Ok(Some(self.build(types::I32X4, &q)))
    }

    /// Component `c` of a narrow vector as four scalars of its type `t`.
    pub(super) fn narrow_component_quad(&mut self, c: Value, t: Type) -> [Value; LANES as usize] {
        [0u8, 1, 2, 3].map(|l| {
            let x = self.b.ins().extractlane(c, l);
            self.b.ins().ireduce(t, x)
        })
    }

    /// Whether a narrow vector of `n` components has a layout of whole 32-bit words (or
    /// is a `char2`): no padding (a power of two of components), which the load of a three-component vector must not read.
    pub(super) fn narrow_rows(n: usize) -> bool {
        n.is_power_of_two() && n >= 2
    }

    /// Each lane's narrow vector (`n` components of `t`, [`Self::narrow_rows`]) at its
    /// address, or (`consecutive`: four of one word each, side by side) at the first lane's:
    /// one vector per component, the component in each lane's low bits.
    pub(super) fn load_narrow(
        &mut self,
        t: Type,
        n: usize,
        addrs: [Value; LANES as usize],
        consecutive: Option<(Id, Value)>,
    ) -> Vec<Value> {
        let tb = t.bytes() as usize;
        let bytes = tb * n;
        let words = match consecutive {
            Some((p, base)) if bytes == 4 => vec![self.rb_vector_load(p, base, types::I32X4, types::I32)],
            _ if bytes >= 4 => self.load_rows(types::I32X4, bytes / 4, addrs),
            _ => {
                let q = addrs.map(|a| {
                    let h = self.b.ins().load(types::I16, MemFlagsData::new(), a, 0);
                    self.b.ins().uextend(types::I32, h)
                });
                vec![self.build(types::I32X4, &q)]
            }
        };
        (0..n)
            .map(|k| {
                let (w, sh) = (words[k * tb / 4], 8 * (k * tb % 4));
                if sh == 0 {
                    w
                } else {
                    let s = self.b.ins().iconst(types::I32, sh as i64);
                    self.b.ins().ushr(w, s)
                }
            })
            .collect()
    }

    /// Stores narrow components `comps` (of type `t`, [`Self::narrow_rows`]) at each lane's
    /// address, lane after lane, or (`consecutive`) four words at the first lane's.
    pub(super) fn store_narrow(
        &mut self,
        t: Type,
        comps: &[Value],
        addrs: [Value; LANES as usize],
        consecutive: Option<(Id, Value)>,
    ) {
        let tb = t.bytes() as usize;
        let bytes = tb * comps.len();
        let mut words: Vec<Option<Value>> = vec![None; bytes.div_ceil(4)];
        for (k, c) in comps.iter().enumerate() {
            let sh = 8 * (k * tb % 4);
            // (Bits shifted past the word's top need no mask.)
            let x = if sh + 8 * tb == 32 {
                *c
            } else {
                let m = self.splat_i32((1i64 << (8 * tb)) - 1);
                self.b.ins().band(*c, m)
            };
            let x = if sh == 0 {
                x
            } else {
                let s = self.b.ins().iconst(types::I32, sh as i64);
                self.b.ins().ishl(x, s)
            };
            let w = &mut words[k * tb / 4];
            *w = Some(match *w {
                None => x,
                Some(acc) => self.b.ins().bor(acc, x),
            });
        }
        let words: Vec<Value> = words.into_iter().flatten().collect();
        match consecutive {
            Some((p, base)) if bytes == 4 => self.rb_vector_store(p, base, words[0], types::I32),
            _ if bytes >= 4 => self.store_rows(&words, addrs),
            _ => {
                for (l, a) in addrs.into_iter().enumerate() {
                    let x = self.b.ins().extractlane(words[0], l as u8);
                    let h = self.b.ins().ireduce(types::I16, x);
                    self.b.ins().store(MemFlagsData::new(), h, a, 0);
                }
            }
        }
    }

    /// The components of four lanes' narrow vectors (or, `bools`, vectors of booleans: 0 or
    /// 1 each, made masks) from their scalar leaves (lane by lane).
    pub(super) fn widen_lanes(&mut self, xs: &[Vec<Value>], n: usize, bools: bool) -> Vec<Value> {
        (0..n)
            .map(|k| {
                let q = [0, 1, 2, 3].map(|l| {
                    let w = self.widen_lane(xs[l][k]);
                    if bools {
                        self.b.ins().ineg(w)
                    } else {
                        w
                    }
                });
                self.build(types::I32X4, &q)
            })
            .collect()
    }

    /// The scalar leaves (0 or 1) of a vector of booleans, components `comps`, in lane `l`.
    pub(super) fn bool_lane_vals(&mut self, comps: &[Value], l: usize) -> Vec<Value> {
        comps
            .iter()
            .map(|c| {
                let x = self.b.ins().extractlane(*c, l as u8);
                self.b
                    .ins()
                    .icmp_imm_s(cranelift_codegen::ir::condcodes::IntCC::NotEqual, x, 0)
            })
            .collect()
    }

    /// The scalar leaves of narrow vector `id` in lane `l`.
    pub(super) fn narrow_lane_vals(&mut self, comps: &[Value], t: Type, l: usize) -> Vec<Value> {
        comps
            .iter()
            .map(|c| {
                let x = self.b.ins().extractlane(*c, l as u8);
                self.b.ins().ireduce(t, x)
            })
            .collect()
    }
}
