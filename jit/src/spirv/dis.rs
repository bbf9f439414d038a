//! Disassembler to the SPIR-V assembly syntax (seeds/003), laid out like
//! `spirv-dis`: friendly names by default, raw `%N` ids on request.

use super::binary::{self, Instruction, ParseError};
use super::grammar;
use super::numbers;
use rspirv::binary::Disassemble;
use rspirv::dr::Operand;
use rspirv::grammar::OperandKind;
use rspirv::spirv::Op;
use std::collections::{HashMap, HashSet};
use std::fmt;

#[derive(Debug, Clone, Copy, Default)]
pub struct DisOptions {
    /// Print `%12` instead of names derived from OpName and types.
    pub raw_id: bool,
    /// Leave out the `; SPIR-V` header comment.
    pub no_header: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DisError(pub ParseError);

impl fmt::Display for DisError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for DisError {}

#[derive(Clone, Copy)]
enum Num {
    Int(u32, bool),
    Float(u32),
}

fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

fn sanitize(s: &str) -> String {
    if s.is_empty() {
        return "_".into();
    }
    s.chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' })
        .collect()
}

struct Namer {
    names: HashMap<u32, String>,
    used: HashSet<String>,
}

impl Namer {
    fn save(&mut self, id: u32, name: String) {
        if self.names.contains_key(&id) {
            return;
        }
        let mut n = name.clone();
        let mut k = 0;
        while self.used.contains(&n) {
            n = format!("{}_{}", name, k);
            k += 1;
        }
        self.used.insert(n.clone());
        self.names.insert(id, n);
    }
    fn get(&self, id: u32) -> String {
        match self.names.get(&id) {
            Some(n) => n.clone(),
            None => id.to_string(),
        }
    }
}

fn word(ops: &[Operand], i: usize) -> Option<u32> {
    match ops.get(i) {
        Some(Operand::LiteralBit32(v)) => Some(*v),
        _ => None,
    }
}

fn ref_id(op: Option<&Operand>) -> Option<u32> {
    match op {
        Some(Operand::IdRef(v)) => Some(*v),
        _ => None,
    }
}

fn literal_text(op: &Operand, num: Option<Num>) -> String {
    let bits = match op {
        Operand::LiteralBit32(v) => *v as u64,
        Operand::LiteralBit64(v) => *v,
        _ => 0,
    };
    match num {
        Some(Num::Int(w, s)) => numbers::int_text(bits, w, s),
        Some(Num::Float(w)) => numbers::float_text(bits, w),
        None => bits.to_string(),
    }
}

/// Friendly names like `spirv-dis`: OpName first, then types and constants.
fn friendly_names(insts: &[Instruction], nums: &HashMap<u32, Num>) -> Namer {
    let mut n = Namer {
        names: HashMap::new(),
        used: HashSet::new(),
    };
    for inst in insts {
        let ops = &inst.operands;
        let rid = inst.result_id.unwrap_or(0);
        match inst.opcode {
            Op::Name => {
                if let (Some(t), Some(Operand::LiteralString(s))) = (ref_id(ops.first()), ops.get(1)) {
                    n.save(t, sanitize(s));
                }
            }
            Op::TypeVoid => n.save(rid, "void".into()),
            Op::TypeBool => n.save(rid, "bool".into()),
            Op::TypeInt => {
                let w = word(ops, 0).unwrap_or(0);
                let signed = word(ops, 1).unwrap_or(0) != 0;
                let base = match w {
                    8 => "char".to_string(),
                    16 => "short".to_string(),
                    32 => "int".to_string(),
                    64 => "long".to_string(),
                    _ => format!("int{}", w),
                };
                n.save(rid, if signed { base } else { format!("u{}", base) });
            }
            Op::TypeFloat => {
                let w = word(ops, 0).unwrap_or(0);
                n.save(
                    rid,
                    match w {
                        16 => "half".into(),
                        32 => "float".into(),
                        64 => "double".into(),
                        _ => format!("fp{}", w),
                    },
                );
            }
            Op::TypeVector => {
                let c = ref_id(ops.first()).unwrap_or(0);
                let name = format!("v{}{}", word(ops, 1).unwrap_or(0), n.get(c));
                n.save(rid, name);
            }
            Op::TypeMatrix => {
                let c = ref_id(ops.first()).unwrap_or(0);
                let name = format!("mat{}{}", word(ops, 1).unwrap_or(0), n.get(c));
                n.save(rid, name);
            }
            Op::TypeArray => {
                let e = ref_id(ops.first()).unwrap_or(0);
                let l = ref_id(ops.get(1)).unwrap_or(0);
                let name = format!("_arr_{}_{}", n.get(e), n.get(l));
                n.save(rid, name);
            }
            Op::TypeRuntimeArray => {
                let e = ref_id(ops.first()).unwrap_or(0);
                let name = format!("_runtimearr_{}", n.get(e));
                n.save(rid, name);
            }
            Op::TypePointer => {
                if let Some(Operand::StorageClass(s)) = ops.first() {
                    let p = ref_id(ops.get(1)).unwrap_or(0);
                    let name = format!("_ptr_{:?}_{}", s, n.get(p));
                    n.save(rid, name);
                }
            }
            Op::TypeStruct => n.save(rid, format!("_struct_{}", rid)),
            Op::TypeEvent => n.save(rid, "Event".into()),
            Op::TypeDeviceEvent => n.save(rid, "DeviceEvent".into()),
            Op::TypeReserveId => n.save(rid, "ReserveId".into()),
            Op::TypeQueue => n.save(rid, "Queue".into()),
            Op::TypeOpaque => {
                if let Some(Operand::LiteralString(s)) = ops.first() {
                    n.save(rid, format!("Opaque_{}", sanitize(s)));
                }
            }
            Op::TypePipe => {
                if let Some(Operand::AccessQualifier(a)) = ops.first() {
                    n.save(rid, format!("Pipe{:?}", a));
                }
            }
            Op::TypePipeStorage => n.save(rid, "PipeStorage".into()),
            Op::TypeNamedBarrier => n.save(rid, "NamedBarrier".into()),
            Op::ConstantTrue => n.save(rid, "true".into()),
            Op::ConstantFalse => n.save(rid, "false".into()),
            Op::Constant => {
                let ty = inst.result_type.unwrap_or(0);
                if let Some(op) = ops.first() {
                    let v = literal_text(op, nums.get(&ty).copied());
                    let v: String = v
                        .chars()
                        .map(|c| match c {
                            '-' => 'n',
                            c if c.is_ascii_alphanumeric() => c,
                            _ => '_',
                        })
                        .collect();
                    let name = format!("{}_{}", n.get(ty), v);
                    n.save(rid, name);
                }
            }
            _ => {}
        }
    }
    n
}

/// Disassembles a module (any SPIR-V 1.x version, either endianness as words
/// already in host order).
pub fn disassemble(words: &[u32], opts: DisOptions) -> Result<String, DisError> {
    let (header, insts) = binary::decode_words(words, 6).map_err(DisError)?;
    let mut nums: HashMap<u32, Num> = HashMap::new();
    let mut sets: HashMap<u32, String> = HashMap::new();
    for inst in &insts {
        let rid = inst.result_id.unwrap_or(0);
        match inst.opcode {
            Op::TypeInt => {
                nums.insert(
                    rid,
                    Num::Int(
                        word(&inst.operands, 0).unwrap_or(32),
                        word(&inst.operands, 1).unwrap_or(0) != 0,
                    ),
                );
            }
            Op::TypeFloat => {
                nums.insert(rid, Num::Float(word(&inst.operands, 0).unwrap_or(32)));
            }
            Op::ExtInstImport => {
                if let Some(Operand::LiteralString(s)) = inst.operands.first() {
                    sets.insert(rid, s.clone());
                }
            }
            _ => {}
        }
    }
    let namer = if opts.raw_id {
        Namer {
            names: HashMap::new(),
            used: HashSet::new(),
        }
    } else {
        friendly_names(&insts, &nums)
    };
    let id = |v: u32| format!("%{}", namer.get(v));
    let mut out = String::new();
    if !opts.no_header {
        let vendor = header.generator >> 16;
        let gen = match grammar::generator_name(vendor) {
            Some(n) => format!("{}; {}", n, header.generator & 0xffff),
            None => format!("Unknown({}); {}", vendor, header.generator & 0xffff),
        };
        out.push_str(&format!(
            "; SPIR-V\n; Version: {}.{}\n; Generator: {}\n; Bound: {}\n; Schema: {}\n",
            header.version.0, header.version.1, gen, header.bound, header.schema
        ));
    }
    for inst in &insts {
        let mut line = String::new();
        match inst.result_id {
            Some(r) => {
                let s = id(r);
                line.push_str(&format!("{:>12} = ", s));
            }
            None => line.push_str(&" ".repeat(15)),
        }
        line.push_str(&grammar::op_name(inst.opcode));
        if let Some(t) = inst.result_type {
            line.push(' ');
            line.push_str(&id(t));
        }
        let ops = &inst.operands;
        // Type used to print context-dependent literals.
        let literal_num = match inst.opcode {
            Op::Constant | Op::SpecConstant => inst.result_type.and_then(|t| nums.get(&t).copied()),
            Op::Switch => ref_id(ops.first())
                .and_then(|sel| {
                    insts
                        .iter()
                        .find(|i| i.result_id == Some(sel))
                        .and_then(|i| i.result_type.or(Some(sel)))
                })
                .and_then(|t| nums.get(&t).copied()),
            _ => None,
        };
        let mut ext: Option<grammar::ExtInstGrammar> = None;
        let mut ext_pos = 0usize;
        for (i, op) in ops.iter().enumerate() {
            line.push(' ');
            let text = match op {
                Operand::IdRef(v) | Operand::IdScope(v) | Operand::IdMemorySemantics(v) => {
                    // Literal operands of extended instructions come through
                    // as IdRef; print them by the extended grammar.
                    let kind = ext.and_then(|g| {
                        let k = g.operands.get(ext_pos).or(g.operands.last())?;
                        Some(k.kind)
                    });
                    if ext.is_some() {
                        ext_pos += 1;
                    }
                    match kind {
                        Some(OperandKind::LiteralInteger) => v.to_string(),
                        Some(k) if grammar::is_mask(k) => grammar::mask_text(k, *v),
                        Some(k) if grammar::is_enum(k) => grammar::enum_name(k, *v).unwrap_or_else(|| v.to_string()),
                        _ => id(*v),
                    }
                }
                Operand::LiteralBit32(_) | Operand::LiteralBit64(_) => {
                    let typed = match inst.opcode {
                        Op::Constant | Op::SpecConstant => true,
                        Op::Switch => i >= 2 && i % 2 == 0,
                        _ => false,
                    };
                    literal_text(op, if typed { literal_num } else { None })
                }
                Operand::LiteralString(s) => quote(s),
                Operand::LiteralExtInstInteger(n) => {
                    let set = ref_id(ops.get(i.wrapping_sub(1)))
                        .and_then(|s| sets.get(&s))
                        .cloned()
                        .unwrap_or_default();
                    match grammar::ext_inst_by_number(&set, *n) {
                        Some(g) => {
                            ext = Some(g);
                            g.opname.to_string()
                        }
                        None => n.to_string(),
                    }
                }
                Operand::LiteralSpecConstantOpInteger(o) => grammar::op_name(*o).trim_start_matches("Op").to_string(),
                Operand::ImageOperands(_)
                | Operand::FPFastMathMode(_)
                | Operand::SelectionControl(_)
                | Operand::LoopControl(_)
                | Operand::FunctionControl(_)
                | Operand::MemorySemantics(_)
                | Operand::MemoryAccess(_)
                | Operand::KernelProfilingInfo(_)
                | Operand::RayFlags(_)
                | Operand::FragmentShadingRate(_)
                | Operand::RawAccessChainOperands(_)
                | Operand::CooperativeMatrixOperands(_)
                | Operand::CooperativeMatrixReduce(_)
                | Operand::TensorAddressingOperands(_)
                | Operand::MatrixMultiplyAccumulateOperands(_) => op.disassemble(),
                other => format!("{}", other),
            };
            line.push_str(&text);
        }
        out.push_str(&line);
        out.push('\n');
    }
    Ok(out)
}

/// Disassembles bytes (either endianness).
pub fn disassemble_bytes(bytes: &[u8], opts: DisOptions) -> Result<String, DisError> {
    let words = binary::words_from_bytes(bytes).map_err(DisError)?;
    disassemble(&words, opts)
}
