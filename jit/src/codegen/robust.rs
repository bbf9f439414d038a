//! Robust mode (`-cl-clift-robust`, `CLIFT_ROBUST=1`): every load, store and atomic through a
//! pointer whose origin the compiler can see is checked against the memory it came from, in
//! the spirit of robust buffer access (WebGPU, seed 002): an access that does not lie wholly
//! inside that memory reads zero (a load, the old value of an atomic) or is dropped (a store,
//! the write of an atomic).
//!
//! Origins are traced through the function at compile time: a pointer comes from a kernel
//! argument (its bounds are hidden data the runtime writes after the argument block, see
//! [`robust_tail`]), from a private or `__local` variable, or from a program-scope variable
//! (their sizes are known here), through access chains, casts, copies, selects and phis that
//! agree. A pointer whose origin is not one of these (loaded from memory, a parameter of a
//! function that was not inlined, an integer made into a pointer, a phi of two different
//! buffers) is not checked: fault containment (`crate::fault`) still stops a wild access to
//! unmapped memory.
//!
//! A check is branch-free: `(addr - lo) < size - n + 1` (unsigned) selects either the address
//! or one of two scratch areas: a load out of range reads the zero area, a store writes the
//! sink. The bounds are loop-invariant loads and arithmetic that Cranelift hoists out of
//! loops. The vector loop checks a contiguous four-lane access once and takes a lane-by-lane
//! path (each lane checked) only when the four lanes are not all in range.

use super::context::Ctx;
use super::layout::{Id, Ty};
use super::robust_state::{Origin, Pre, Robust};
use super::state::FnTx;
use crate::abi::ArgKind;
use crate::spirv::module::Function;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, BlockArg, InstBuilder, MemFlagsData, Type, Value};
use rspirv::dr::Operand;
use rspirv::spirv::{Op, StorageClass};
use std::collections::HashMap;

/// Bytes of the hidden tail after an argument block of `nargs` arguments: `(lo, size)` for
/// each argument (its memory's first byte and byte count; for a `__local` argument its offset
/// in the arena and its size; zeros for values and for a NULL buffer, so that nothing fits).
pub fn robust_tail(nargs: usize) -> usize {
    16 * nargs
}

fn meet(a: Option<Origin>, b: Option<Origin>) -> Option<Origin> {
    match (a, b) {
        (None, x) | (x, None) => x,
        (Some(x), Some(y)) if x == y => Some(x),
        _ => Some(Origin::Unknown),
    }
}

impl Robust {
    /// Traces the origin of every pointer of `f`. `kernel`: the argument kinds and tail offset
    /// when `f`'s parameters are the kernel's arguments.
    pub(crate) fn analyse(cx: &Ctx, f: &Function, kernel: Option<(usize, Vec<ArgKind>)>) -> Robust {
        let mut o: HashMap<Id, Origin> = HashMap::new();
        for (k, (pid, _)) in f.params.iter().enumerate() {
            let origin = match &kernel {
                Some((_, kinds))
                    if matches!(kinds.get(k), Some(ArgKind::Global | ArgKind::Constant | ArgKind::Local)) =>
                {
                    Origin::Arg(k)
                }
                _ => Origin::Unknown,
            };
            o.insert(*pid, origin);
        }
        let of = |o: &HashMap<Id, Origin>, id: Id| -> Option<Origin> {
            if let Some(x) = o.get(&id) {
                return Some(*x);
            }
            match cx.globals.get(&id) {
                Some((_, StorageClass::Input)) => Some(Origin::Unknown),
                Some(_) => Some(Origin::Global(id)),
                None => None,
            }
        };
        let id_at = |inst: &crate::spirv::Instruction, i: usize| match inst.operands.get(i) {
            Some(Operand::IdRef(x)) => Some(*x),
            _ => None,
        };
        // Iterate to a fixed point: a loop's phi learns its back edge's origin on a later pass.
        for _ in 0..8 {
            let mut changed = false;
            for blk in &f.blocks {
                for inst in &blk.instructions {
                    let Some(r) = inst.result_id else { continue };
                    let new = match inst.opcode {
                        Op::Variable => Some(Origin::Var(r)),
                        Op::AccessChain
                        | Op::InBoundsAccessChain
                        | Op::PtrAccessChain
                        | Op::InBoundsPtrAccessChain
                        | Op::PtrCastToGeneric
                        | Op::GenericCastToPtr
                        | Op::GenericCastToPtrExplicit
                        | Op::CopyObject => id_at(inst, 0).and_then(|x| of(&o, x)),
                        Op::Bitcast => {
                            let ptr = |t: Option<Id>| {
                                t.and_then(|t| cx.layout.get(t).ok())
                                    .is_some_and(|i| matches!(i.ty, Ty::Pointer(..)))
                            };
                            let src_ty = id_at(inst, 0).and_then(|x| f_type_of(cx, f, x));
                            if ptr(inst.result_type) && ptr(src_ty) {
                                id_at(inst, 0).and_then(|x| of(&o, x))
                            } else {
                                Some(Origin::Unknown)
                            }
                        }
                        Op::Select => meet(
                            id_at(inst, 1).and_then(|x| of(&o, x)),
                            id_at(inst, 2).and_then(|x| of(&o, x)),
                        ),
                        Op::Phi => {
                            let mut acc = None;
                            let mut i = 0;
                            while i < inst.operands.len() {
                                acc = meet(acc, id_at(inst, i).and_then(|x| of(&o, x)));
                                i += 2;
                            }
                            acc
                        }
                        _ => Some(Origin::Unknown),
                    };
                    if let Some(n) = new {
                        if o.get(&r) != Some(&n) {
                            // Origins only go down the lattice (pending, origin, unknown).
                            let n = match o.get(&r) {
                                Some(old) if *old != n => Origin::Unknown,
                                _ => n,
                            };
                            if o.get(&r) != Some(&n) {
                                o.insert(r, n);
                                changed = true;
                            }
                        }
                    }
                }
            }
            if !changed {
                break;
            }
        }
        // Robust mode's two work-group functions (`robust_group`).
        let (mut proven, mut dispatch) = (HashMap::new(), None);
        if let Some((_, kinds)) = &kernel {
            match cx.rb_variant {
                super::context::Variant::Unchecked => {
                    proven = super::robust_group::plan(cx, f, kinds).proven;
                }
                super::context::Variant::Checked(target) => {
                    dispatch = Some((super::robust_group::plan(cx, f, kinds), target));
                }
                _ => {}
            }
        }
        Robust {
            origins: o,
            args: kernel,
            lane: None,
            vector_private: HashMap::new(),
            pre: None,
            proven,
            displaced: false,
            dispatch,
        }
    }

    fn origin(&self, cx: &Ctx, id: Id) -> Origin {
        if let Some(o) = self.origins.get(&id) {
            return *o;
        }
        match cx.globals.get(&id) {
            Some((_, StorageClass::Input)) | None => Origin::Unknown,
            Some(_) => Origin::Global(id),
        }
    }
}

/// The type of value `id` of `f` (its result type, or a parameter's type).
fn f_type_of(cx: &Ctx, f: &Function, id: Id) -> Option<Id> {
    if let Some((_, t)) = f.params.iter().find(|(p, _)| *p == id) {
        return Some(*t);
    }
    for blk in &f.blocks {
        for inst in &blk.instructions {
            if inst.result_id == Some(id) {
                return inst.result_type;
            }
        }
    }
    let _ = cx;
    None
}

impl FnTx<'_, '_, '_> {
    /// Loads the bounds of every argument, the scratch areas and the local arena in the
    /// work-group function's prologue (the current block), from argument block `argp`.
    pub(crate) fn rb_prologue(&mut self, argp: Value, argvals: &[super::context::ArgVal]) {
        let Some((tail, kinds)) = self.robust.as_ref().and_then(|r| r.args.clone()) else {
            return;
        };
        let flags = MemFlagsData::trusted().with_readonly();
        let arena = self
            .b
            .ins()
            .load(types::I64, flags, self.wi, super::driver::OFF_LOCAL_MEM as i32);
        let mut args = Vec::with_capacity(kinds.len());
        for (k, kind) in kinds.iter().enumerate() {
            let at = (tail + 16 * k) as i32;
            let mut lo = self.b.ins().load(types::I64, flags, argp, at);
            let size = self.b.ins().load(types::I64, flags, argp, at + 8);
            if *kind == ArgKind::Local {
                lo = self.b.ins().iadd(arena, lo);
            }
            args.push((lo, size));
        }
        let ptrs = kinds
            .iter()
            .enumerate()
            .map(|(k, kind)| match (kind, argvals.get(k)) {
                (ArgKind::Global | ArgKind::Constant, Some(super::context::ArgVal::Leaves(v))) if v.len() == 1 => {
                    use cranelift_codegen::ir::{StackSlotData, StackSlotKind};
                    let (p, lo) = (v[0], args[k].0);
                    let delta = self.b.ins().isub(p, lo);
                    let slot =
                        self.b
                            .func
                            .create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 8, 3));
                    self.b.ins().stack_store(types::I64, delta, slot, 0);
                    Some((p, slot))
                }
                _ => None,
            })
            .collect();
        let zero = self
            .b
            .ins()
            .load(types::I64, flags, self.wi, super::driver::OFF_RB_ZERO as i32);
        let sink = self
            .b
            .ins()
            .load(types::I64, flags, self.wi, super::driver::OFF_RB_SINK as i32);
        let Some(at) = self.b.func.dfg.value_def(sink).inst() else {
            return;
        };
        let dispatch = self.robust.as_mut().and_then(|r| r.dispatch.take());
        if let Some((plan, target)) = &dispatch {
            self.rb_dispatch(plan, *target, argvals, &args);
        }
        if let Some(r) = self.robust.as_mut() {
            r.pre = Some(Pre {
                args,
                ptrs,
                zero,
                sink,
                arena,
                at,
                lims: HashMap::new(),
            });
        }
    }

    /// Whether an access of `n` bytes at pointer `ptr` itself is covered by the group-level
    /// check (the unchecked work-group function leaves it unchecked).
    fn rb_covered(&self, ptr: Id, n: u64) -> bool {
        self.robust
            .as_ref()
            .is_some_and(|r| !r.displaced && r.proven.get(&ptr).is_some_and(|m| n <= *m))
    }

    /// The limit of an `n`-byte access through argument `k`: computed and stored once in the
    /// prologue, loaded here (Cranelift does not hoist it out of the work-item loops).
    fn rb_pre_lim(&mut self, k: usize, n: u64) -> Option<Value> {
        use cranelift_codegen::cursor::{Cursor, FuncCursor};
        use cranelift_codegen::ir::{StackSlotData, StackSlotKind};
        let pre = self.robust.as_mut()?.pre.as_mut()?;
        let slot = match pre.lims.get(&(k, n)) {
            Some(slot) => *slot,
            None => {
                let (_, size) = *pre.args.get(k)?;
                let slot = self
                    .b
                    .func
                    .create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 8, 3));
                let mut pos = FuncCursor::new(self.b.func).after_inst(pre.at);
                let fits = pos.ins().icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, size, n as i64);
                let lim = pos.ins().iadd_imm_s(size, 1 - n as i64);
                let zero = pos.ins().iconst(types::I64, 0);
                let lim = pos.ins().select(fits, lim, zero);
                let st = pos.ins().stack_store(types::I64, lim, slot, 0);
                pre.at = st;
                pre.lims.insert((k, n), slot);
                slot
            }
        };
        Some(self.b.ins().stack_load(types::I64, types::I64, slot, 0))
    }

    /// The argument block (robust kernels keep its address in the `WorkItem`).
    fn rb_args(&mut self) -> Value {
        let flags = MemFlagsData::trusted().with_readonly();
        self.b
            .ins()
            .load(types::I64, flags, self.wi, super::driver::OFF_ARGS as i32)
    }

    /// The bounds `(lo, size)` of the memory pointer `ptr` came from; `None` when unchecked.
    fn rb_bounds(&mut self, ptr: Id) -> Option<(Value, Value)> {
        let rb = self.robust.as_ref()?;
        let origin = rb.origin(self.cx, ptr);
        let lane = rb.lane;
        let flags = MemFlagsData::trusted().with_readonly();
        match origin {
            Origin::Unknown => None,
            Origin::Arg(k) if rb.pre.is_some() => rb.pre.as_ref().and_then(|p| p.args.get(k).copied()),
            Origin::Arg(k) => {
                let (tail, kind) = rb.args.as_ref().map(|(t, kinds)| (*t, kinds.get(k).copied()))?;
                let args = self.rb_args();
                let at = (tail + 16 * k) as i32;
                let mut lo = self.b.ins().load(types::I64, flags, args, at);
                let size = self.b.ins().load(types::I64, flags, args, at + 8);
                if kind == Some(ArgKind::Local) {
                    let arena = self.b.ins().load(
                        types::I64,
                        MemFlagsData::trusted(),
                        self.wi,
                        super::driver::OFF_LOCAL_MEM as i32,
                    );
                    lo = self.b.ins().iadd(arena, lo);
                }
                Some((lo, size))
            }
            Origin::Var(id) => {
                if let Some((base, stride)) = rb.vector_private.get(&id).copied() {
                    // The vector loop's four copies: the lane's own, or all four.
                    return Some(match lane {
                        Some(l) => {
                            let lo = self.b.ins().iadd_imm_s(base, (l as u64 * stride) as i64);
                            (lo, self.b.ins().iconst(types::I64, stride as i64))
                        }
                        None => (base, self.b.ins().iconst(types::I64, (stride * 4) as i64)),
                    });
                }
                let ty = self.vtys.get(&id).copied()?;
                let size = match self.cx.layout.get(ty).ok()?.ty {
                    Ty::Pointer(_, p) => self.cx.layout.get(p).ok()?.size,
                    _ => return None,
                };
                let lo = self.val1(id).ok()?;
                Some((lo, self.b.ins().iconst(types::I64, size as i64)))
            }
            Origin::Global(id) => {
                let (pointee, _) = *self.cx.globals.get(&id)?;
                let size = self.cx.layout.get(pointee).ok()?.size;
                let arena = rb.pre.as_ref().map(|p| p.arena);
                let lo = match (self.cx.local_offsets.get(&id), arena) {
                    (Some(off), Some(arena)) => self.b.ins().iadd_imm_s(arena, *off as i64),
                    _ => self.global_addr(id).ok()?,
                };
                Some((lo, self.b.ins().iconst(types::I64, size as i64)))
            }
        }
    }

    /// Whether the `n` bytes at `addr` lie inside the memory `ptr` came from (an `I8`
    /// boolean); `None` when robust mode is off or the access is not checked.
    pub(crate) fn rb_ok(&mut self, ptr: Id, addr: Value, n: u64) -> Option<Value> {
        if self.rb_covered(ptr, n) {
            return None;
        }
        let (lo, size) = self.rb_bounds(ptr)?;
        let arg = match self.robust.as_ref().map(|r| r.origin(self.cx, ptr)) {
            Some(Origin::Arg(k)) => Some(k),
            _ => None,
        };
        if let Some(lim) = arg.and_then(|k| self.rb_pre_lim(k, n)) {
            let ptr = arg.and_then(|k| {
                let pre = self.robust.as_ref()?.pre.as_ref()?;
                pre.ptrs.get(k).copied().flatten()
            });
            let off = match ptr {
                Some((p, slot)) => {
                    let x = self.b.ins().isub(addr, p);
                    let delta = self.b.ins().stack_load(types::I64, types::I64, slot, 0);
                    self.b.ins().iadd(x, delta)
                }
                None => self.b.ins().isub(addr, lo),
            };
            return Some(self.b.ins().icmp(IntCC::UnsignedLessThan, off, lim));
        }
        // lim = size - n + 1 when size >= n, else 0 (nothing fits): ok = (addr - lo) < lim.
        let fits = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, size, n as i64);
        let lim = self.b.ins().iadd_imm_s(size, 1 - n as i64);
        let zero = self.b.ins().iconst(types::I64, 0);
        let lim = self.b.ins().select(fits, lim, zero);
        let off = self.b.ins().isub(addr, lo);
        Some(self.b.ins().icmp(IntCC::UnsignedLessThan, off, lim))
    }

    /// The scratch area a failed check redirects to: the zero area for loads, the sink for
    /// stores (their addresses are in the `WorkItem`).
    fn rb_scratch(&mut self, store: bool) -> Value {
        if let Some(p) = self.robust.as_ref().and_then(|r| r.pre.as_ref()) {
            return if store { p.sink } else { p.zero };
        }
        let flags = MemFlagsData::trusted().with_readonly();
        let off = if store {
            super::driver::OFF_RB_SINK
        } else {
            super::driver::OFF_RB_ZERO
        };
        self.b.ins().load(types::I64, flags, self.wi, off as i32)
    }

    /// `addr` when its `n` bytes are inside the memory `ptr` came from (or unchecked), else
    /// the zero area (a load) or the sink (a store).
    pub(crate) fn rb_addr(&mut self, ptr: Id, addr: Value, n: u64, store: bool) -> Value {
        match self.rb_ok(ptr, addr, n) {
            Some(ok) => {
                let s = self.rb_scratch(store);
                self.b.ins().select(ok, addr, s)
            }
            None => addr,
        }
    }

    /// As [`Self::rb_addr`] for an address `ptr` plus an offset (`vload`/`vstore`).
    pub(crate) fn rb_addr_displaced(&mut self, ptr: Id, addr: Value, n: u64, store: bool) -> Value {
        let saved = self.robust.as_mut().map(|r| std::mem::replace(&mut r.displaced, true));
        let a = self.rb_addr(ptr, addr, n, store);
        if let (Some(r), Some(d)) = (self.robust.as_mut(), saved) {
            r.displaced = d;
        }
        a
    }

    /// As [`Self::rb_addr`] for lane `l` of the vector loop.
    pub(crate) fn rb_lane_addr(&mut self, ptr: Id, addr: Value, n: u64, store: bool, l: usize) -> Value {
        if self.robust.is_none() {
            return addr;
        }
        let saved = self.robust.as_mut().and_then(|r| r.lane.replace(l));
        let a = self.rb_addr(ptr, addr, n, store);
        if let Some(r) = self.robust.as_mut() {
            r.lane = saved;
        }
        a
    }

    /// [`Self::rb_lane_addr`] of each of the four lanes' addresses.
    pub(crate) fn rb_quad(&mut self, ptr: Id, addrs: [Value; 4], n: u64, store: bool) -> [Value; 4] {
        if self.robust.is_none() {
            return addrs;
        }
        let mut out = addrs;
        for (l, a) in out.iter_mut().enumerate() {
            *a = self.rb_lane_addr(ptr, *a, n, store, l);
        }
        out
    }

    /// An atomic's address: checked like a store (the sink), with the boolean to zero its
    /// result with when it was out of range.
    pub(crate) fn rb_atomic(&mut self, ptr: Id, addr: Value, n: u64) -> (Value, Option<Value>) {
        match self.rb_ok(ptr, addr, n) {
            Some(ok) => {
                let s = self.rb_scratch(true);
                (self.b.ins().select(ok, addr, s), Some(ok))
            }
            None => (addr, None),
        }
    }

    /// A copy of a run-time `n` bytes: `n`, or 0 when either side is out of range (a copy
    /// partly out of range is dropped whole).
    pub(crate) fn rb_copy_len(&mut self, dst: (Id, Value), src: (Id, Value), n: Value) -> Value {
        let mut ok: Option<Value> = None;
        for (p, a) in [dst, src] {
            if let Some((lo, size)) = self.rb_bounds(p) {
                // off <= size && n <= size - off
                let off = self.b.ins().isub(a, lo);
                let in1 = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, off, size);
                let room = self.b.ins().isub(size, off);
                let in2 = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, n, room);
                let both = self.b.ins().band(in1, in2);
                ok = Some(match ok {
                    Some(o) => self.b.ins().band(o, both),
                    None => both,
                });
            }
        }
        match ok {
            Some(ok) => {
                let zero = self.b.ins().iconst(types::I64, 0);
                self.b.ins().select(ok, n, zero)
            }
            None => n,
        }
    }

    /// The vector loop's load of four consecutive `t` lanes at `base` as one `vt` vector:
    /// checked once, lane by lane when the four are not all in range.
    pub(crate) fn rb_vector_load(&mut self, ptr: Id, base: Value, vt: Type, t: Type) -> Value {
        let flags = MemFlagsData::new();
        let bytes = t.bytes() as u64;
        // Four work-items' accesses at `ptr`: covered when each one's is.
        let ok = match self.rb_covered(ptr, bytes) {
            true => None,
            false => self.rb_ok(ptr, base, bytes * 4),
        };
        let Some(ok) = ok else {
            return self.b.ins().load(vt, flags, base, 0);
        };
        let (fast, slow, join) = (self.b.create_block(), self.b.create_block(), self.b.create_block());
        let v = self.b.append_block_param(join, vt);
        self.b.ins().brif(ok, fast, &[], slow, &[]);
        self.b.seal_block(fast);
        self.b.seal_block(slow);
        self.b.switch_to_block(fast);
        let x = self.b.ins().load(vt, flags, base, 0);
        self.b.ins().jump(join, &[BlockArg::Value(x)]);
        self.b.switch_to_block(slow);
        let mut acc: Option<Value> = None;
        for l in 0..4usize {
            let a = self.b.ins().iadd_imm_s(base, (l as u64 * bytes) as i64);
            let a = self.rb_lane_addr(ptr, a, bytes, false, l);
            let x = self.b.ins().load(t, flags, a, 0);
            acc = Some(match acc {
                None => self.b.ins().splat(vt, x),
                Some(v) => self.b.ins().insertlane(v, x, l as u8),
            });
        }
        let y = acc.unwrap_or(x);
        self.b.ins().jump(join, &[BlockArg::Value(y)]);
        self.b.seal_block(join);
        self.b.switch_to_block(join);
        v
    }

    /// The vector loop's store of vector `v` (four `t` lanes) at `base`: checked once, lane
    /// by lane when the four are not all in range.
    pub(crate) fn rb_vector_store(&mut self, ptr: Id, base: Value, v: Value, t: Type) {
        let flags = MemFlagsData::new();
        let bytes = t.bytes() as u64;
        let ok = match self.rb_covered(ptr, bytes) {
            true => None,
            false => self.rb_ok(ptr, base, bytes * 4),
        };
        let Some(ok) = ok else {
            self.b.ins().store(flags, v, base, 0);
            return;
        };
        let (fast, slow, join) = (self.b.create_block(), self.b.create_block(), self.b.create_block());
        self.b.ins().brif(ok, fast, &[], slow, &[]);
        self.b.seal_block(fast);
        self.b.seal_block(slow);
        self.b.switch_to_block(fast);
        self.b.ins().store(flags, v, base, 0);
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(slow);
        let vt = self.b.func.dfg.value_type(v);
        for l in 0..4usize {
            let a = self.b.ins().iadd_imm_s(base, (l as u64 * bytes) as i64);
            let a = self.rb_lane_addr(ptr, a, bytes, true, l);
            let lane_t = vt.lane_type();
            let x = self.b.ins().extractlane(v, l as u8);
            debug_assert_eq!(lane_t.bytes(), t.bytes());
            self.b.ins().store(flags, x, a, 0);
        }
        self.b.ins().jump(join, &[]);
        self.b.seal_block(join);
        self.b.switch_to_block(join);
    }

    /// The vector loop made four copies of private variable `id` at `base`, `stride` bytes
    /// apart.
    pub(crate) fn rb_vector_private(&mut self, id: Id, base: Value, stride: u64) {
        if let Some(r) = self.robust.as_mut() {
            r.vector_private.insert(id, (base, stride));
        }
    }

    /// The vector loop translates one lane (`Some`) or all four at once (`None`).
    pub(crate) fn rb_set_lane(&mut self, lane: Option<usize>) {
        if let Some(r) = self.robust.as_mut() {
            r.lane = lane;
        }
    }

    /// The scalar translation defines private variable `id` (one copy).
    pub(crate) fn rb_scalar_private(&mut self, id: Id) {
        if let Some(r) = self.robust.as_mut() {
            r.vector_private.remove(&id);
        }
    }
}

/// The argument kinds and tail offset of a kernel whose argument block is `args_size` bytes
/// (before the tail).
pub(crate) fn kernel_shape(args: &[crate::abi::KernelArg], args_size: usize) -> (usize, Vec<ArgKind>) {
    (args_size, args.iter().map(|a| a.kind).collect())
}

/// The argument shape of `f` when it is a kernel's function that no other function calls (the
/// fiber fallback translates it as a function of its own, whose parameters are then the
/// kernel's arguments); `None` otherwise.
pub(crate) fn kernel_of(cx: &Ctx, f: &Function) -> Result<Option<(usize, Vec<ArgKind>)>, super::CompileError> {
    let m = cx.m;
    let entry = m
        .entry_points
        .iter()
        .any(|ep| ep.function == f.id && ep.model == rspirv::spirv::ExecutionModel::Kernel);
    let called = m.functions.iter().any(|g| {
        g.blocks.iter().any(|b| {
            b.instructions.iter().any(|i| {
                i.opcode == Op::FunctionCall && matches!(i.operands.first(), Some(Operand::IdRef(c)) if *c == f.id)
            })
        })
    });
    if !entry || called {
        return Ok(None);
    }
    let (args, size) = super::context::kernel_args(cx, f)?;
    Ok(Some(kernel_shape(&args, size)))
}
