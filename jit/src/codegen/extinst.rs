//! OpenCL.std extended instructions: the cheap ones inline (component by component), the rest
//! as calls to the math library (`clift_<name>_<f32|f64>`, one call per component).

use super::layout::{Scalar, Ty};
use super::module::{load_leaves, store_leaves};
use super::translate::{op_id, op_lit, result, FnTx, R};
use crate::spirv::grammar;
use crate::spirv::Instruction;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types, InstBuilder, Value};

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

    fn round_away(&mut self, x: Value) -> Value {
        let t = self.b.ins().trunc(x);
        let d = self.b.ins().fsub(x, t);
        let ad = self.b.ins().fabs(d);
        let ty = self.b.func.dfg.value_type(x);
        let half = if ty == types::F64 {
            self.b.ins().f64const(0.5)
        } else {
            self.b.ins().f32const(0.5)
        };
        let one = if ty == types::F64 {
            self.b.ins().f64const(1.0)
        } else {
            self.b.ins().f32const(1.0)
        };
        let s = self.b.ins().fcopysign(one, x);
        let up = self.b.ins().fadd(t, s);
        let c = self.b.ins().fcmp(FloatCC::GreaterThanOrEqual, ad, half);
        self.b.ins().select(c, up, t)
    }

    fn fconst(&mut self, t: cranelift_codegen::ir::Type, v: f64) -> Value {
        if t == types::F64 {
            self.b.ins().f64const(v)
        } else {
            self.b.ins().f32const(v as f32)
        }
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
        let rinfo = self.cx.layout.get(ty)?.clone();
        let rs = self.cx.layout.scalar_of(ty);
        // Memory-shaped instructions first.
        match name.as_str() {
            "vloadn" | "vload_half" | "vload_halfn" | "vloada_halfn" => {
                let off = self.val1(arg_ids[0])?;
                let off = self.int_resize(off, types::I64, false);
                let p = self.val1(arg_ids[1])?;
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
                let dty = self.ty_of(arg_ids[0])?;
                let (ds, n) = self.cx.layout.shape(dty).map_err(|e| self.err(inst, &e.message))?;
                let data = self.val(arg_ids[0])?;
                let off = self.val1(arg_ids[1])?;
                let off = self.int_resize(off, types::I64, false);
                let p = self.val1(arg_ids[2])?;
                let half = name != "vstoren";
                // The rounding mode is a literal FPRoundingMode; rspirv has no operand table
                // for OpenCL.std and hands it over as an IdRef word.
                let mode = if name.ends_with("_r") {
                    match inst.operands.last() {
                        Some(rspirv::dr::Operand::FPRoundingMode(m)) => *m as i32,
                        Some(rspirv::dr::Operand::IdRef(v) | rspirv::dr::Operand::LiteralBit32(v)) => *v as i32,
                        _ => 0,
                    }
                } else {
                    0
                };
                let eb = if half { 2 } else { ds.bytes() };
                let group = if name.starts_with("vstorea") && n == 3 { 4 } else { n };
                let scaled = self.b.ins().imul_imm_s(off, (group * eb) as i64);
                let addr = self.b.ins().iadd(p, scaled);
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
        let args: Vec<Vec<Value>> = arg_ids.iter().map(|a| self.val(*a)).collect::<R<_>>()?;
        let n = rinfo.leaves.len();
        let s = rs.ok_or_else(|| self.err(inst, "result is not a scalar or vector"))?;
        // Lane `i` of argument `a` (scalars broadcast).
        let lane = |args: &Vec<Vec<Value>>, a: usize, i: usize| -> Value {
            let v = &args[a];
            if v.len() == 1 {
                v[0]
            } else {
                v[i]
            }
        };
        if args.is_empty() {
            return Err(self.err(inst, "missing operands"));
        }
        let base = name
            .strip_prefix("native_")
            .or_else(|| name.strip_prefix("half_"))
            .unwrap_or(&name)
            .to_string();
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            let a = |k: usize| lane(&args, k, i);
            let is_half = s == Scalar::Float(16);
            let v = match base.as_str() {
                "fabs" | "fma" | "mad" | "sqrt" | "floor" | "ceil" | "trunc" | "rint" | "round" | "fmin" | "fmax"
                | "fmin_common" | "fmax_common" | "copysign" | "mix" | "step" | "degrees" | "radians" | "sign"
                    if !is_half =>
                {
                    let x = a(0);
                    let t = self.b.func.dfg.value_type(x);
                    match base.as_str() {
                        "fabs" => self.b.ins().fabs(x),
                        "fma" => self.b.ins().fma(x, a(1), a(2)),
                        "mad" => {
                            let m = self.b.ins().fmul(x, a(1));
                            self.b.ins().fadd(m, a(2))
                        }
                        "sqrt" => self.b.ins().sqrt(x),
                        "floor" => self.b.ins().floor(x),
                        "ceil" => self.b.ins().ceil(x),
                        "trunc" => self.b.ins().trunc(x),
                        "rint" => self.b.ins().nearest(x),
                        "round" => self.round_away(x),
                        "fmin" | "fmin_common" => self.fminmax(x, a(1), false),
                        "fmax" | "fmax_common" => self.fminmax(x, a(1), true),
                        "copysign" => self.b.ins().fcopysign(x, a(1)),
                        "mix" => {
                            let d = self.b.ins().fsub(a(1), x);
                            let m = self.b.ins().fmul(d, a(2));
                            self.b.ins().fadd(x, m)
                        }
                        "step" => {
                            // step(edge, x): 0 if x < edge else 1.
                            let z = self.fconst(t, 0.0);
                            let o = self.fconst(t, 1.0);
                            let c = self.b.ins().fcmp(FloatCC::LessThan, a(1), x);
                            self.b.ins().select(c, z, o)
                        }
                        "degrees" => {
                            let k = self.fconst(t, 180.0 / std::f64::consts::PI);
                            self.b.ins().fmul(x, k)
                        }
                        "radians" => {
                            let k = self.fconst(t, std::f64::consts::PI / 180.0);
                            self.b.ins().fmul(x, k)
                        }
                        _ => {
                            // sign
                            let z = self.fconst(t, 0.0);
                            let o = self.fconst(t, 1.0);
                            let so = self.b.ins().fcopysign(o, x);
                            let zs = self.b.ins().fcopysign(z, x);
                            let isz = self.b.ins().fcmp(FloatCC::Equal, x, z);
                            let r = self.b.ins().select(isz, zs, so);
                            let nan = self.b.ins().fcmp(FloatCC::Unordered, x, x);
                            self.b.ins().select(nan, z, r)
                        }
                    }
                }
                "fclamp" if !is_half => {
                    let m = self.fminmax(a(0), a(1), true);
                    self.fminmax(m, a(2), false)
                }
                "s_abs" | "u_abs" => {
                    if base == "s_abs" {
                        self.b.ins().iabs(a(0))
                    } else {
                        a(0)
                    }
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
                "s_mul24" | "u_mul24" => self.b.ins().imul(a(0), a(1)),
                "s_mad24" | "u_mad24" => {
                    let m = self.b.ins().imul(a(0), a(1));
                    self.b.ins().iadd(m, a(2))
                }
                "clz" => self.b.ins().clz(a(0)),
                "ctz" => self.b.ins().ctz(a(0)),
                "popcount" => self.b.ins().popcnt(a(0)),
                "rotate" => self.b.ins().rotl(a(0), a(1)),
                "s_add_sat" => self.b.ins().sadd_sat(a(0), a(1)),
                "u_add_sat" => self.b.ins().uadd_sat(a(0), a(1)),
                "s_sub_sat" => self.b.ins().ssub_sat(a(0), a(1)),
                "u_sub_sat" => self.b.ins().usub_sat(a(0), a(1)),
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
                    let ct = self.b.func.dfg.value_type(c);
                    let cond = if n == 1 {
                        self.b.ins().icmp_imm_s(IntCC::NotEqual, c, 0)
                    } else {
                        self.b.ins().icmp_imm_s(IntCC::SignedLessThan, c, 0)
                    };
                    let _ = ct;
                    self.b.ins().select(cond, a(1), a(0))
                }
                _ => {
                    // Library call.
                    let (suffix, ft) = match s {
                        Scalar::Float(64) => ("f64", types::F64),
                        _ => ("f32", types::F32),
                    };
                    let sym = format!("clift_{base}_{suffix}");
                    let Some(sym) = self.cx.math.get(sym.as_str()).copied() else {
                        return Err(self.err(inst, &format!("OpenCL.std {name} is not supported")));
                    };
                    let mut cargs = Vec::new();
                    let mut ptys = Vec::new();
                    for (k, aid) in arg_ids.iter().enumerate() {
                        let aty = self.ty_of(*aid)?;
                        let v = lane(&args, k, i);
                        match self.cx.layout.get(aty)?.ty {
                            Ty::Pointer(..) => {
                                // Out-parameter: address of component i.
                                let pt = self.cx.layout.get(aty)?.ty.clone();
                                let Ty::Pointer(_, pe) = pt else { unreachable!() };
                                let ps = self.cx.layout.scalar_of(pe).unwrap_or(Scalar::Int(32));
                                let stride = if ps == Scalar::Float(16) { 4 } else { ps.bytes() };
                                let addr = self.b.ins().iadd_imm_s(v, (i as u32 * stride) as i64);
                                cargs.push(addr);
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
                                let v = if vt.is_int() && vt != types::I32 && matches!(asc, Scalar::Int(_)) {
                                    self.int_resize(v, types::I32, true)
                                } else {
                                    v
                                };
                                ptys.push(self.b.func.dfg.value_type(v));
                                cargs.push(v);
                            }
                        }
                    }
                    let rt = if matches!(s, Scalar::Int(_)) { s.clif() } else { ft };
                    let rt = if matches!(s, Scalar::Int(w) if w != 32) {
                        types::I32
                    } else {
                        rt
                    };
                    let res = self.call_helper(sym, &ptys, &[rt], &cargs)?[0];
                    match s {
                        Scalar::Float(16) => self.narrow_half(res, s)?,
                        Scalar::Int(_) => self.int_resize(res, s.clif(), true),
                        _ => res,
                    }
                }
            };
            out.push(v);
        }
        self.def(r, ty, out);
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
