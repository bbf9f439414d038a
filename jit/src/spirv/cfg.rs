//! Control-flow graph of a function and its dominator tree (Cooper, Harvey
//! and Kennedy, "A Simple, Fast Dominance Algorithm"). Blocks are numbered in
//! the function's block order; nothing here depends on that order being a
//! dominance order (llvm-spirv writes loop exits before loop bodies).

use super::module::{Function, Id};
use rspirv::dr::Operand;
use rspirv::spirv::Op;
use std::collections::HashMap;

/// A branch whose target is not a block of the function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadTarget {
    /// Index of the block whose terminator names the target.
    pub block: usize,
    pub target: Id,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cfg {
    /// Label of each block.
    pub labels: Vec<Id>,
    /// Block index of each label.
    pub index: HashMap<Id, usize>,
    /// Successor block indices (terminator targets, duplicates removed).
    pub succs: Vec<Vec<usize>>,
    /// Predecessor block indices.
    pub preds: Vec<Vec<usize>>,
    /// Reverse postorder number of each reachable block; `None` when the
    /// block cannot be reached from the entry block.
    pub rpo_number: Vec<Option<usize>>,
    /// Immediate dominator of each reachable block (the entry is its own).
    pub idom: Vec<Option<usize>>,
}

/// Labels a terminator branches to.
pub fn branch_targets(opcode: Op, operands: &[Operand]) -> Vec<Id> {
    let id = |k: usize| match operands.get(k) {
        Some(Operand::IdRef(v)) => Some(*v),
        _ => None,
    };
    match opcode {
        Op::Branch => id(0).into_iter().collect(),
        Op::BranchConditional => id(1).into_iter().chain(id(2)).collect(),
        Op::Switch => operands
            .iter()
            .skip(1)
            .filter_map(|o| match o {
                Operand::IdRef(v) => Some(*v),
                _ => None,
            })
            .collect(),
        _ => vec![],
    }
}

impl Cfg {
    /// Builds the graph of `f` and its dominators. Branches to ids that are
    /// not blocks of `f` are reported (the first one).
    pub fn new(f: &Function) -> Result<Cfg, BadTarget> {
        let n = f.blocks.len();
        let labels: Vec<Id> = f.blocks.iter().map(|b| b.label).collect();
        let index: HashMap<Id, usize> = labels.iter().enumerate().map(|(k, l)| (*l, k)).collect();
        let mut succs = vec![vec![]; n];
        let mut preds = vec![vec![]; n];
        for (k, b) in f.blocks.iter().enumerate() {
            if let Some(t) = b.instructions.last() {
                for target in branch_targets(t.opcode, &t.operands) {
                    let s = match index.get(&target) {
                        Some(s) => *s,
                        None => return Err(BadTarget { block: k, target }),
                    };
                    if !succs[k].contains(&s) {
                        succs[k].push(s);
                        preds[s].push(k);
                    }
                }
            }
        }
        // Postorder by iterative DFS from the entry block.
        let mut post: Vec<usize> = Vec::with_capacity(n);
        let mut seen = vec![false; n];
        if n > 0 {
            let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
            seen[0] = true;
            while let Some((b, k)) = stack.pop() {
                if k < succs[b].len() {
                    stack.push((b, k + 1));
                    let s = succs[b][k];
                    if !seen[s] {
                        seen[s] = true;
                        stack.push((s, 0));
                    }
                } else {
                    post.push(b);
                }
            }
        }
        let mut rpo_number = vec![None; n];
        let rpo: Vec<usize> = post.iter().rev().copied().collect();
        for (k, b) in rpo.iter().enumerate() {
            rpo_number[*b] = Some(k);
        }
        // Cooper-Harvey-Kennedy: iterate idom over reverse postorder until
        // nothing changes.
        let mut idom: Vec<Option<usize>> = vec![None; n];
        if n > 0 {
            idom[0] = Some(0);
        }
        let intersect = |idom: &[Option<usize>], mut a: usize, mut b: usize| -> usize {
            while a != b {
                while rpo_number[a] > rpo_number[b] {
                    a = idom[a].unwrap_or(0);
                }
                while rpo_number[b] > rpo_number[a] {
                    b = idom[b].unwrap_or(0);
                }
            }
            a
        };
        let mut changed = true;
        while changed {
            changed = false;
            for &b in rpo.iter().skip(1) {
                let mut new: Option<usize> = None;
                for &p in &preds[b] {
                    if idom[p].is_none() {
                        continue;
                    }
                    new = Some(match new {
                        None => p,
                        Some(cur) => intersect(&idom, p, cur),
                    });
                }
                if new.is_some() && idom[b] != new {
                    idom[b] = new;
                    changed = true;
                }
            }
        }
        Ok(Cfg {
            labels,
            index,
            succs,
            preds,
            rpo_number,
            idom,
        })
    }

    pub fn reachable(&self, b: usize) -> bool {
        self.rpo_number.get(b).map(|r| r.is_some()).unwrap_or(false)
    }

    /// Whether block `a` dominates block `b` (both reachable; every block
    /// dominates itself).
    pub fn dominates(&self, a: usize, b: usize) -> bool {
        if !self.reachable(a) || !self.reachable(b) {
            return false;
        }
        let mut x = b;
        loop {
            if x == a {
                return true;
            }
            match self.idom[x] {
                Some(p) if p != x => x = p,
                _ => return false,
            }
        }
    }
}
