//! Linking SPIR-V modules (clLinkProgram): the ids of each module are moved into one id
//! space, the logical sections are merged, identical non-aggregate types and extended
//! instruction imports are shared, and every function or variable imported by name
//! (LinkageAttributes ... Import) is replaced by the one exported under that name.

use super::binary::{Header, Instruction};
use super::module::Module;
use rspirv::dr::Operand;
use rspirv::spirv::{Decoration, LinkageType, Op};
use std::collections::{HashMap, HashSet};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkError(pub String);

impl std::fmt::Display for LinkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The logical layout of a module (SPIR-V 2.4), in order.
fn section(op: Op) -> usize {
    match op {
        Op::Capability => 0,
        Op::Extension => 1,
        Op::ExtInstImport => 2,
        Op::MemoryModel => 3,
        Op::EntryPoint => 4,
        Op::ExecutionMode | Op::ExecutionModeId => 5,
        Op::String
        | Op::SourceExtension
        | Op::Source
        | Op::SourceContinued
        | Op::Name
        | Op::MemberName
        | Op::ModuleProcessed => 6,
        Op::Decorate
        | Op::MemberDecorate
        | Op::DecorationGroup
        | Op::GroupDecorate
        | Op::GroupMemberDecorate
        | Op::DecorateId
        | Op::DecorateString
        | Op::MemberDecorateString => 7,
        _ => 8,
    }
}

/// Types that SPIR-V requires to be unique, so two modules' copies must become one.
fn shareable_type(op: Op) -> bool {
    matches!(
        op,
        Op::TypeVoid
            | Op::TypeBool
            | Op::TypeInt
            | Op::TypeFloat
            | Op::TypeVector
            | Op::TypeMatrix
            | Op::TypeSampler
            | Op::TypeEvent
            | Op::TypeDeviceEvent
            | Op::TypeReserveId
            | Op::TypeQueue
            | Op::TypePointer
            | Op::TypeFunction
            | Op::TypeArray
            | Op::TypeRuntimeArray
            | Op::TypeImage
            | Op::TypeSampledImage
    )
}

fn map_ids(inst: &mut Instruction, f: &impl Fn(u32) -> u32) {
    inst.result_type = inst.result_type.map(f);
    inst.result_id = inst.result_id.map(f);
    for op in &mut inst.operands {
        match op {
            Operand::IdRef(id) | Operand::IdScope(id) | Operand::IdMemorySemantics(id) => *id = f(*id),
            _ => {}
        }
    }
}

fn linkage(inst: &Instruction) -> Option<(u32, String, LinkageType)> {
    if inst.opcode != Op::Decorate {
        return None;
    }
    match inst.operands.as_slice() {
        [Operand::IdRef(target), Operand::Decoration(Decoration::LinkageAttributes), Operand::LiteralString(name), Operand::LinkageType(ty)] => {
            Some((*target, name.clone(), *ty))
        }
        _ => None,
    }
}

/// Links `modules` into one. With `allow_unresolved` (a library), imports without an export
/// stay imports; otherwise they are an error naming the symbol.
pub fn link(modules: &[&Module], allow_unresolved: bool) -> Result<Module, LinkError> {
    let mut sections: [Vec<Instruction>; 9] = Default::default();
    let mut functions: Vec<Instruction> = Vec::new();
    let mut capabilities = HashSet::new();
    let mut extensions = HashSet::new();
    let mut imports_by_name: HashMap<String, u32> = HashMap::new();
    let mut types: HashMap<(Op, Vec<Operand>), u32> = HashMap::new();
    let mut memory_model = false;
    let mut base = 0u32;
    let mut version = (1u8, 0u8);
    let mut generator = 0;
    for module in modules {
        let header = module
            .header
            .ok_or_else(|| LinkError("a module has no header".into()))?;
        version = version.max(header.version);
        generator = header.generator;
        // Ids that this module shares with an earlier one (types, ext-inst imports).
        let mut shared: HashMap<u32, u32> = HashMap::new();
        let mut in_function = false;
        for inst in &module.instructions {
            let mut inst = inst.clone();
            map_ids(&mut inst, &|id| shared.get(&(id + base)).copied().unwrap_or(id + base));
            if inst.opcode == Op::Function {
                in_function = true;
            }
            if in_function {
                if inst.opcode == Op::FunctionEnd {
                    in_function = false;
                }
                functions.push(inst);
                continue;
            }
            match inst.opcode {
                Op::Capability if !capabilities.insert(format!("{:?}", inst.operands)) => continue,
                Op::Extension if !extensions.insert(format!("{:?}", inst.operands)) => continue,
                Op::ExtInstImport => {
                    let name = format!("{:?}", inst.operands);
                    let id = inst.result_id.unwrap_or(0);
                    if let Some(&first) = imports_by_name.get(&name) {
                        shared.insert(id, first);
                        continue;
                    }
                    imports_by_name.insert(name, id);
                }
                // The first module's memory model stands for all.
                Op::MemoryModel if std::mem::replace(&mut memory_model, true) => continue,
                op if shareable_type(op) => {
                    let id = inst.result_id.unwrap_or(0);
                    let key = (op, inst.operands.clone());
                    if let Some(&first) = types.get(&key) {
                        shared.insert(id, first);
                        continue;
                    }
                    types.insert(key, id);
                }
                _ => {}
            }
            sections[section(inst.opcode)].push(inst);
        }
        base += header.bound;
    }

    // Resolve imports against exports.
    let mut exports: HashMap<String, u32> = HashMap::new();
    let mut imports: Vec<(u32, String)> = Vec::new();
    for inst in &sections[7] {
        match linkage(inst) {
            Some((target, name, LinkageType::Export)) if exports.insert(name.clone(), target).is_some() => {
                return Err(LinkError(format!(
                    "symbol {name:?} is exported by more than one module"
                )));
            }
            Some((_, _, LinkageType::Export)) => {}
            Some((target, name, LinkageType::Import)) => imports.push((target, name)),
            _ => {}
        }
    }
    // Work-item builtins are imported by llvm-spirv; the environment provides them.
    let builtins: HashSet<u32> = sections[7]
        .iter()
        .filter_map(|inst| match inst.operands.as_slice() {
            [Operand::IdRef(target), Operand::Decoration(Decoration::BuiltIn), ..] if inst.opcode == Op::Decorate => {
                Some(*target)
            }
            _ => None,
        })
        .collect();
    imports.retain(|(id, _)| !builtins.contains(id));
    let mut resolved: HashMap<u32, u32> = HashMap::new();
    for (id, name) in &imports {
        match exports.get(name) {
            Some(&export) => {
                resolved.insert(*id, export);
            }
            None if allow_unresolved => {}
            None => {
                return Err(LinkError(format!(
                    "unresolved symbol {name:?}: no linked module exports it"
                )))
            }
        }
    }
    let is_resolved_import = |id: Option<u32>| id.is_some_and(|id| resolved.contains_key(&id));
    let mut insts: Vec<Instruction> = Vec::new();
    for (i, section) in sections.into_iter().enumerate() {
        for mut inst in section {
            // Drop the imported declarations' names, decorations and variables.
            let target = match inst.operands.first() {
                Some(Operand::IdRef(t)) if i == 6 || i == 7 => Some(*t),
                _ => None,
            };
            if is_resolved_import(target) || (i == 8 && is_resolved_import(inst.result_id)) {
                continue;
            }
            map_ids(&mut inst, &|id| resolved.get(&id).copied().unwrap_or(id));
            insts.push(inst);
        }
    }
    let mut skipping = false;
    for mut inst in functions {
        if inst.opcode == Op::Function && is_resolved_import(inst.result_id) {
            skipping = true;
        }
        if skipping {
            skipping = inst.opcode != Op::FunctionEnd;
            continue;
        }
        map_ids(&mut inst, &|id| resolved.get(&id).copied().unwrap_or(id));
        insts.push(inst);
    }
    // Offsets order instructions for the validator's define-before-use checks; the inputs'
    // own offsets overlap, so number the merged stream afresh (20 bytes: the header).
    let mut offset = 20;
    for inst in &mut insts {
        inst.offset = offset;
        let words =
            1 + inst.operands.len() + usize::from(inst.result_id.is_some()) + usize::from(inst.result_type.is_some());
        offset += 4 * words;
    }
    let header = Header {
        version,
        generator,
        bound: base.max(1),
        schema: 0,
    };
    Module::from_instructions(Some(header), insts).map_err(|e| LinkError(e.to_string()))
}
