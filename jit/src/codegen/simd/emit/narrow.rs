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
use crate::codegen::simd::{is_bool_vector, narrow, small_int, LANES};
use crate::codegen::state::{op_id, result, FnTx, R};
use crate::spirv::Instruction;
use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Type, Value};
use rspirv::spirv::Op;

impl FnTx<'_, '_, '_> {
    /// The SPIR-V type of value `id` (a planned value or a constant).
    pub(super) fn type_of(&self, id: Id, plan: &Plan) -> Option<Id> {
        plan.tys
            .get(&id)
            .copied()
            .or_else(|| self.cx.m.constant(id).map(|c| c.ty))
    }

    /// The component type (`I8`, `I16`) of value `id` when it is a narrow vector.
    pub(super) fn narrow_of(&self, id: Id, plan: &Plan) -> Option<Type> {
        narrow(self.cx, self.type_of(id, plan)?)
    }

    /// The type (`I8`, `I16`) of value `id` when it is an 8- or 16-bit scalar integer.
    pub(super) fn small_int_of(&self, id: Id, plan: &Plan) -> Option<Type> {
        small_int(self.cx, self.type_of(id, plan)?)
    }

    /// An operation whose result is an 8- or 16-bit integer (or a conversion from one) on
    /// four lanes: wrapping operations as on 32 bits, right shifts and widenings from the
    /// low bits extended.
    pub(super) fn simd_small_int(&mut self, inst: &Instruction, plan: &Plan, vecs: &Vecs) -> R<Value> {
        let op = inst.opcode;
        let (r, _) = result(inst)?;
        let x = op_id(inst, 0)?;
        let a = self.lanes(x, plan, vecs)?;
        let from = self.small_int_of(x, plan).map_or(32, |t| t.bits());
        let to = self.small_int_of(r, plan).map_or(32, |t| t.bits());
        Ok(match op {
            // Widened from the low bits, or narrowed by keeping them.
            Op::UConvert | Op::SConvert if from < to => self.extend_low(a, from, op == Op::SConvert),
            Op::UConvert | Op::SConvert | Op::Bitcast | Op::CopyObject => a,
            Op::SNegate => self.b.ins().ineg(a),
            Op::Not => self.b.ins().bnot(a),
            Op::ShiftLeftLogical | Op::ShiftRightLogical | Op::ShiftRightArithmetic => {
                let a = if op == Op::ShiftLeftLogical {
                    a
                } else {
                    self.extend_low(a, to, op == Op::ShiftRightArithmetic)
                };
                let n = self.val1(op_id(inst, 1)?)?;
                self.shift_by(op, a, n)
            }
            _ => {
                let b = self.lanes(op_id(inst, 1)?, plan, vecs)?;
                self.lanewise(op, a, b)
                    .ok_or_else(|| self.err(inst, "vector plan: unexpected 8- or 16-bit operation"))?
            }
        })
    }

    /// Four consecutive 8- or 16-bit integers (`t`) at `base`, zero-extended into 32-bit
    /// lanes: one 4- or 8-byte load.
    pub(super) fn load_small_consecutive(&mut self, t: Type, base: Value) -> Value {
        let le = crate::codegen::vector::vflags();
        let flags = MemFlagsData::new();
        let v = if t == types::I8 {
            let x = self.b.ins().load(types::I32, flags, base, 0);
            let v = self.b.ins().scalar_to_vector(types::I32X4, x);
            let v = self.b.ins().bitcast(types::I8X16, le, v);
            self.b.ins().uwiden_low(v)
        } else {
            let x = self.b.ins().load(types::I64, flags, base, 0);
            let v = self.b.ins().scalar_to_vector(types::I64X2, x);
            self.b.ins().bitcast(types::I16X8, le, v)
        };
        self.b.ins().uwiden_low(v)
    }

    /// The low 8 or 16 bits (`t`) of four 32-bit lanes `v` stored side by side at `base`: one
    /// 4- or 8-byte store.
    pub(super) fn store_small_consecutive(&mut self, v: Value, t: Type, base: Value) {
        let le = crate::codegen::vector::vflags();
        let bytes = v_bytes(t);
        let x = self.b.ins().bitcast(types::I8X16, le, v);
        let mask = self
            .b
            .func
            .dfg
            .immediates
            .push(cranelift_codegen::ir::ConstantData::from(bytes));
        let packed = self.b.ins().shuffle(x, x, mask);
        let (wide, word) = if t == types::I8 {
            (types::I32X4, types::I32)
        } else {
            (types::I64X2, types::I64)
        };
        let p = self.b.ins().bitcast(wide, le, packed);
        let w = self.b.ins().extractlane(p, 0);
        debug_assert_eq!(self.b.func.dfg.value_type(w), word);
        self.b.ins().store(MemFlagsData::new(), w, base, 0);
    }

    /// Whether value `id` is a vector of booleans (each component a lane mask).
    pub(super) fn bool_vector_of(&self, id: Id, plan: &Plan) -> bool {
        self.type_of(id, plan).is_some_and(|t| is_bool_vector(self.cx, t))
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

    /// Whether a narrow vector of `n` components has a layout of whole 32-bit words (or is a
    /// `char2`): a power of two of components, no padding (which a three-component vector's
    /// load must not read).
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

    /// The scalar leaves (of type `t`) in lane `l` of a narrow vector with components `comps`.
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

/// The shuffle that gathers each 32-bit lane's low byte (`I8`) or two bytes (`I16`) to the
/// front of a 16-byte vector.
fn v_bytes(t: Type) -> Vec<u8> {
    let per = t.bytes() as u8;
    let mut m: Vec<u8> = (0..4u8).flat_map(|l| (0..per).map(move |k| 4 * l + k)).collect();
    m.resize(16, 0);
    m
}
