//! SPIR-V types as the code generator sees them: the Cranelift scalar "leaves" a value of the
//! type is flattened into, and the memory layout (size, alignment, member offsets, strides)
//! of the OpenCL C data model.

use super::CompileError;
use crate::spirv::module::{ConstantValue, Type};
use crate::spirv::Module;
use cranelift_codegen::ir::types;
use cranelift_codegen::ir::Type as ClifType;
use cranelift_codegen::ir::{InstBuilder, MemFlagsData, Value};
use cranelift_codegen::isa::TargetFrontendConfig;
use cranelift_frontend::FunctionBuilder;
use rspirv::spirv::{Decoration, StorageClass};
use std::collections::HashMap;

pub(crate) type Id = u32;

/// The scalar kind of a type (the component type for vectors).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scalar {
    Bool,
    Int(u32),
    Float(u32),
    /// Pointers, events, images, samplers: a 64-bit word.
    Ptr,
}

impl Scalar {
    /// The Cranelift type of one value (halves are kept as their 16-bit pattern).
    pub fn clif(self) -> ClifType {
        match self {
            Scalar::Bool => types::I8,
            Scalar::Int(8) => types::I8,
            Scalar::Int(16) | Scalar::Float(16) => types::I16,
            Scalar::Int(32) => types::I32,
            Scalar::Float(32) => types::F32,
            Scalar::Float(64) => types::F64,
            _ => types::I64,
        }
    }
    pub fn bytes(self) -> u32 {
        match self {
            Scalar::Bool => 1,
            Scalar::Int(w) | Scalar::Float(w) => w / 8,
            Scalar::Ptr => 8,
        }
    }
}

/// A resolved type.
#[derive(Clone, Debug)]
pub(crate) enum Ty {
    Void,
    Scalar(Scalar),
    Vector(Scalar, u32),
    Array(Id, u64),
    Struct(Vec<Id>),
    Pointer(StorageClass, Id),
    Function,
}

#[derive(Clone, Debug)]
pub(crate) struct Info {
    pub ty: Ty,
    pub size: u64,
    pub align: u64,
    /// Flattened leaves.
    pub leaves: Vec<ClifType>,
    /// Member offsets (structs).
    pub offsets: Vec<u64>,
    /// Element stride (arrays, vectors).
    pub stride: u64,
    /// Component type (vectors) or element type (arrays).
    pub elem: Id,
}

pub(crate) struct Layout {
    infos: HashMap<Id, Info>,
}

fn err(msg: String) -> CompileError {
    CompileError { message: msg }
}

impl Layout {
    pub fn new(m: &Module) -> Result<Layout, CompileError> {
        let mut l = Layout { infos: HashMap::new() };
        // A pointer's layout does not depend on its pointee, and a struct may hold a pointer
        // declared after it (OpTypeForwardPointer: a linked-list node pointing to its own
        // type), so pointers are laid out first.
        for t in &m.types {
            if let Type::Pointer { .. } = &t.ty {
                let info = l.compute(m, t.id, &t.ty)?;
                l.infos.insert(t.id, info);
            }
        }
        // The other types are declared before use, so one pass in order works.
        for t in &m.types {
            let info = l.compute(m, t.id, &t.ty)?;
            l.infos.insert(t.id, info);
        }
        Ok(l)
    }

    fn compute(&self, m: &Module, id: Id, ty: &Type) -> Result<Info, CompileError> {
        let scalar = |s: Scalar| Info {
            ty: Ty::Scalar(s),
            size: s.bytes() as u64,
            align: s.bytes() as u64,
            leaves: vec![s.clif()],
            offsets: vec![],
            stride: 0,
            elem: 0,
        };
        Ok(match ty {
            Type::Void => Info {
                ty: Ty::Void,
                size: 0,
                align: 1,
                leaves: vec![],
                offsets: vec![],
                stride: 0,
                elem: 0,
            },
            Type::Bool => scalar(Scalar::Bool),
            Type::Int { width, .. } => match width {
                8 | 16 | 32 | 64 => scalar(Scalar::Int(*width)),
                _ => return Err(err(format!("OpTypeInt %{id}: unsupported width {width}"))),
            },
            Type::Float { width } => match width {
                16 | 32 | 64 => scalar(Scalar::Float(*width)),
                _ => return Err(err(format!("OpTypeFloat %{id}: unsupported width {width}"))),
            },
            Type::Vector { component, count } => {
                let s = self
                    .scalar_of(*component)
                    .ok_or_else(|| err(format!("OpTypeVector %{id}: bad component")))?;
                let n = *count;
                let mem_n = if n == 3 { 4 } else { n } as u64;
                let size = mem_n * s.bytes() as u64;
                Info {
                    ty: Ty::Vector(s, n),
                    size,
                    align: size,
                    leaves: vec![s.clif(); n as usize],
                    offsets: vec![],
                    stride: s.bytes() as u64,
                    elem: *component,
                }
            }
            Type::Array { element, length } => {
                let e = self.get(*element)?;
                let len = match m.constant(*length).map(|c| &c.value) {
                    Some(ConstantValue::Scalar(v)) => *v,
                    _ => return Err(err(format!("OpTypeArray %{id}: length is not a constant"))),
                };
                let stride = m
                    .decorations_of(id)
                    .find(|d| d.decoration == Decoration::ArrayStride)
                    .and_then(|d| match d.operands.first() {
                        Some(rspirv::dr::Operand::LiteralBit32(v)) => Some(*v as u64),
                        _ => None,
                    })
                    .unwrap_or_else(|| round_up(e.size, e.align));
                let mut leaves = Vec::new();
                if (e.leaves.len() as u64).saturating_mul(len) <= 4096 {
                    for _ in 0..len {
                        leaves.extend_from_slice(&e.leaves);
                    }
                }
                // A size that does not fit is a compile error, never a wrapped-around size.
                let size = stride
                    .checked_mul(len)
                    .filter(|s| *s <= MAX_TYPE_SIZE)
                    .ok_or_else(|| err(format!("OpTypeArray %{id}: {len} elements is too large")))?;
                Info {
                    ty: Ty::Array(*element, len),
                    size,
                    align: e.align,
                    leaves,
                    offsets: vec![],
                    stride,
                    elem: *element,
                }
            }
            Type::RuntimeArray { element } => {
                let e = self.get(*element)?;
                Info {
                    ty: Ty::Array(*element, 0),
                    size: 0,
                    align: e.align,
                    leaves: vec![],
                    offsets: vec![],
                    stride: round_up(e.size, e.align),
                    elem: *element,
                }
            }
            Type::Struct { members } => {
                let packed = m.decorations_of(id).any(|d| d.decoration == Decoration::CPacked);
                let mut explicit: HashMap<u32, u64> = HashMap::new();
                for d in m
                    .decorations
                    .iter()
                    .filter(|d| d.target == id && d.decoration == Decoration::Offset)
                {
                    if let (Some(mi), Some(rspirv::dr::Operand::LiteralBit32(o))) = (d.member, d.operands.first()) {
                        explicit.insert(mi, *o as u64);
                    }
                }
                let mut off = 0u64;
                let mut align = 1u64;
                let mut offsets = Vec::new();
                let mut leaves = Vec::new();
                for (i, mid) in members.iter().enumerate() {
                    let mi = self.get(*mid)?;
                    let a = if packed { 1 } else { mi.align.max(1) };
                    let o = explicit.get(&(i as u32)).copied().unwrap_or_else(|| round_up(off, a));
                    offsets.push(o);
                    off = o
                        .checked_add(mi.size)
                        .filter(|s| *s <= MAX_TYPE_SIZE)
                        .ok_or_else(|| err(format!("OpTypeStruct %{id}: too large")))?;
                    align = align.max(a);
                    leaves.extend_from_slice(&mi.leaves);
                }
                Info {
                    ty: Ty::Struct(members.clone()),
                    size: round_up(off, align),
                    align,
                    leaves,
                    offsets,
                    stride: 0,
                    elem: 0,
                }
            }
            Type::Pointer { storage, pointee } => pointer_info(*storage, *pointee),
            Type::Function { .. } => Info {
                ty: Ty::Function,
                size: 0,
                align: 1,
                leaves: vec![],
                offsets: vec![],
                stride: 0,
                elem: 0,
            },
            // A sampled image is the image's descriptor address and the sampler's bits.
            Type::SampledImage { .. } => Info {
                ty: Ty::Struct(vec![]),
                size: 16,
                align: 8,
                leaves: vec![types::I64, types::I64],
                offsets: vec![],
                stride: 0,
                elem: 0,
            },
            // Opaque handles: images, samplers, events, queues ... one 64-bit word.
            _ => scalar(Scalar::Ptr),
        })
    }

    /// Lays out a pointer type the module does not declare (`promote`'s Function variables).
    pub fn add_pointer(&mut self, id: Id, storage: StorageClass, pointee: Id) {
        self.infos.insert(id, pointer_info(storage, pointee));
    }

    pub fn get(&self, id: Id) -> Result<&Info, CompileError> {
        self.infos
            .get(&id)
            .ok_or_else(|| err(format!("unknown or unsupported type %{id}")))
    }

    /// Scalar kind of a scalar type, or the component kind of a vector type.
    pub fn scalar_of(&self, id: Id) -> Option<Scalar> {
        match self.infos.get(&id)?.ty {
            Ty::Scalar(s) | Ty::Vector(s, _) => Some(s),
            Ty::Pointer(..) => Some(Scalar::Ptr),
            _ => None,
        }
    }

    /// `(scalar kind, component count)`; count 1 for scalars.
    pub fn shape(&self, id: Id) -> Result<(Scalar, u32), CompileError> {
        match self.get(id)?.ty {
            Ty::Scalar(s) => Ok((s, 1)),
            Ty::Vector(s, n) => Ok((s, n)),
            Ty::Pointer(..) => Ok((Scalar::Ptr, 1)),
            _ => Err(err(format!("type %{id} is not a scalar or vector"))),
        }
    }

    /// The type and leaf range selected by composite indices.
    pub fn select(&self, mut ty: Id, indices: &[u32]) -> Result<(Id, usize, usize), CompileError> {
        let mut start = 0usize;
        for &i in indices {
            let info = self.get(ty)?;
            match &info.ty {
                Ty::Vector(_, n) => {
                    if i >= *n {
                        return Err(err(format!("composite index {i} out of range")));
                    }
                    start += i as usize;
                    ty = info.elem;
                }
                Ty::Array(e, len) => {
                    if i as u64 >= *len {
                        return Err(err(format!("composite index {i} out of range")));
                    }
                    start += i as usize * self.get(*e)?.leaves.len();
                    ty = *e;
                }
                Ty::Struct(ms) => {
                    let Some(m) = ms.get(i as usize) else {
                        return Err(err(format!("composite index {i} out of range")));
                    };
                    for prev in &ms[..i as usize] {
                        start += self.get(*prev)?.leaves.len();
                    }
                    ty = *m;
                }
                _ => return Err(err(format!("composite index into non-composite type %{ty}"))),
            }
        }
        let n = self.get(ty)?.leaves.len();
        Ok((ty, start, n))
    }
}

/// The largest type Clift lays out (far beyond any memory; it keeps size arithmetic exact).
const MAX_TYPE_SIZE: u64 = 1 << 48;

/// A pointer's layout: one 64-bit word, whatever it points to.
fn pointer_info(storage: StorageClass, pointee: Id) -> Info {
    Info {
        ty: Ty::Pointer(storage, pointee),
        size: 8,
        align: 8,
        leaves: vec![types::I64],
        offsets: vec![],
        stride: 0,
        elem: 0,
    }
}

pub(crate) fn round_up(x: u64, a: u64) -> u64 {
    if a <= 1 {
        x
    } else {
        x.div_ceil(a) * a
    }
}

/// Copies `size` bytes from `src` to `dst` (a by-value argument's private copy).
/// Copies `size` bytes: inline loads and stores for small aggregates, a `memcpy` call beyond
/// 64 bytes so that a huge by-value argument cannot blow up the function's size.
pub(crate) fn copy_struct(b: &mut FunctionBuilder, cfg: TargetFrontendConfig, dst: Value, src: Value, size: u64) {
    if size > 64 {
        let n = b.ins().iconst(types::I64, size as i64);
        b.call_memcpy(cfg, dst, src, n);
        return;
    }
    let flags = MemFlagsData::trusted();
    let mut o = 0i64;
    while o < size as i64 {
        let (t, n) = if size as i64 - o >= 8 {
            (types::I64, 8)
        } else {
            (types::I8, 1)
        };
        let v = b.ins().load(t, flags, src, o as i32);
        b.ins().store(flags, v, dst, o as i32);
        o += n;
    }
}

/// Loads a value of type `ty` at `addr + off` as its flattened leaves.
pub(crate) fn load_leaves(
    layout: &Layout,
    b: &mut FunctionBuilder,
    ty: Id,
    addr: cranelift_codegen::ir::Value,
    off: i64,
) -> Result<Vec<cranelift_codegen::ir::Value>, CompileError> {
    let mut out = Vec::new();
    load_rec(layout, b, ty, addr, off, &mut out)?;
    Ok(out)
}

fn load_rec(
    layout: &Layout,
    b: &mut FunctionBuilder,
    ty: Id,
    addr: cranelift_codegen::ir::Value,
    off: i64,
    out: &mut Vec<cranelift_codegen::ir::Value>,
) -> Result<(), CompileError> {
    let info = layout.get(ty)?;
    let flags = MemFlagsData::new();
    match &info.ty {
        Ty::Scalar(s) => out.push(b.ins().load(s.clif(), flags, addr, off as i32)),
        Ty::Pointer(..) => out.push(b.ins().load(types::I64, flags, addr, off as i32)),
        Ty::Vector(s, n) => {
            for i in 0..*n as i64 {
                out.push(
                    b.ins()
                        .load(s.clif(), flags, addr, (off + i * info.stride as i64) as i32),
                );
            }
        }
        Ty::Array(e, n) => {
            let (e, n, stride) = (*e, *n, info.stride as i64);
            for i in 0..n as i64 {
                load_rec(layout, b, e, addr, off + i * stride, out)?;
            }
        }
        Ty::Struct(ms) => {
            let ms = ms.clone();
            let offs = info.offsets.clone();
            for (m, o) in ms.iter().zip(offs) {
                load_rec(layout, b, *m, addr, off + o as i64, out)?;
            }
        }
        Ty::Void | Ty::Function => return Err(CompileError::new(format!("cannot load a value of type %{ty}"))),
    }
    Ok(())
}

/// Stores flattened leaves as type `ty` at `addr + off`; returns the leaves consumed.
pub(crate) fn store_leaves(
    layout: &Layout,
    b: &mut FunctionBuilder,
    ty: Id,
    addr: cranelift_codegen::ir::Value,
    off: i64,
    vals: &[cranelift_codegen::ir::Value],
) -> Result<usize, CompileError> {
    let info = layout.get(ty)?;
    let flags = MemFlagsData::new();
    let need = |n: usize| {
        if vals.len() < n {
            Err(CompileError::new(format!("stored value does not match type %{ty}")))
        } else {
            Ok(())
        }
    };
    Ok(match &info.ty {
        Ty::Scalar(_) | Ty::Pointer(..) => {
            need(1)?;
            b.ins().store(flags, vals[0], addr, off as i32);
            1
        }
        Ty::Vector(_, n) => {
            need(*n as usize)?;
            for (i, v) in vals.iter().take(*n as usize).enumerate() {
                let o = off + i as i64 * info.stride as i64;
                b.ins().store(flags, *v, addr, o as i32);
            }
            *n as usize
        }
        Ty::Array(e, n) => {
            let (e, n, stride) = (*e, *n, info.stride as i64);
            let mut used = 0;
            for i in 0..n as i64 {
                used += store_leaves(layout, b, e, addr, off + i * stride, &vals[used..])?;
            }
            used
        }
        Ty::Struct(ms) => {
            let ms = ms.clone();
            let offs = info.offsets.clone();
            let mut used = 0;
            for (m, o) in ms.iter().zip(offs) {
                used += store_leaves(layout, b, *m, addr, off + o as i64, &vals[used..])?;
            }
            used
        }
        Ty::Void | Ty::Function => return Err(CompileError::new(format!("cannot store a value of type %{ty}"))),
    })
}
