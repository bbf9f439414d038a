//! Loads that Cranelift may place next to their uses (issue 16, GEMM settings).
//!
//! Cranelift's egraph keeps every load where the translator put it (a load may trap, so it is
//! part of the function's "skeleton") but places every pure instruction at its first use. In a
//! register-tiled loop such as GEMM's k-step (`acc[i] = fma((float8)(a[i]), b, acc[i])` for
//! eight rows) that puts all loads of the step first and all `fma`s after them, so the loaded
//! operands of the whole step (two registers of `b`, eight of `a`) are live together with the
//! sixteen accumulator registers: 26 values for 16 xmm registers, and the accumulators spill.
//!
//! [`mark`] runs on a finished function before Cranelift compiles it and marks a plain `load`
//! `readonly notrap can_move`, which makes it pure for the egraph (placed before its first use,
//! each `a[i]` next to its `fma`s; a broadcast of a single-use load becomes `vbroadcastss m32`),
//! only where that cannot change what it reads or whether it runs:
//!
//! - its address depends on a parameter or a non-pure result of its own block (so no
//!   loop-invariant hoisting can run it where it did not run, and no load of another block can
//!   be merged with it);
//! - everything computed from its value (through pure instructions) is used in its own block
//!   only, so Cranelift places it in that block, after its original place;
//! - no instruction that may write memory (a store, an atomic, a call, a fence) lies between it
//!   and the first non-pure instruction of the block that uses what is computed from it, so it
//!   reads what it read before;
//! - something non-pure uses its value (a load that is dead stays, with its possible fault);
//! - no load of the same address, offset and type was marked before a write of the block (the
//!   egraph would merge the two across the write).
//!
//! `CLIFT_PURE_LOADS=0` turns the marking off (it is in the native-code cache key).

use cranelift_codegen::entity::EntitySet;
use cranelift_codegen::ir::{Function, Inst, InstructionData, Opcode, Value, ValueDef};
use std::collections::HashMap;

/// Whether the marking is on (`CLIFT_PURE_LOADS=0` turns it off).
pub(crate) fn enabled() -> bool {
    !std::env::var("CLIFT_PURE_LOADS").is_ok_and(|v| v == "0")
}

/// Whether the egraph treats `op` (with one result) as pure: Cranelift's own rule for
/// non-load instructions.
fn pure_op(op: Opcode) -> bool {
    !(op.can_load()
        || op.can_store()
        || op.is_call()
        || op.is_branch()
        || op.is_terminator()
        || op.is_return()
        || op.can_trap()
        || op.other_side_effects())
}

/// Whether `op` may write memory or otherwise order memory accesses.
fn writes(op: Opcode) -> bool {
    op.can_store() || op.is_call() || op.other_side_effects() || matches!(op, Opcode::Fence)
}

/// Marks the loads of `func` that may move to their uses (see the module docs); returns how
/// many it marked.
pub(crate) fn mark(func: &mut Function) -> usize {
    // Sets of values are bit sets over the function's values (this runs on every function
    // built, so no hashing), and one buffer takes each instruction's uses.
    let nvalues = func.dfg.num_values();
    let mut uses = Vec::new();
    // Values used outside the block that defines them (block-call arguments included).
    let mut escaping: EntitySet<Value> = EntitySet::with_capacity(nvalues);
    let def_block = |func: &Function, v: Value| match func.dfg.value_def(v) {
        ValueDef::Result(i, _) => func.layout.inst_block(i),
        ValueDef::Param(b, _) => Some(b),
        _ => None,
    };
    for block in func.layout.blocks() {
        for inst in func.layout.block_insts(block) {
            inst_uses(func, inst, &mut uses);
            for &v in &uses {
                if def_block(func, v) != Some(block) {
                    escaping.insert(v);
                }
            }
        }
    }
    let mut anchored: EntitySet<Value> = EntitySet::with_capacity(nvalues);
    let mut closure: EntitySet<Value> = EntitySet::with_capacity(nvalues);

    let mut marked = Vec::new();
    for block in func.layout.blocks() {
        let insts: Vec<Inst> = func.layout.block_insts(block).collect();
        // Values that depend on this block's parameters or on a non-pure result of it.
        anchored.clear();
        for &p in func.dfg.block_params(block) {
            anchored.insert(p);
        }
        // Marked loads by (address, offset, type) and the number of writes before them.
        let mut keys: HashMap<(Value, i32, cranelift_codegen::ir::Type), usize> = HashMap::new();
        let mut writes_seen = 0usize;
        for (pos, &inst) in insts.iter().enumerate() {
            let op = func.dfg.insts[inst].opcode();
            let results = func.dfg.inst_results(inst);
            let pure = results.len() == 1 && pure_op(op);
            inst_uses(func, inst, &mut uses);
            if !pure || uses.iter().any(|&v| anchored.contains(v)) {
                for &r in results {
                    anchored.insert(r);
                }
            }
            if writes(op) {
                writes_seen += 1;
            }
            let InstructionData::Load {
                opcode: Opcode::Load,
                arg,
                offset,
                ..
            } = func.dfg.insts[inst]
            else {
                continue;
            };
            let [loaded] = results else { continue };
            let loaded = *loaded;
            if !anchored.contains(arg) {
                continue;
            }
            // Follow the value through pure instructions of the block to the first non-pure
            // instruction that uses it.
            closure.clear();
            closure.insert(loaded);
            let mut ok = !escaping.contains(loaded);
            let mut demanded = false;
            for &later in &insts[pos + 1..] {
                if !ok {
                    break;
                }
                let lop = func.dfg.insts[later].opcode();
                inst_uses(func, later, &mut uses);
                let uses_closure = uses.iter().any(|&v| closure.contains(v));
                let lres = func.dfg.inst_results(later);
                if uses_closure && lres.len() == 1 && pure_op(lop) {
                    if escaping.contains(lres[0]) {
                        ok = false;
                    }
                    closure.insert(lres[0]);
                    continue;
                }
                if uses_closure && !demanded {
                    demanded = true;
                }
                if !demanded && writes(lop) {
                    ok = false;
                }
                // After the first demand, later pure uses must still stay in the block.
            }
            let ty = func.dfg.value_type(loaded);
            let key = (arg, i32::from(offset), ty);
            if let Some(&w) = keys.get(&key) {
                if w != writes_seen {
                    ok = false;
                }
            }
            if ok && demanded {
                keys.insert(key, writes_seen);
                marked.push(inst);
            }
        }
    }
    for &inst in &marked {
        if let InstructionData::Load { flags, .. } = func.dfg.insts[inst] {
            let data = func.dfg.mem_flags[flags].with_readonly().with_notrap().with_can_move();
            if let Ok(new) = func.dfg.mem_flags.insert(data) {
                if let InstructionData::Load { flags, .. } = &mut func.dfg.insts[inst] {
                    *flags = new;
                }
            }
        }
    }
    marked.len()
}

/// The values `inst` uses, into `out`: its arguments and the arguments of its block calls.
fn inst_uses(func: &Function, inst: Inst, out: &mut Vec<Value>) {
    out.clear();
    out.extend_from_slice(func.dfg.inst_args(inst));
    for bc in func.dfg.insts[inst].branch_destination(&func.dfg.jump_tables, &func.dfg.exception_tables) {
        for a in bc.args(&func.dfg.value_lists) {
            if let Some(v) = a.as_value() {
                out.push(v);
            }
        }
    }
}
