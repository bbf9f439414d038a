//! Composites on flattened values: construct, extract, insert, dynamic vector extract/insert,
//! OpVectorShuffle, OpCopyObject and OpUndef.

use super::state::{op_id, op_lit, result, FnTx, R};
use crate::spirv::Instruction;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{InstBuilder, Value};
use rspirv::spirv::Op;

impl FnTx<'_, '_, '_> {
    fn literals(&self, inst: &Instruction, from: usize) -> R<Vec<u32>> {
        (from..inst.operands.len()).map(|i| op_lit(inst, i)).collect()
    }

    /// Selects `vals[idx]` with a dynamic index (out of range reads component 0).
    pub fn dyn_select(&mut self, vals: &[Value], idx: Value) -> Value {
        let mut acc = vals[0];
        for (i, v) in vals.iter().enumerate().skip(1) {
            let c = self.b.ins().icmp_imm_s(IntCC::Equal, idx, i as i64);
            acc = self.b.ins().select(c, *v, acc);
        }
        acc
    }

    pub fn composite(&mut self, inst: &Instruction) -> R {
        let (r, ty) = result(inst)?;
        if matches!(
            inst.opcode,
            Op::VectorShuffle | Op::CompositeInsert | Op::CompositeConstruct
        ) && self.simd_composite(inst)?
        {
            return Ok(());
        }
        match inst.opcode {
            Op::CompositeConstruct => {
                let mut out = Vec::new();
                for i in 0..inst.operands.len() {
                    out.extend(self.val(op_id(inst, i)?)?);
                }
                if out.len() != self.cx.layout.get(ty)?.leaves.len() {
                    return Err(self.err(inst, "constituents do not match the result type"));
                }
                self.def(r, ty, out);
            }
            Op::CompositeExtract => {
                let c = op_id(inst, 0)?;
                let cty = self.ty_of(c)?;
                let idx = self.literals(inst, 1)?;
                let (_, start, n) = self
                    .cx
                    .layout
                    .select(cty, &idx)
                    .map_err(|e| self.err(inst, &e.message))?;
                let v = self.val(c)?;
                let part = v
                    .get(start..start + n)
                    .ok_or_else(|| self.err(inst, "index out of range"))?;
                self.def(r, ty, part.to_vec());
            }
            Op::CompositeInsert => {
                let obj = self.val(op_id(inst, 0)?)?;
                let c = op_id(inst, 1)?;
                let cty = self.ty_of(c)?;
                let idx = self.literals(inst, 2)?;
                let (_, start, n) = self
                    .cx
                    .layout
                    .select(cty, &idx)
                    .map_err(|e| self.err(inst, &e.message))?;
                let mut v = self.val(c)?;
                if obj.len() != n || start + n > v.len() {
                    return Err(self.err(inst, "object does not match the indexed member"));
                }
                v[start..start + n].copy_from_slice(&obj);
                self.def(r, ty, v);
            }
            Op::VectorExtractDynamic => {
                let src = op_id(inst, 0)?;
                let v = self.val(src)?;
                let i = self.val1(op_id(inst, 1)?)?;
                let mut x = self.dyn_select(&v, i);
                // get_global_size(d) and the other work-item functions with d past the third
                // dimension (OpenCL C 6.15.1): 1 for the sizes, 0 for ids and offsets; clang
                // emits them as a dynamic extract from the built-in vector.
                if let Some(bi) = self.builtin_vectors.get(&src) {
                    use rspirv::spirv::BuiltIn as B;
                    let default = match bi {
                        B::GlobalSize | B::WorkgroupSize | B::EnqueuedWorkgroupSize | B::NumWorkgroups => Some(1),
                        B::GlobalInvocationId | B::LocalInvocationId | B::WorkgroupId | B::GlobalOffset => Some(0),
                        _ => None,
                    };
                    if let Some(d) = default {
                        let t = self.b.func.dfg.value_type(x);
                        let inside = self.b.ins().icmp_imm_u(IntCC::UnsignedLessThan, i, v.len() as i64);
                        let dv = self.b.ins().iconst(t, d);
                        x = self.b.ins().select(inside, x, dv);
                    }
                }
                self.def(r, ty, vec![x]);
            }
            Op::VectorInsertDynamic => {
                let v = self.val(op_id(inst, 0)?)?;
                let comp = self.val1(op_id(inst, 1)?)?;
                let i = self.val1(op_id(inst, 2)?)?;
                let out = v
                    .iter()
                    .enumerate()
                    .map(|(k, x)| {
                        let c = self.b.ins().icmp_imm_s(IntCC::Equal, i, k as i64);
                        self.b.ins().select(c, comp, *x)
                    })
                    .collect();
                self.def(r, ty, out);
            }
            Op::VectorShuffle => {
                let a = self.val(op_id(inst, 0)?)?;
                let bv = self.val(op_id(inst, 1)?)?;
                let comps = self.literals(inst, 2)?;
                let mut out = Vec::new();
                for c in comps {
                    let c = c as usize;
                    let v = if c < a.len() {
                        a[c]
                    } else if c - a.len() < bv.len() {
                        bv[c - a.len()]
                    } else {
                        // 0xFFFFFFFF: undefined component.
                        let t = self.b.func.dfg.value_type(a[0]);
                        self.zero(t)
                    };
                    out.push(v);
                }
                self.def(r, ty, out);
            }
            Op::CopyObject | Op::CopyLogical | Op::ExpectKHR => {
                let src = op_id(inst, 0)?;
                let v = self.val(src)?;
                let simd = self.vecs.get(&src).filter(|(l, _)| *l == v).cloned();
                self.def(r, ty, v);
                if let Some(f) = simd {
                    self.vecs.insert(r, f);
                }
            }
            Op::Undef if self.cx.alone_oracles.contains_key(&r) => {
                let alone = self.alone_flag(self.cx.alone_oracles[&r]);
                self.def(r, ty, vec![alone]);
            }
            Op::Undef => {
                let z = self.zeros(ty)?;
                self.def(r, ty, z);
            }
            _ => return Err(self.err(inst, "instruction is not supported")),
        }
        Ok(())
    }
}
