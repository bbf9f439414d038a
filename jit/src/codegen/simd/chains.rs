//! Long straight-line stretches of the vector body cut into blocks, so that independent
//! dependency chains interleave in the machine code.
//!
//! Cranelift's optimizer places each pure instruction where its value is first needed,
//! walking the operands of a block's side-effecting instructions and branch depth first. In a
//! block that only computes (a hash's 64 unrolled rounds on `uint4` values, one register per
//! component), the branch at its end needs component 0's final value first: the walk emits
//! component 0's whole chain, then component 1's, and so on, and the processor, whose
//! reordering window holds a few hundred instructions, runs one chain at a time at the speed
//! of its latency. Ending the block every so many instructions with a jump that passes the
//! values computed since the last cut (and still needed) as block parameters bounds the walk:
//! each new block holds a short stretch of every chain, which the processor overlaps.
//!
//! Only where a value lives changes: the parameters stand for the same values, so vector and
//! scalar results stay bit-identical. Values used after the body (a region's kept values) are
//! not known here and are simply not passed (still correct: their block dominates the rest).

use super::{Plan, Step};
use crate::codegen::layout::Id;
use rspirv::dr::Operand;
use std::collections::HashMap;

/// Cranelift instructions between two cuts when `CLIFT_SIMD_CHAIN` does not say (`0`: no cuts).
const EVERY: usize = 96;

/// Where the vector body's straight-line code is cut (see the module docs).
pub(super) struct Chains {
    /// For each value of the body, the last step that reads it (phi operands: the step where
    /// the branch or loop takes them).
    last_use: HashMap<Id, usize>,
    /// Varying values computed since the last cut, in order.
    pub(super) fresh: Vec<Id>,
    /// `num_insts` of the function at the last cut.
    pub(super) since: usize,
    /// Instructions between cuts; 0: none.
    every: usize,
    /// Cuts made.
    pub(super) cuts: usize,
}

impl Chains {
    pub(super) fn new(plan: &Plan, num_insts: usize) -> Chains {
        let every = std::env::var("CLIFT_SIMD_CHAIN")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(EVERY);
        let mut last_use = HashMap::new();
        let steps = &plan.steps;
        for (k, (inst, step)) in steps.iter().enumerate() {
            // A loop phi's value from the loop is read at the loop's end; other phis' operands
            // are read at or before the phi's own step (the merge or the exit).
            let at = match step {
                Step::LoopPhi => steps[k..]
                    .iter()
                    .position(|(_, s)| matches!(s, Step::LoopEnd { .. }))
                    .map_or(usize::MAX, |e| k + e),
                _ => k,
            };
            for o in &inst.operands {
                if let Operand::IdRef(x) = o {
                    let e = last_use.entry(*x).or_insert(at);
                    *e = (*e).max(at);
                }
            }
        }
        Chains {
            last_use,
            fresh: Vec::new(),
            since: num_insts,
            every,
            cuts: 0,
        }
    }

    /// Whether to cut before step `k`, `num_insts` instructions in: the values to pass (those
    /// computed since the last cut that a later step reads), or `None`.
    pub(super) fn due(&mut self, k: usize, num_insts: usize) -> Option<Vec<Id>> {
        if self.every == 0 || num_insts < self.since + self.every {
            return None;
        }
        let live: Vec<Id> = std::mem::take(&mut self.fresh)
            .into_iter()
            .filter(|id| self.last_use.get(id).is_some_and(|&u| u >= k))
            .collect();
        self.since = num_insts;
        Some(live)
    }
}
