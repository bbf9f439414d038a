//! Block parameters that always hold the same value as another (issue 13, register pressure).
//!
//! A loop header can receive one value through two parameters: the CTS's compare-exchange
//! rounds keep `previous = expected` in a phi of the SPIR-V while `loop copies` (`promote`)
//! hold `expected` in a Function variable, which the SSA builder makes a second parameter
//! carrying the same value around the loop. Cranelift removes a parameter whose incoming
//! values are all one value (`remove_constant_phis`), but not two parameters that are equal
//! to each other, and each then takes a register for the whole loop; with the work-item loop's
//! values live too, one more is what makes the register allocator spill a loop-carried value.
//!
//! [`merge_congruent`] runs on a finished function before Cranelift compiles it. Parameter
//! `p` of a block is replaced by
//! - the value `v` when every incoming edge passes `v` or `p` itself (`v` then dominates the
//!   block: a path to it that ends on an edge passing `p` went through the block before), or
//! - another parameter `q` of the same block when every incoming edge passes equal values for
//!   both, or `p` and `q` themselves;
//!
//! with values compared after the replacements already made, repeated until nothing changes.
//! Blocks reached through edges with non-value arguments (exception results) are left alone.

use cranelift_codegen::entity::packed_option::ReservedValue;
use cranelift_codegen::ir::{Block, BlockArg, BlockCall, Function, Inst, Value};
use std::collections::{HashMap, HashSet};

/// The value `v` stands for after the replacements in `rep`.
fn find(func: &Function, rep: &HashMap<Value, Value>, v: Value) -> Value {
    let mut v = func.dfg.resolve_aliases(v);
    while let Some(&r) = rep.get(&v) {
        v = func.dfg.resolve_aliases(r);
    }
    v
}

/// Removes the parameters of `func` equal to another value (module docs); returns how many.
pub(crate) fn merge_congruent(func: &mut Function) -> usize {
    let Some(entry) = func.layout.entry_block() else {
        return 0;
    };
    // Each block's incoming edges: (branch, index of the destination in it).
    let mut edges: HashMap<Block, Vec<(Inst, usize)>> = HashMap::new();
    let mut opaque: HashSet<Block> = HashSet::new();
    for block in func.layout.blocks() {
        for inst in func.layout.block_insts(block) {
            let dests = func.dfg.insts[inst].branch_destination(&func.dfg.jump_tables, &func.dfg.exception_tables);
            for (ix, dest) in dests.iter().enumerate() {
                let to = dest.block(&func.dfg.value_lists);
                if dest
                    .args(&func.dfg.value_lists)
                    .any(|a| !matches!(a, BlockArg::Value(_)))
                {
                    opaque.insert(to);
                }
                edges.entry(to).or_default().push((inst, ix));
            }
        }
    }
    let blocks: Vec<Block> = func
        .layout
        .blocks()
        .filter(|b| {
            *b != entry && !opaque.contains(b) && edges.contains_key(b) && !func.dfg.block_params(*b).is_empty()
        })
        .collect();
    let mut rep: HashMap<Value, Value> = HashMap::new();
    loop {
        let mut changed = false;
        for &block in &blocks {
            let params = func.dfg.block_params(block).to_vec();
            let rows: Vec<Vec<Value>> = edges[&block]
                .iter()
                .map(|&(inst, ix)| {
                    let dest =
                        &func.dfg.insts[inst].branch_destination(&func.dfg.jump_tables, &func.dfg.exception_tables)[ix];
                    dest.args(&func.dfg.value_lists)
                        .map(|a| match a {
                            BlockArg::Value(v) => find(func, &rep, v),
                            _ => Value::reserved_value(),
                        })
                        .collect()
                })
                .collect();
            if rows.iter().any(|r| r.len() != params.len()) {
                continue;
            }
            for (i, &p) in params.iter().enumerate() {
                if rep.contains_key(&p) {
                    continue;
                }
                // One value on every edge but those passing `p` itself.
                let mut only = None;
                let mut one = true;
                for row in &rows {
                    match only {
                        _ if row[i] == p => {}
                        None => only = Some(row[i]),
                        Some(v) if v == row[i] => {}
                        Some(_) => {
                            one = false;
                            break;
                        }
                    }
                }
                if let (true, Some(v)) = (one, only) {
                    rep.insert(p, v);
                    changed = true;
                    continue;
                }
                // Equal to an earlier parameter on every edge.
                let twin = params[..i].iter().enumerate().find(|&(j, q)| {
                    !rep.contains_key(q) && rows.iter().all(|row| row[i] == row[j] || (row[i] == p && row[j] == *q))
                });
                if let Some((_, &q)) = twin {
                    rep.insert(p, q);
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    if rep.is_empty() {
        return 0;
    }
    // The replacements as final values, then the edits: arguments first (the parameter
    // indices are those before any removal), then the parameters, rightmost first.
    let targets: Vec<(Value, Value)> = rep.keys().map(|&p| (p, find(func, &rep, p))).collect();
    for &block in &blocks {
        let params = func.dfg.block_params(block).to_vec();
        let drop: Vec<bool> = params.iter().map(|p| rep.contains_key(p)).collect();
        if !drop.iter().any(|d| *d) {
            continue;
        }
        for &(inst, ix) in &edges[&block] {
            let dfg = &mut func.dfg;
            let dests = dfg.insts[inst].branch_destination_mut(&mut dfg.jump_tables, &mut dfg.exception_tables);
            let call = &mut dests[ix];
            let to = call.block(&dfg.value_lists);
            let kept: Vec<BlockArg> = call
                .args(&dfg.value_lists)
                .zip(&drop)
                .filter(|(_, d)| !**d)
                .map(|(a, _)| a)
                .collect();
            *call = BlockCall::new(to, kept, &mut dfg.value_lists);
        }
        for (p, _) in params.iter().zip(&drop).filter(|(_, d)| **d).rev() {
            func.dfg.remove_block_param(*p);
        }
    }
    for &(p, v) in &targets {
        func.dfg.change_to_alias(p, v);
    }
    targets.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use cranelift_codegen::ir::{types, AbiParam, InstBuilder, Signature, UserFuncName};
    use cranelift_codegen::isa::CallConv;
    use cranelift_codegen::settings;
    use cranelift_codegen::verifier::verify_function;
    use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};

    /// `loop(a, b, c, n)`: `a` and `b` enter with one value and go round as one value, `c`
    /// enters with the same value but goes round as another; `n` counts. Returns `a + b + c`.
    fn looped(twin_back_edge: bool) -> Function {
        let mut sig = Signature::new(CallConv::SystemV);
        sig.params.push(AbiParam::new(types::I32));
        sig.params.push(AbiParam::new(types::I32));
        sig.returns.push(AbiParam::new(types::I32));
        let mut func = Function::with_name_signature(UserFuncName::default(), sig);
        let mut fcx = FunctionBuilderContext::new();
        let mut b = FunctionBuilder::new(&mut func, &mut fcx);
        let (entry, head, exit) = (b.create_block(), b.create_block(), b.create_block());
        b.append_block_params_for_function_params(entry);
        let ps: Vec<Value> = (0..4).map(|_| b.append_block_param(head, types::I32)).collect();
        let r = b.append_block_param(exit, types::I32);
        b.switch_to_block(entry);
        let (x, y) = (b.block_params(entry)[0], b.block_params(entry)[1]);
        let start = [x, x, x, y].map(BlockArg::Value);
        b.ins().jump(head, &start);
        b.switch_to_block(head);
        let next = b.ins().iadd(ps[0], ps[3]);
        let other = b.ins().imul(ps[2], ps[3]);
        let n1 = b.ins().iadd_imm_s(ps[3], -1);
        let second = if twin_back_edge { next } else { n1 };
        let back = [next, second, other, n1].map(BlockArg::Value);
        let ab = b.ins().iadd(ps[0], ps[1]);
        let abc = b.ins().iadd(ab, ps[2]);
        b.ins().brif(n1, head, &back, exit, &[BlockArg::Value(abc)]);
        b.switch_to_block(exit);
        b.ins().return_(&[r]);
        b.seal_all_blocks();
        let isa = cranelift_native::builder()
            .expect("host ISA")
            .finish(settings::Flags::new(settings::builder()))
            .expect("host ISA");
        b.finalize(isa.frontend_config());
        func
    }

    #[test]
    fn equal_parameters_become_one() {
        let flags = settings::Flags::new(settings::builder());
        let mut f = looped(true);
        // The header's twin, and the exit's parameter (one edge: one value).
        assert_eq!(merge_congruent(&mut f), 2);
        verify_function(&f, &flags).expect("valid after the merge");
        let head = f.layout.blocks().nth(1).expect("loop header");
        assert_eq!(f.dfg.block_params(head).len(), 3);
        // Different on the back edge: the header's four stay.
        let mut f = looped(false);
        assert_eq!(merge_congruent(&mut f), 1);
        verify_function(&f, &flags).expect("valid");
        let head = f.layout.blocks().nth(1).expect("loop header");
        assert_eq!(f.dfg.block_params(head).len(), 4);
    }
}
