//! OpenCL.std extended instructions: the cheap ones inline (component by component), the rest
//! as calls to the math library (`clift_<name>_<f32|f64>`, one call per component).

use super::layout::{load_leaves, store_leaves};
use super::layout::{Scalar, Ty};
use super::state::{op_id, op_lit, result, FnTx, R};
use super::CompileError;
use crate::spirv::grammar;
use crate::spirv::Instruction;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types, InstBuilder, Value};

/// The rounding mode of `vstore_half*_r` (`name`), round to nearest even for the other forms.
/// It is a literal FPRoundingMode; rspirv has no operand table for OpenCL.std and hands it
/// over as an IdRef word.
pub(crate) fn vstore_rounding_mode(inst: &Instruction, name: &str) -> i32 {
    if !name.ends_with("_r") {
        return super::helpers::RTE;
    }
    match inst.operands.last() {
        Some(rspirv::dr::Operand::FPRoundingMode(m)) => *m as i32,
        Some(rspirv::dr::Operand::IdRef(v) | rspirv::dr::Operand::LiteralBit32(v)) => *v as i32,
        _ => super::helpers::RTE,
    }
}

impl FnTx<'_, '_, '_> {
    /// OpenCL fmin/fmax: when one operand is NaN the other is returned.
    fn fminmax(&mut self, x: Value, y: Value, max: bool) -> Value {
        let m = if max {
            self.b.ins().fmax(x, y)
        } else {
            self.b.ins().fmin(x, y)
        };
        let xn = self.b.ins().fcmp(FloatCC::Unordered, x, x);
        let yn = self.b.ins().fcmp(FloatCC::Unordered, y, y);
        let r = self.b.ins().select(yn, x, m);
        self.b.ins().select(xn, y, r)
    }

    fn fconst(&mut self, t: cranelift_codegen::ir::Type, v: f64) -> Value {
        if t == types::F64 {
            self.b.ins().f64const(v)
        } else {
            self.b.ins().f32const(v as f32)
        }
    }

    /// vload/vstore operands: an integer offset and a pointer.
    fn check_offset_and_pointer(&self, inst: &Instruction, off: Value, p: Value) -> R {
        let dfg = &self.b.func.dfg;
        if !dfg.value_type(off).is_int() || dfg.value_type(p) != types::I64 {
            return Err(self.err(inst, "expects an integer offset and a pointer"));
        }
        Ok(())
    }

    pub fn ext_inst(&mut self, inst: &Instruction) -> R {
        let (r, ty) = result(inst)?;
        let set = op_id(inst, 0)?;
        let num = op_lit(inst, 1)?;
        let set_name = self.cx.ext_sets.get(&set).cloned().unwrap_or_default();
        if set_name != "OpenCL.std" {
            return Err(self.err(inst, &format!("extended instruction set {set_name:?} is not supported")));
        }
        let name = grammar::ext_inst_by_number("OpenCL.std", num)
            .map(|g| g.opname.to_string())
            .ok_or_else(|| self.err(inst, &format!("unknown OpenCL.std instruction {num}")))?;
        let arg_ids: Vec<u32> = (2..inst.operands.len()).map(|i| op_id(inst, i)).collect::<R<_>>()?;
        let arg_id = |i: usize| {
            arg_ids
                .get(i)
                .copied()
                .ok_or_else(|| CompileError::new(format!("{}: operand {} is missing", inst.describe(), i + 3)))
        };
        let rinfo = self.cx.layout.get(ty)?.clone();
        let rs = self.cx.layout.scalar_of(ty);
        // Memory-shaped instructions first.
        match name.as_str() {
            "vloadn" | "vload_half" | "vload_halfn" | "vloada_halfn" => {
                let off = self.val1(arg_id(0)?)?;
                let p = self.val1(arg_id(1)?)?;
                self.check_offset_and_pointer(inst, off, p)?;
                let off = self.int_resize(off, types::I64, false);
                if name != "vloadn" && !matches!(rs, Some(Scalar::Float(_))) {
                    return Err(self.err(inst, "the result must be floating-point"));
                }
                let n = match rinfo.ty {
                    Ty::Vector(_, n) => n,
                    _ => 1,
                };
                let (elem_bytes, half) = if name == "vloadn" {
                    (rs.map(|s| s.bytes()).unwrap_or(4), false)
                } else {
                    (2, true)
                };
                let group = if name == "vloada_halfn" && n == 3 { 4 } else { n };
                let scaled = self.b.ins().imul_imm_s(off, (group * elem_bytes) as i64);
                let addr = self.b.ins().iadd(p, scaled);
                let addr = self.rb_addr_displaced(arg_id(1)?, addr, (n * elem_bytes) as u64, false);
                if !half {
                    if let Some(sh) = self.simd_shape(ty) {
                        if let Some(regs) = self.simd_load(sh, addr, 0) {
                            self.def_simd(r, ty, sh, regs);
                            return Ok(());
                        }
                    }
                }
                let mut out = Vec::new();
                for i in 0..n {
                    if half {
                        let h = self.b.ins().load(
                            types::I16,
                            cranelift_codegen::ir::MemFlagsData::new(),
                            addr,
                            (i * 2) as i32,
                        );
                        let to = rs.unwrap_or(Scalar::Float(32));
                        out.push(self.float_to_float(h, Scalar::Float(16), to, 0)?);
                    } else {
                        let t = rs.map(|s| s.clif()).unwrap_or(types::I32);
                        out.push(self.b.ins().load(
                            t,
                            cranelift_codegen::ir::MemFlagsData::new(),
                            addr,
                            (i * elem_bytes) as i32,
                        ));
                    }
                }
                self.def(r, ty, out);
                return Ok(());
            }
            "vstoren" | "vstore_half" | "vstore_half_r" | "vstore_halfn" | "vstore_halfn_r" | "vstorea_halfn"
            | "vstorea_halfn_r" => {
                let dty = self.ty_of(arg_id(0)?)?;
                let (ds, n) = self.cx.layout.shape(dty).map_err(|e| self.err(inst, &e.message))?;
                let data = self.val(arg_id(0)?)?;
                let off = self.val1(arg_id(1)?)?;
                let p = self.val1(arg_id(2)?)?;
                self.check_offset_and_pointer(inst, off, p)?;
                let off = self.int_resize(off, types::I64, false);
                let half = name != "vstoren";
                if half && !matches!(ds, Scalar::Float(_)) {
                    return Err(self.err(inst, "the data must be floating-point"));
                }
                let mode = vstore_rounding_mode(inst, &name);
                let eb = if half { 2 } else { ds.bytes() };
                let group = if name.starts_with("vstorea") && n == 3 { 4 } else { n };
                let scaled = self.b.ins().imul_imm_s(off, (group * eb) as i64);
                let addr = self.b.ins().iadd(p, scaled);
                let addr = self.rb_addr_displaced(arg_id(2)?, addr, (n as u64) * u64::from(eb), true);
                if let Some((sh, regs)) = self.vec_of(arg_id(0)?)? {
                    if !half {
                        if self.simd_store(sh, &regs, addr, 0) {
                            return Ok(());
                        }
                    } else if sh.s == Scalar::Float(32) {
                        self.store_f32_as_halves(&regs, n as usize, mode, addr);
                        return Ok(());
                    }
                }
                for (i, v) in data.iter().enumerate() {
                    let v = if half {
                        self.float_to_float(*v, ds, Scalar::Float(16), mode)?
                    } else {
                        *v
                    };
                    self.b.ins().store(
                        cranelift_codegen::ir::MemFlagsData::new(),
                        v,
                        addr,
                        (i as u32 * eb) as i32,
                    );
                }
                let _ = (load_leaves, store_leaves);
                return Ok(());
            }
            _ => {}
        }
        // printf and prefetch have no per-component shape.
        match name.as_str() {
            "prefetch" => return Ok(()),
            "printf" => return self.printf(inst, r, ty, &arg_ids),
            _ => {}
        }
        let args: Vec<Vec<Value>> = arg_ids.iter().map(|a| self.val(*a)).collect::<R<_>>()?;
        let n = rinfo.leaves.len();
        if args.is_empty() {
            return Err(self.err(inst, "missing operands"));
        }
        // Whole-vector instructions.
        match name.as_str() {
            "cross" | "distance" | "length" | "normalize" | "fast_distance" | "fast_length" | "fast_normalize" => {
                let aty = self.ty_of(arg_id(0)?)?;
                let s = self
                    .cx
                    .layout
                    .scalar_of(aty)
                    .ok_or_else(|| self.err(inst, "operand is not a float scalar or vector"))?;
                if !matches!(s, Scalar::Float(_)) {
                    return Err(self.err(inst, "operand is not a float scalar or vector"));
                }
                let out = self.geometric(&name, &args, s)?;
                if out.len() != n {
                    return Err(self.err(inst, "result type does not match the operands"));
                }
                self.def(r, ty, out);
                return Ok(());
            }
            "shuffle" | "shuffle2" => {
                let (srcs, mask) = args.split_at(args.len() - 1);
                if mask[0].len() != n || srcs.is_empty() {
                    return Err(self.err(inst, "result type does not match the mask"));
                }
                let out = self.shuffle(srcs, &mask[0]);
                self.def(r, ty, out);
                return Ok(());
            }
            _ => {}
        }
        let s = rs.ok_or_else(|| self.err(inst, "result is not a scalar or vector"))?;
        let base = name
            .strip_prefix("native_")
            .or_else(|| name.strip_prefix("half_"))
            .unwrap_or(&name)
            .to_string();
        let is_half = s == Scalar::Float(16);
        if self.simd_builtin(&base, r, ty, &arg_ids)? {
            return Ok(());
        }
        let inline_float = matches!(
            base.as_str(),
            "fabs"
                | "fma"
                | "mad"
                | "sqrt"
                | "rsqrt"
                | "floor"
                | "ceil"
                | "trunc"
                | "rint"
                | "round"
                | "fmin"
                | "fmax"
                | "fmin_common"
                | "fmax_common"
                | "copysign"
                | "mix"
                | "step"
                | "smoothstep"
                | "degrees"
                | "radians"
                | "sign"
                | "fclamp"
                | "divide"
                | "recip"
        ) || (super::mathfn::common::exact(&base) && !is_half);
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            // Lane `i` of every argument (scalars broadcast).
            let mut la: Vec<Value> = Vec::with_capacity(args.len());
            for v in &args {
                let x = if v.len() == 1 { v.first() } else { v.get(i) };
                la.push(*x.ok_or_else(|| self.err(inst, "operand sizes do not match the result"))?);
            }
            if inline_float {
                if is_half {
                    // Halves: computed in f32 (f64 for fma/mad) and rounded back once.
                    let wide = if matches!(base.as_str(), "fma" | "mad") {
                        Scalar::Float(64)
                    } else {
                        Scalar::Float(32)
                    };
                    for v in la.iter_mut() {
                        *v = self.float_to_float(*v, s, wide, 0)?;
                    }
                    let v = self.float_inline(&base, &la);
                    out.push(self.float_to_float(v, wide, s, 0)?);
                } else {
                    out.push(self.float_inline(&base, &la));
                }
                continue;
            }
            if matches!(s, Scalar::Float(32) | Scalar::Float(64)) {
                if let Some(v) = self.math_inline(&base, la[0])? {
                    out.push(v);
                    continue;
                }
            }
            if s == Scalar::Float(32) && la.len() == 2 {
                if let Some(v) = super::mathfn::emit2(&mut self.b, &base, la[0], la[1]) {
                    out.push(v);
                    continue;
                }
            }
            // ldexp and ilogb of a float or double (a half is I16 bits: the library).
            let exponent = match (base.as_str(), la.as_slice()) {
                ("ldexp", [x, n]) => super::mathfn::ldexp(&mut self.b, *x, *n),
                ("ilogb", [x]) if s == Scalar::Int(32) => super::mathfn::ilogb(&mut self.b, *x),
                _ => None,
            };
            if let Some(v) = exponent {
                out.push(v);
                continue;
            }
            let a = |k: usize| la.get(k).copied().unwrap_or(la[0]);
            let v = match base.as_str() {
                "s_abs" | "u_abs" => {
                    if base == "s_abs" {
                        self.b.ins().iabs(a(0))
                    } else {
                        a(0)
                    }
                }
                "s_abs_diff" => {
                    let hi = self.b.ins().smax(a(0), a(1));
                    let lo = self.b.ins().smin(a(0), a(1));
                    self.b.ins().isub(hi, lo)
                }
                "u_abs_diff" => {
                    let hi = self.b.ins().umax(a(0), a(1));
                    let lo = self.b.ins().umin(a(0), a(1));
                    self.b.ins().isub(hi, lo)
                }
                "s_max" => self.b.ins().smax(a(0), a(1)),
                "s_min" => self.b.ins().smin(a(0), a(1)),
                "u_max" => self.b.ins().umax(a(0), a(1)),
                "u_min" => self.b.ins().umin(a(0), a(1)),
                "s_clamp" => {
                    let m = self.b.ins().smax(a(0), a(1));
                    self.b.ins().smin(m, a(2))
                }
                "u_clamp" => {
                    let m = self.b.ins().umax(a(0), a(1));
                    self.b.ins().umin(m, a(2))
                }
                "s_mul_hi" => self.b.ins().smulhi(a(0), a(1)),
                "u_mul_hi" => self.b.ins().umulhi(a(0), a(1)),
                "s_mad_hi" => {
                    let h = self.b.ins().smulhi(a(0), a(1));
                    self.b.ins().iadd(h, a(2))
                }
                "u_mad_hi" => {
                    let h = self.b.ins().umulhi(a(0), a(1));
                    self.b.ins().iadd(h, a(2))
                }
                "s_mad_sat" => self.mad_sat(a(0), a(1), a(2), true)?,
                "u_mad_sat" => self.mad_sat(a(0), a(1), a(2), false)?,
                "s_mul24" | "u_mul24" => self.b.ins().imul(a(0), a(1)),
                "s_mad24" | "u_mad24" => {
                    let m = self.b.ins().imul(a(0), a(1));
                    self.b.ins().iadd(m, a(2))
                }
                "s_upsample" | "u_upsample" => {
                    let t = s.clif();
                    let hi = self.b.ins().uextend(t, a(0));
                    let lo = self.b.ins().uextend(t, a(1));
                    let hs = self.b.ins().ishl_imm_s(hi, (t.bits() / 2) as i64);
                    self.b.ins().bor(hs, lo)
                }
                "clz" => self.b.ins().clz(a(0)),
                "ctz" => self.b.ins().ctz(a(0)),
                "popcount" => self.b.ins().popcnt(a(0)),
                "rotate" => self.b.ins().rotl(a(0), a(1)),
                "s_add_sat" => self.sat_addsub(a(0), a(1), true, false),
                "u_add_sat" => self.sat_addsub(a(0), a(1), false, false),
                "s_sub_sat" => self.sat_addsub(a(0), a(1), true, true),
                "u_sub_sat" => self.sat_addsub(a(0), a(1), false, true),
                "s_hadd" | "u_hadd" | "s_rhadd" | "u_rhadd" => {
                    // (x >> 1) + (y >> 1) + ((x & y) & 1)   [rhadd: (x | y) & 1]
                    let x = a(0);
                    let y = a(1);
                    let signed = base.starts_with('s');
                    let (xs, ys) = if signed {
                        (self.b.ins().sshr_imm_s(x, 1), self.b.ins().sshr_imm_s(y, 1))
                    } else {
                        (self.b.ins().ushr_imm_s(x, 1), self.b.ins().ushr_imm_s(y, 1))
                    };
                    let c = if base.contains("rhadd") {
                        self.b.ins().bor(x, y)
                    } else {
                        self.b.ins().band(x, y)
                    };
                    let c = self.b.ins().band_imm_s(c, 1);
                    let sum = self.b.ins().iadd(xs, ys);
                    self.b.ins().iadd(sum, c)
                }
                "bitselect" => {
                    // (a & ~c) | (b & c), on the bit patterns.
                    let (x, xt) = self.as_bits(a(0));
                    let (y, _) = self.as_bits(a(1));
                    let (c, _) = self.as_bits(a(2));
                    let t1 = self.b.ins().band_not(x, c);
                    let t2 = self.b.ins().band(y, c);
                    let o = self.b.ins().bor(t1, t2);
                    self.bits_back(o, xt)
                }
                "select" => {
                    // select(a, b, c): scalar c != 0 / vector MSB of c set -> b.
                    let c = a(2);
                    let cond = if n == 1 {
                        self.b.ins().icmp_imm_s(IntCC::NotEqual, c, 0)
                    } else {
                        self.b.ins().icmp_imm_s(IntCC::SignedLessThan, c, 0)
                    };
                    self.b.ins().select(cond, a(1), a(0))
                }
                "fract" | "modf" if matches!(s, Scalar::Float(32 | 64)) && self.out_scalar(&arg_ids) == Some(s) => {
                    self.fract_or_modf(&base, a(0), a(1), s, i)
                }
                "hypot" if s == Scalar::Float(32) => {
                    let (x, y) = (
                        self.b.ins().fpromote(types::F64, a(0)),
                        self.b.ins().fpromote(types::F64, a(1)),
                    );
                    let h = super::mathfn::geometric::hypot(&mut self.b, x, y);
                    self.b.ins().fdemote(types::F32, h)
                }
                "frexp"
                    if matches!(s, Scalar::Float(32 | 64)) && self.out_scalar(&arg_ids) == Some(Scalar::Int(32)) =>
                {
                    match super::mathfn::frexp(&mut self.b, a(0)) {
                        Some((m, e)) => {
                            self.store_component(a(1), i, Scalar::Int(32), e);
                            m
                        }
                        None => self.library_call(inst, &name, &base, &arg_ids, &la, s, i)?,
                    }
                }
                "sincos" if matches!(s, Scalar::Float(32 | 64)) && self.out_scalar(&arg_ids) == Some(s) => {
                    match self.sincos_inline(a(0))? {
                        Some((sv, cv)) => {
                            self.store_component(a(1), i, s, cv);
                            sv
                        }
                        None => self.library_call(inst, &name, &base, &arg_ids, &la, s, i)?,
                    }
                }
                _ => self.library_call(inst, &name, &base, &arg_ids, &la, s, i)?,
            };
            out.push(v);
        }
        self.def(r, ty, out);
        Ok(())
    }

    /// `base(x)` generated by [`super::mathfn`] for one f32 or four lanes (one f64 or two),
    /// with its library function for the arguments it does not reduce inline; `None` for
    /// other functions.
    pub(crate) fn math_inline(&mut self, base: &str, x: Value) -> R<Option<Value>> {
        let lane = self.b.func.dfg.value_type(x).lane_type();
        let known = if lane == types::F64 {
            super::mathfn::known_f64(base)
        } else {
            super::mathfn::known(base)
        };
        if !known {
            return Ok(None);
        }
        let fallback = if super::mathfn::needs_fallback(base) {
            let Some(f) = self.library(base, lane)? else {
                return Ok(None);
            };
            Some(f)
        } else {
            None
        };
        Ok(super::mathfn::emit(&mut self.b, base, x, fallback))
    }

    /// sin and cos of one f32 or four lanes (one f64 or two) with one reduction
    /// ([`super::mathfn::sincos`]); `None` without the library functions for large arguments.
    pub(crate) fn sincos_inline(&mut self, x: Value) -> R<Option<(Value, Value)>> {
        let lane = self.b.func.dfg.value_type(x).lane_type();
        let (Some(sin), Some(cos)) = (self.library("sin", lane)?, self.library("cos", lane)?) else {
            return Ok(None);
        };
        Ok(super::mathfn::sincos(&mut self.b, x, sin, cos))
    }

    /// The math library's `clift_<base>_f32` or `_f64` (`lane -> lane`), imported into this
    /// function.
    fn library(&mut self, base: &str, lane: types::Type) -> R<Option<cranelift_codegen::ir::FuncRef>> {
        let Some(sym) = self.cx.math.get(&format!("clift_{base}_f{}", lane.bits())) else {
            return Ok(None);
        };
        let fid = self.cx.import(sym, &[lane], &[lane])?;
        Ok(Some(self.func_ref(fid)))
    }

    /// Stores `v` to component `i` of the out-parameter `p` (elements of `s`).
    fn store_component(&mut self, p: Value, i: usize, s: Scalar, v: Value) {
        let addr = self.b.ins().iadd_imm_s(p, (i as u32 * s.bytes()) as i64);
        self.b
            .ins()
            .store(cranelift_codegen::ir::MemFlagsData::new(), v, addr, 0);
    }

    /// The element type of the pointer operand (the second) of an out-parameter function.
    fn out_scalar(&self, arg_ids: &[u32]) -> Option<Scalar> {
        let t = self.ty_of(*arg_ids.get(1)?).ok()?;
        match self.cx.layout.get(t).ok()?.ty.clone() {
            Ty::Pointer(_, pe) => self.cx.layout.scalar_of(pe),
            _ => None,
        }
    }

    /// fract(x, iptr) and modf(x, iptr) of component `i`, inline (the library's
    /// `clift_fract_*`/`clift_modf_*` bit for bit): the integral part (floor or trunc) goes to
    /// component `i` of `p`; the fraction of an infinity is a zero of its sign, of a NaN the
    /// NaN; fract's is at most the float below 1, modf's has the sign of `x`.
    fn fract_or_modf(&mut self, base: &str, x: Value, p: Value, s: Scalar, i: usize) -> Value {
        let (fraction, whole) = super::mathfn::fraction(&mut self.b, base, x);
        self.store_component(p, i, s, whole);
        fraction
    }

    /// The float functions generated inline (operands of one lane, f32 or f64).
    fn float_inline(&mut self, base: &str, la: &[Value]) -> Value {
        let a = |k: usize| la.get(k).copied().unwrap_or(la[0]);
        let x = a(0);
        let t = self.b.func.dfg.value_type(x);
        if let Some(v) = super::mathfn::common::emit(&mut self.b, base, la) {
            return v;
        }
        match base {
            "fabs" => self.b.ins().fabs(x),
            // mad may be either; Clift's is the correctly rounded fma (docs/math.md), the same
            // as the library's clift_mad_*.
            "fma" | "mad" => self.b.ins().fma(x, a(1), a(2)),
            "sqrt" => self.b.ins().sqrt(x),
            // The correctly rounded root, then the division: within 1.5 ulp (the bound is 2),
            // and the same as the library's clift_rsqrt_*.
            "rsqrt" => {
                let root = self.b.ins().sqrt(x);
                let o = self.fconst(t, 1.0);
                self.b.ins().fdiv(o, root)
            }
            "floor" => self.b.ins().floor(x),
            "ceil" => self.b.ins().ceil(x),
            "trunc" => self.b.ins().trunc(x),
            "rint" => self.b.ins().nearest(x),
            "fmin" | "fmin_common" => self.fminmax(x, a(1), false),
            "fmax" | "fmax_common" => self.fminmax(x, a(1), true),
            "fclamp" => {
                let m = self.fminmax(x, a(1), true);
                self.fminmax(m, a(2), false)
            }
            "copysign" => self.b.ins().fcopysign(x, a(1)),
            "divide" => self.b.ins().fdiv(x, a(1)),
            // recip: the `inline_float` list names no other function; `mathfn::common` has
            // the common functions, round, fdim, maxmag, minmag and nextafter.
            _ => {
                let o = self.fconst(t, 1.0);
                self.b.ins().fdiv(o, x)
            }
        }
    }

    /// One component of a math library call (`clift_<name>_<f32|f64>`); halves go through the
    /// f32 function, out-parameters get the address of component `i`.
    #[allow(clippy::too_many_arguments)]
    fn library_call(
        &mut self,
        inst: &Instruction,
        name: &str,
        base: &str,
        arg_ids: &[u32],
        la: &[Value],
        s: Scalar,
        i: usize,
    ) -> R<Value> {
        let (suffix, ft) = match s {
            Scalar::Float(64) => ("f64", types::F64),
            _ => ("f32", types::F32),
        };
        // The float-typed operand decides the function for int-valued ones (ilogb).
        let fs = arg_ids
            .first()
            .and_then(|a| self.ty_of(*a).ok())
            .and_then(|t| self.cx.layout.scalar_of(t))
            .filter(|x| matches!(x, Scalar::Float(_)))
            .unwrap_or(s);
        let suffix = if matches!(s, Scalar::Int(_)) && fs == Scalar::Float(64) {
            "f64"
        } else {
            suffix
        };
        // `half_divide` and friends: the full-precision function when there is one.
        // Halves: the `_f16` form where the half function is not the float one rounded
        // (builtins::half), else the float function.
        let half_form = if fs == Scalar::Float(16) {
            format!("clift_{base}_f16")
        } else {
            String::new()
        };
        let candidates = [
            half_form,
            format!("clift_{base}_{suffix}"),
            format!("clift_{name}_{suffix}"),
        ];
        let Some(sym) = candidates.iter().find_map(|c| self.cx.math.get(c.as_str())) else {
            return Err(self.err(inst, &format!("OpenCL.std {name} is not supported for this type")));
        };
        let mut cargs = Vec::new();
        let mut ptys = Vec::new();
        // Out-parameters: the helper writes a stack slot of its own; the generated code then
        // stores the value (a half narrowed from f32) to the kernel's pointer, so that a bad
        // pointer faults in kernel code, where the fault ends the command (`crate::fault`),
        // never in the helper.
        let mut outs: Vec<(Value, Value, Scalar)> = Vec::new();
        for (k, aid) in arg_ids.iter().enumerate() {
            let aty = self.ty_of(*aid)?;
            let v = la[k];
            match self.cx.layout.get(aty)?.ty.clone() {
                Ty::Pointer(_, pe) => {
                    // Out-parameter: address of component i.
                    let ps = self.cx.layout.scalar_of(pe).unwrap_or(Scalar::Int(32));
                    let addr = self.b.ins().iadd_imm_s(v, (i as u32 * ps.bytes()) as i64);
                    let slot = self
                        .b
                        .create_sized_stack_slot(cranelift_codegen::ir::StackSlotData::new(
                            cranelift_codegen::ir::StackSlotKind::ExplicitSlot,
                            8,
                            3,
                        ));
                    let tmp = self.b.ins().stack_addr(types::I64, slot, 0);
                    outs.push((tmp, addr, ps));
                    cargs.push(tmp);
                    ptys.push(types::I64);
                }
                _ => {
                    let asc = self.cx.layout.scalar_of(aty).unwrap_or(s);
                    let v = if asc == Scalar::Float(16) {
                        self.widen_half(v, asc)?
                    } else {
                        v
                    };
                    let vt = self.b.func.dfg.value_type(v);
                    let v = if base == "nan" && suffix == "f64" && vt.is_int() {
                        // nan(ulong nancode)
                        self.int_resize(v, types::I64, false)
                    } else if vt.is_int() && vt != types::I32 && matches!(asc, Scalar::Int(_)) {
                        self.int_resize(v, types::I32, true)
                    } else {
                        v
                    };
                    ptys.push(self.b.func.dfg.value_type(v));
                    cargs.push(v);
                }
            }
        }
        let rt = match s {
            Scalar::Int(_) => types::I32,
            _ => ft,
        };
        let res = self.call_helper(sym, &ptys, &[rt], &cargs)?[0];
        for (tmp, addr, ps) in outs {
            let trusted = cranelift_codegen::ir::MemFlagsData::trusted();
            let v = match ps {
                Scalar::Float(16) => {
                    let f = self.b.ins().load(types::F32, trusted, tmp, 0);
                    self.narrow_half(f, ps)?
                }
                Scalar::Float(64) => self.b.ins().load(types::F64, trusted, tmp, 0),
                Scalar::Float(_) => self.b.ins().load(types::F32, trusted, tmp, 0),
                _ => self.b.ins().load(types::I32, trusted, tmp, 0),
            };
            self.b
                .ins()
                .store(cranelift_codegen::ir::MemFlagsData::new(), v, addr, 0);
        }
        Ok(match s {
            Scalar::Float(16) => self.narrow_half(res, s)?,
            Scalar::Int(_) => self.int_resize(res, s.clif(), true),
            _ => res,
        })
    }

    /// OpenCL.std printf.
    ///
    /// The arguments go to the stack as 64-bit slots (integers zero-extended raw bits, floats
    /// as f64 bits, pointers as addresses; vector components one slot each) with one kind word
    /// per argument (`super::printf::kind`), then `clift_printf(wi, fmt, slots, kinds, n)`
    /// formats and appends the text to the command's printf sink.
    fn printf(&mut self, inst: &Instruction, r: u32, ty: u32, args: &[u32]) -> R {
        use cranelift_codegen::ir::{MemFlagsData, StackSlotData, StackSlotKind};
        let Some((&fmt_id, rest)) = args.split_first() else {
            return Err(self.err(inst, "printf without a format string"));
        };
        let fmt = self.val1(fmt_id)?;
        let mut slots: Vec<Value> = Vec::new();
        let mut kinds: Vec<u32> = Vec::new();
        for &a in rest {
            let aty = self.ty_of(a)?;
            let (s, n) = self.cx.layout.shape(aty).map_err(|e| self.err(inst, &e.message))?;
            let vals = self.val(a)?;
            let (cat, width) = match s {
                Scalar::Bool => (super::printf::CAT_INT, 8),
                Scalar::Int(w) => (super::printf::CAT_INT, w),
                Scalar::Float(w) => (super::printf::CAT_FLOAT, w),
                Scalar::Ptr => (super::printf::CAT_PTR, 64),
            };
            kinds.push(super::printf::kind(cat, width, n));
            for v in vals.into_iter().take(n as usize) {
                let slot = match s {
                    Scalar::Float(16) => {
                        let f = self.widen_half(v, s)?;
                        let d = self.b.ins().fpromote(types::F64, f);
                        self.b.ins().bitcast(types::I64, MemFlagsData::new(), d)
                    }
                    Scalar::Float(32) => {
                        let d = self.b.ins().fpromote(types::F64, v);
                        self.b.ins().bitcast(types::I64, MemFlagsData::new(), d)
                    }
                    Scalar::Float(_) => self.b.ins().bitcast(types::I64, MemFlagsData::new(), v),
                    _ => {
                        let vt = self.b.func.dfg.value_type(v);
                        if vt == types::I64 {
                            v
                        } else {
                            self.b.ins().uextend(types::I64, v)
                        }
                    }
                };
                slots.push(slot);
            }
        }
        let ss = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            (slots.len() as u32 * 8).max(8),
            3,
        ));
        let ks = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            (kinds.len() as u32 * 4).max(4),
            2,
        ));
        let sp = self.b.ins().stack_addr(types::I64, ss, 0);
        let kp = self.b.ins().stack_addr(types::I64, ks, 0);
        for (i, v) in slots.iter().enumerate() {
            self.b.ins().store(MemFlagsData::new(), *v, sp, (i * 8) as i32);
        }
        for (i, k) in kinds.iter().enumerate() {
            let c = self.b.ins().iconst(types::I32, *k as i64);
            self.b.ins().store(MemFlagsData::new(), c, kp, (i * 4) as i32);
        }
        let n = self.b.ins().iconst(types::I64, kinds.len() as i64);
        let wi = self.wi;
        let res = self.call_helper("clift_printf", &[types::I64; 5], &[types::I32], &[wi, fmt, sp, kp, n])?[0];
        let rt = self.cx.layout.scalar_of(ty).map(|s| s.clif()).unwrap_or(types::I32);
        let res = if rt == types::I32 {
            res
        } else {
            self.int_resize(res, rt, true)
        };
        self.def(r, ty, vec![res]);
        Ok(())
    }

    fn as_bits(&mut self, v: Value) -> (Value, cranelift_codegen::ir::Type) {
        let t = self.b.func.dfg.value_type(v);
        if t.is_float() {
            let it = cranelift_codegen::ir::Type::int(t.bits() as u16).unwrap_or(types::I32);
            (
                self.b.ins().bitcast(it, cranelift_codegen::ir::MemFlagsData::new(), v),
                t,
            )
        } else {
            (v, t)
        }
    }

    fn bits_back(&mut self, v: Value, t: cranelift_codegen::ir::Type) -> Value {
        if t.is_float() {
            self.b.ins().bitcast(t, cranelift_codegen::ir::MemFlagsData::new(), v)
        } else {
            v
        }
    }
}
