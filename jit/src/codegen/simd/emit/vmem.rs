//! The vector data load and store functions of OpenCL C 6.15.7 in the vector loop (`vloadn`,
//! `vstoren`, `vload_half(n)`, `vloada_halfn`, `vstore_half(n)(_r)`, `vstorea_halfn(_r)`).
//!
//! Each lane's address is its pointer plus its offset times the size of one group (`n`
//! elements; four for the aligned forms of three). Where all four work-items run the
//! instruction and robust mode is off, the lanes' elements move in vector registers:
//! - 32-bit elements: per four components, four 16-byte accesses (one per lane) and a 4x4
//!   transpose (the layout of a `float4` load); two components as one 8-byte access a lane;
//!   other sizes component by component.
//! - halves: loaded as 16-bit values into four-lane integers and widened by `half`'s inline
//!   conversion four lanes at a time (consecutive halves of consecutive work-items: one
//!   8-byte load); stored after `half`'s four-lane rounding in the instruction's mode, one
//!   16-bit store a lane. These are the conversions the scalar translation makes, bit for
//!   bit.
//!
//! Stores go lane by lane in the lanes' order, as four work-items storing one after another.
//! Under an execution mask (a masked arm or loop), or in robust mode (each lane's access
//! checked), the scalar translation runs lane by lane, for the lanes in the mask only: a
//! lane outside it may hold an offset that is out of range.

use super::{Plan, Vecs};
use crate::codegen::half;
use crate::codegen::simd::{Class, LANES};
use crate::codegen::state::{op_id, FnTx, R};
use crate::codegen::vector::vflags;
use crate::spirv::Instruction;
use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Type, Value};

/// Whether `name` is one of the OpenCL.std vector data load and store functions.
pub(crate) fn is_vmem(name: &str) -> bool {
    name.starts_with("vload") || name.starts_with("vstore")
}

/// A load (rather than a store) of [`is_vmem`].
pub(crate) fn is_vload(name: &str) -> bool {
    name.starts_with("vload")
}

/// The element size and group size in elements (the aligned forms of three take four) of
/// `name` with `n` components of `bytes` bytes.
fn group(name: &str, n: usize, bytes: u32) -> (u32, usize) {
    let half = name.contains("half");
    let eb = if half { 2 } else { bytes };
    let aligned = name.starts_with("vloada") || name.starts_with("vstorea");
    (eb, if aligned && n == 3 { 4 } else { n })
}

impl FnTx<'_, '_, '_> {
    /// Step::Vector of a vector data load or store `name`.
    pub(super) fn simd_vmem(&mut self, inst: &Instruction, name: &str, plan: &Plan, vecs: &mut Vecs) -> R {
        if vecs.exec.is_some() || self.robust.is_some() {
            return self.by_lanes(inst, plan, vecs);
        }
        let store = !is_vload(name);
        // Operands: the set and the instruction number, (the data,) the offset, the pointer.
        let at = 2 + usize::from(store);
        let (off, p) = (op_id(inst, at)?, op_id(inst, at + 1)?);
        let half = name.contains("half");
        if store {
            let data = op_id(inst, 2)?;
            let dty = self.stored_type(inst, data, plan)?;
            let info = self.cx.layout.get(dty)?;
            let (leaf, n) = (info.leaves.first().copied(), info.leaves.len());
            if leaf != Some(types::F32) && (half || !matches!(leaf, Some(types::I32 | types::F32))) {
                return self.by_lanes(inst, plan, vecs);
            }
            let comps = if n > 1 {
                self.comps(data, plan, vecs)?
            } else {
                vec![self.lanes(data, plan, vecs)?]
            };
            let (eb, g) = group(name, n, 4);
            let addrs = self.vmem_addrs(off, p, u64::from(eb) * g as u64, plan, vecs)?;
            if half {
                let mode = crate::codegen::extinst::vstore_rounding_mode(inst, name);
                self.store_halves(&comps, mode, addrs);
            } else if n == 3 && g == 3 && self.consecutive(off, p, plan) {
                self.store_threes(&comps, addrs[0]);
            } else {
                self.store_rows(&comps, addrs);
            }
            return Ok(());
        }
        let (r, ty) = crate::codegen::state::result(inst)?;
        let info = self.cx.layout.get(ty)?;
        let (leaf, n) = (info.leaves.first().copied(), info.leaves.len());
        let vt = match leaf {
            Some(types::F32) => types::F32X4,
            Some(types::I32) if !half => types::I32X4,
            _ => return self.by_lanes(inst, plan, vecs),
        };
        let (eb, g) = group(name, n, 4);
        let comps = if half {
            self.load_halves(off, p, n, g, plan, vecs)?
        } else {
            let addrs = self.vmem_addrs(off, p, u64::from(eb) * g as u64, plan, vecs)?;
            if n == 3 && g == 3 && self.consecutive(off, p, plan) {
                self.load_threes(vt, addrs[0])
            } else {
                self.load_rows(vt, n, addrs)
            }
        };
        if n == 1 {
            vecs.v.insert(r, comps[0]);
        } else {
            vecs.s.insert(r, comps);
        }
        Ok(())
    }

    /// Whether the four lanes' groups lie side by side: a 64-bit offset affine with stride 1
    /// (a 32-bit one could wrap between lanes) and one pointer.
    fn consecutive(&self, off: u32, p: u32, plan: &Plan) -> bool {
        let wide = plan
            .tys
            .get(&off)
            .and_then(|t| self.cx.layout.get(*t).ok())
            .is_some_and(|i| i.leaves == [types::I64]);
        wide && plan.class.get(&off) == Some(&Class::Affine(1))
            && plan.class.get(&p).is_none_or(|c| *c == Class::Uniform)
    }

    /// Each lane's `p + offset * size` (the offset an unsigned integer of any width).
    fn vmem_addrs(&mut self, off: u32, p: u32, size: u64, plan: &Plan, vecs: &Vecs) -> R<[Value; LANES as usize]> {
        let (offs, ps) = (self.quad(off, plan, vecs)?, self.quad(p, plan, vecs)?);
        let mut out = ps;
        for (l, a) in out.iter_mut().enumerate() {
            let o = self.int_resize(offs[l], types::I64, false);
            let o = self.b.ins().imul_imm_s(o, size as i64);
            *a = self.b.ins().iadd(ps[l], o);
        }
        Ok(out)
    }

    /// Three-component groups of the four lanes side by side at `a` (48 bytes: x0 y0 z0 x1 |
    /// y1 z1 x2 y2 | z2 x3 y3 z3): three 16-byte loads, each component gathered by two
    /// shuffles.
    fn load_threes(&mut self, vt: Type, a: Value) -> Vec<Value> {
        let flags = MemFlagsData::new();
        let [r0, r1, r2] = [0, 16, 32].map(|o| self.b.ins().load(vt, flags, a, o));
        [
            ([0, 3, 6, 7], [0, 1, 2, 5]),
            ([1, 4, 7, 7], [0, 1, 2, 6]),
            ([2, 5, 5, 5], [0, 1, 4, 7]),
        ]
        .into_iter()
        .map(|(m01, m2)| {
            let t = self.shuffle32(r0, r1, m01);
            self.shuffle32(t, r2, m2)
        })
        .collect()
    }

    /// The inverse of [`Self::load_threes`]: three 16-byte stores.
    fn store_threes(&mut self, c: &[Value], a: Value) {
        let flags = MemFlagsData::new();
        let (x, y, z) = (c[0], c[1], c[2]);
        let rows = [
            (x, y, [0, 4, 1, 5], z, [0, 1, 4, 2]),
            (y, z, [1, 5, 2, 6], x, [0, 1, 6, 2]),
            (x, y, [3, 7, 3, 7], z, [6, 0, 1, 7]),
        ];
        for (k, (p, q, m, r, m2)) in rows.into_iter().enumerate() {
            let t = self.shuffle32(p, q, m);
            let row = self.shuffle32(t, r, m2);
            self.b.ins().store(flags, row, a, 16 * k as i32);
        }
    }

    /// `n` halves (groups of `g`) at each lane's offset, widened to floats: one vector per
    /// component.
    fn load_halves(&mut self, off: u32, p: u32, n: usize, g: usize, plan: &Plan, vecs: &Vecs) -> R<Vec<Value>> {
        let flags = MemFlagsData::new();
        let consecutive = n == 1 && self.consecutive(off, p, plan);
        let bits: Vec<Value> = if consecutive {
            // The four lanes' halves side by side: one 8-byte load, widened.
            let [a, ..] = self.vmem_addrs(off, p, 2, plan, vecs)?;
            let x = self.b.ins().load(types::I64, flags, a, 0);
            let v = self.b.ins().scalar_to_vector(types::I64X2, x);
            let v = self.b.ins().bitcast(types::I16X8, vflags(), v);
            vec![self.b.ins().uwiden_low(v)]
        } else {
            let addrs = self.vmem_addrs(off, p, 2 * g as u64, plan, vecs)?;
            let mut bits = Vec::with_capacity(n);
            if n == 2 {
                // Each lane's two halves as one 4-byte load, split.
                let xs = addrs.map(|a| self.b.ins().load(types::I32, flags, a, 0));
                let v = self.build(types::I32X4, &xs);
                let lo = self.b.ins().iconst(types::I32, 0xffff);
                let lo = self.b.ins().splat(types::I32X4, lo);
                bits.push(self.b.ins().band(v, lo));
                bits.push(self.b.ins().ushr_imm_u(v, 16));
            }
            for j in 0..n / 4 {
                // Four halves a lane as one 8-byte load (lanes 0-1 and 2-3 paired), widened
                // into one row a lane, transposed into the components.
                let at = addrs.map(|a| self.b.ins().iadd_imm_s(a, 8 * j as i64));
                let [a, b] = self.pairs_of_lanes(at, types::I16X8);
                let rows = [
                    self.b.ins().uwiden_low(a),
                    self.b.ins().uwiden_high(a),
                    self.b.ins().uwiden_low(b),
                    self.b.ins().uwiden_high(b),
                ];
                bits.extend(self.transpose4(rows));
            }
            for k in bits.len()..n {
                let xs = addrs.map(|a| self.b.ins().uload16(types::I32, flags, a, 2 * k as i32));
                bits.push(self.build(types::I32X4, &xs));
            }
            bits
        };
        Ok(bits
            .into_iter()
            .map(|h| {
                let f = half::half_to_f32_bits(&mut self.b, h);
                self.b.ins().bitcast(types::F32X4, MemFlagsData::new(), f)
            })
            .collect())
    }

    /// Float components rounded to halves in `mode`, each lane's stored at its address, lane
    /// after lane.
    fn store_halves(&mut self, comps: &[Value], mode: i32, addrs: [Value; LANES as usize]) {
        let flags = MemFlagsData::new();
        let hs: Vec<Value> = comps
            .iter()
            .map(|c| {
                let x = self.b.ins().bitcast(types::I32X4, MemFlagsData::new(), *c);
                if mode == crate::codegen::helpers::RTE {
                    half::f32_bits_to_half(&mut self.b, x)
                } else {
                    half::to_half_in_mode(&mut self.b, x, mode)
                }
            })
            .collect();
        for (l, a) in addrs.into_iter().enumerate() {
            for (k, h) in hs.iter().enumerate() {
                let x = self.b.ins().extractlane(*h, l as u8);
                self.b.ins().istore16(flags, x, a, 2 * k as i32);
            }
        }
    }
}
