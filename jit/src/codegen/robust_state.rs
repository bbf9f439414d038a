//! Robust mode's data (`robust`, `robust_group`): the origins and prologue values of the
//! function being translated, and the plan of a kernel body's group-level check.

use super::layout::Id;
use crate::abi::ArgKind;
use cranelift_codegen::ir::Value;
use rspirv::spirv::BuiltIn;
use std::collections::HashMap;

/// Where a pointer comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Origin {
    /// Kernel argument `k` (a global, constant or local pointer).
    Arg(usize),
    /// A Function-storage variable of this function.
    Var(Id),
    /// A program-scope variable (CrossWorkgroup, UniformConstant or Workgroup storage).
    Global(Id),
    Unknown,
}

/// Robust mode's state for the function being translated.
pub(crate) struct Robust {
    pub origins: HashMap<Id, Origin>,
    /// The kernel's argument kinds and the tail's offset in the argument block, when the
    /// function's parameters are the kernel's arguments.
    pub args: Option<(usize, Vec<ArgKind>)>,
    /// The lane the vector loop is translating one lane at a time, if any.
    pub lane: Option<usize>,
    /// Private variables the vector loop keeps four copies of: lane 0's base and the stride.
    pub vector_private: HashMap<Id, (Value, u64)>,
    /// Loaded once in the work-group function's prologue (loads are not hoisted out of
    /// loops): each argument's `(lo, size)`, the zero area, the sink and the local arena.
    pub pre: Option<Pre>,
    /// The unchecked work-group function (`robust_group`): the pointers whose accesses the
    /// group-level check covers, with the bytes it covers at each.
    pub proven: HashMap<Id, u64>,
    /// The address being checked is not the pointer's own (`vload`/`vstore` at an offset).
    pub displaced: bool,
    /// The checked work-group function: the group-level check and the unchecked function.
    pub dispatch: Option<(Plan, cranelift_module::FuncId)>,
}

pub(crate) struct Pre {
    pub args: Vec<(Value, Value)>,
    /// Per `__global`/`__constant` argument: its pointer value as the kernel sees it and a
    /// stack slot holding `pointer - lo`, so that an access `pointer + x` is checked as
    /// `x + (pointer - lo)`: the same bits as `addr - lo`, but Cranelift folds
    /// `(pointer + x) - pointer` to `x`, and the loaded difference is not recomputed (nor `lo`
    /// reloaded) in the loop.
    pub ptrs: Vec<Option<(Value, cranelift_codegen::ir::StackSlot)>>,
    pub zero: Value,
    pub sink: Value,
    pub arena: Value,
    /// The prologue's last instruction: per-access limits are computed after it.
    pub at: cranelift_codegen::ir::Inst,
    /// `(argument, access bytes)` -> the stack slot holding its limit (`size - n + 1`, or 0
    /// when nothing fits), stored in the prologue. Not a value: Cranelift rematerialises
    /// `size - n + 1` (an add of a constant) at every use, and the `select` with it, so a
    /// limit kept as a value is recomputed inside the work-item loops.
    pub lims: HashMap<(usize, u64), cranelift_codegen::ir::StackSlot>,
}

/// An integer value of the kernel as an interval over the group.
#[derive(Clone, Debug)]
pub(crate) enum Node {
    Const(u64),
    /// Any value from 0 to this (a masked or reduced value the check cannot follow).
    Upto(u64),
    /// Kernel argument `k` (a by-value integer).
    Param(usize),
    /// Component `d` of a builtin vector.
    Builtin(BuiltIn, u32),
    Add(usize, usize),
    Sub(usize, usize),
    Mul(usize, usize),
    MulC(usize, u64),
    Shr(usize, u32),
    DivC(usize, u64),
    RemC(usize, u64),
    AndC(usize, u64),
    /// The value, checked to be below 2^bits.
    Fits(usize, u32),
    /// One of these values.
    Hull(Vec<usize>),
    /// A loop counter (module docs); `signed`: its bound is compared signed.
    Induction {
        init: usize,
        step: usize,
        bound: usize,
        signed: bool,
    },
}

/// Where an access's memory is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Root {
    /// Kernel argument `k` (a global, constant or local pointer).
    Arg(usize),
    /// A `__local` program-scope variable.
    Local(Id),
}

/// `sum(node * stride)`: an index's terms.
pub(crate) type Terms = Vec<(usize, u64)>;

/// All accesses through `root` at `sum(node * stride)` plus a constant between `cmin` and
/// `end - n` bytes: they lie in `[root + cmin + lo, root + end + hi)`.
#[derive(Clone, Debug)]
pub(crate) struct Check {
    pub root: Root,
    pub terms: Terms,
    pub cmin: i64,
    pub end: i64,
}

/// What the group-level check of a kernel body covers.
#[derive(Default)]
pub(crate) struct Plan {
    /// Nodes, operands first; `(node, SPIR-V width)`.
    pub nodes: Vec<(Node, u32)>,
    pub checks: Vec<Check>,
    /// The pointers whose accesses the check covers, with their pointee's bytes (an access of
    /// at most that many bytes at the pointer itself is covered).
    pub proven: HashMap<Id, u64>,
}

impl Plan {
    pub(crate) fn is_empty(&self) -> bool {
        self.proven.is_empty()
    }
}
