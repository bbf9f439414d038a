//! A repair of llvm-spirv 15's output for work-item functions called with a constant dimension
//! past the third: `get_global_size(4)` becomes `OpCompositeExtract %v3ulong_load 4`, an index
//! SPIR-V forbids (the vector has three components). OpenCL C defines the result for any
//! dimension `>= get_work_dim()` (6.15.1): 1 for the sizes and group counts, 0 for ids and
//! offsets. The module is read with rspirv's parser; each such extract becomes an
//! `OpCopyObject` of that constant, added to the module.

use rspirv::binary::Assemble;
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{BuiltIn, Decoration, Op};
use std::collections::HashMap;

/// What a work-item function returns past the last dimension, or None for other built-ins.
fn past_last_dimension(b: BuiltIn) -> Option<u64> {
    match b {
        BuiltIn::GlobalSize | BuiltIn::WorkgroupSize | BuiltIn::EnqueuedWorkgroupSize | BuiltIn::NumWorkgroups => {
            Some(1)
        }
        BuiltIn::GlobalInvocationId | BuiltIn::LocalInvocationId | BuiltIn::WorkgroupId | BuiltIn::GlobalOffset => {
            Some(0)
        }
        _ => None,
    }
}

/// The repaired SPIR-V and how many extracts were replaced; `None` when nothing needed it (or
/// rspirv cannot read the module).
pub fn repair(spirv: &[u8]) -> Option<(Vec<u8>, usize)> {
    // rspirv 0.13 cannot decode every valid module (some operand forms of program-scope
    // constants); such a module is left as it is, and Clift's own parser and validator judge it.
    let Ok(mut m) = rspirv::dr::load_bytes(spirv) else {
        return None;
    };
    let builtins: HashMap<u32, u64> = m
        .annotations
        .iter()
        .filter(|i| i.class.opcode == Op::Decorate)
        .filter_map(|i| match (i.operands.first(), i.operands.get(1), i.operands.get(2)) {
            (Some(Operand::IdRef(v)), Some(Operand::Decoration(Decoration::BuiltIn)), Some(Operand::BuiltIn(b))) => {
                Some((*v, past_last_dimension(*b)?))
            }
            _ => None,
        })
        .collect();
    if builtins.is_empty() {
        return None;
    }
    // Component counts of vector types.
    let counts: HashMap<u32, u32> = m
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::TypeVector)
        .filter_map(|i| match (i.result_id, i.operands.get(1)) {
            (Some(id), Some(Operand::LiteralBit32(n))) => Some((id, *n)),
            _ => None,
        })
        .collect();
    // Loads of those built-ins: result id -> (value past the last dimension, component count).
    let mut loads: HashMap<u32, (u64, u32)> = HashMap::new();
    for f in &m.functions {
        for b in &f.blocks {
            for i in &b.instructions {
                if let (Op::Load, Some(r), Some(t), Some(Operand::IdRef(p))) =
                    (i.class.opcode, i.result_id, i.result_type, i.operands.first())
                {
                    if let (Some(v), Some(n)) = (builtins.get(p), counts.get(&t)) {
                        loads.insert(r, (*v, *n));
                    }
                }
            }
        }
    }
    // (scalar type, value) -> constant id, created as needed.
    let mut constants: HashMap<(u32, u64), u32> = HashMap::new();
    let mut new_constants = Vec::new();
    let mut bound = m.header.as_ref().map_or(0, |h| h.bound);
    let widths: HashMap<u32, u32> = m
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::TypeInt)
        .filter_map(|i| match (i.result_id, i.operands.first()) {
            (Some(id), Some(Operand::LiteralBit32(w))) => Some((id, *w)),
            _ => None,
        })
        .collect();
    let mut replaced = 0;
    for f in &mut m.functions {
        for b in &mut f.blocks {
            for i in &mut b.instructions {
                if i.class.opcode != Op::CompositeExtract || i.operands.len() != 2 {
                    continue;
                }
                let (Some(Operand::IdRef(src)), Some(Operand::LiteralBit32(index))) =
                    (i.operands.first(), i.operands.get(1))
                else {
                    continue;
                };
                let Some((value, count)) = loads.get(src) else { continue };
                if index < count {
                    continue;
                }
                let (Some(ty), Some(result)) = (i.result_type, i.result_id) else {
                    continue;
                };
                let Some(width) = widths.get(&ty) else { continue };
                let id = *constants.entry((ty, *value)).or_insert_with(|| {
                    let id = bound;
                    bound += 1;
                    let literal = if *width == 64 {
                        Operand::LiteralBit64(*value)
                    } else {
                        Operand::LiteralBit32(*value as u32)
                    };
                    new_constants.push(Instruction::new(Op::Constant, Some(ty), Some(id), vec![literal]));
                    id
                });
                *i = Instruction::new(Op::CopyObject, Some(ty), Some(result), vec![Operand::IdRef(id)]);
                replaced += 1;
            }
        }
    }
    if replaced == 0 {
        return None;
    }
    // Constants go after their type; appending to the global section keeps that order.
    m.types_global_values.extend(new_constants);
    if let Some(h) = m.header.as_mut() {
        h.bound = bound;
    }
    let words = m.assemble();
    Some((words.iter().flat_map(|w| w.to_le_bytes()).collect(), replaced))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rspirv::dr::Builder;
    use rspirv::spirv::{AddressingModel, Capability, ExecutionModel, FunctionControl, MemoryModel, StorageClass};

    #[test]
    fn extracts_past_the_third_dimension_become_constants() {
        let mut b = Builder::new();
        b.capability(Capability::Kernel);
        b.capability(Capability::Addresses);
        b.capability(Capability::Int64);
        b.memory_model(AddressingModel::Physical64, MemoryModel::OpenCL);
        let void = b.type_void();
        let ulong = b.type_int(64, 0);
        let v3 = b.type_vector(ulong, 3);
        let pv3 = b.type_pointer(None, StorageClass::Input, v3);
        let size = b.variable(pv3, None, StorageClass::Input, None);
        let id = b.variable(pv3, None, StorageClass::Input, None);
        b.decorate(size, Decoration::BuiltIn, [Operand::BuiltIn(BuiltIn::GlobalSize)]);
        b.decorate(id, Decoration::BuiltIn, [Operand::BuiltIn(BuiltIn::GlobalInvocationId)]);
        let fty = b.type_function(void, []);
        let f = b.begin_function(void, None, FunctionControl::NONE, fty).unwrap();
        b.begin_block(None).unwrap();
        let s = b.load(v3, None, size, None, []).unwrap();
        let past = b.composite_extract(ulong, None, s, [4]).unwrap();
        let inside = b.composite_extract(ulong, None, s, [1]).unwrap();
        let g = b.load(v3, None, id, None, []).unwrap();
        let past_id = b.composite_extract(ulong, None, g, [3]).unwrap();
        b.ret().unwrap();
        b.end_function().unwrap();
        b.entry_point(ExecutionModel::Kernel, f, "k", [size, id]);
        let bytes: Vec<u8> = b.module().assemble().iter().flat_map(|w| w.to_le_bytes()).collect();
        let (fixed, n) = repair(&bytes).expect("repaired");
        assert_eq!(n, 2);
        let m = rspirv::dr::load_bytes(&fixed).unwrap();
        let insts: Vec<&Instruction> = m.functions[0].blocks[0].instructions.iter().collect();
        let value_of = |r: u32| {
            let i = insts.iter().find(|i| i.result_id == Some(r)).unwrap();
            assert_eq!(i.class.opcode, Op::CopyObject);
            let Some(Operand::IdRef(c)) = i.operands.first() else {
                panic!()
            };
            let c = m.types_global_values.iter().find(|t| t.result_id == Some(*c)).unwrap();
            c.operands[0].clone()
        };
        assert_eq!(value_of(past), Operand::LiteralBit64(1));
        assert_eq!(value_of(past_id), Operand::LiteralBit64(0));
        let kept = insts.iter().find(|i| i.result_id == Some(inside)).unwrap();
        assert_eq!(kept.class.opcode, Op::CompositeExtract);
        // Nothing to repair in the repaired module.
        assert!(repair(&fixed).is_none());
        // A module rspirv cannot read is left alone.
        assert!(repair(&bytes[..bytes.len() - 2]).is_none());
    }
}
