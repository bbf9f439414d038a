//! Native images of compiled programs, for the runtime's persistent cache: the machine code
//! of every function with its relocations, the program-scope data, and each kernel's launch
//! description. Loading an image hands the bytes back to a fresh Cranelift JIT module, which
//! places and links them exactly as after a compilation, so a cache hit skips the SPIR-V
//! translation and Cranelift's code generation both.
//!
//! An image is only valid for the Clift build and CPU it was made on; the runtime keys its
//! cache entries on both. Loading still checks every length, index and relocation offset,
//! so a damaged image is an error, never a wild write.

use super::context::Recorder;
use super::program::{new_jit, program_from, Code, Kernel0, Pending};
use super::{BarrierStrategy, CompileError, Program};
use crate::abi::{ArgKind, KernelArg};
use cranelift_codegen::binemit::Reloc;
use cranelift_codegen::ir::LibCall;
use cranelift_jit::JITModule;
use cranelift_module::{DataDescription, DataId, FuncId, Linkage, Module as _, ModuleReloc, ModuleRelocTarget};

const MAGIC: &[u8; 8] = b"CLIFTNI3";

/// The relocation kinds an image can carry (those of x86-64 and AArch64 code without PIC).
const RELOCS: &[Reloc] = &[
    Reloc::Abs4,
    Reloc::Abs8,
    Reloc::X86PCRel4,
    Reloc::X86CallPCRel4,
    Reloc::X86CallPLTRel4,
    Reloc::Arm64Call,
];

fn linkage_code(l: Linkage) -> u8 {
    match l {
        Linkage::Import => 0,
        Linkage::Local => 1,
        Linkage::Preemptible => 2,
        Linkage::Hidden => 3,
        Linkage::Export => 4,
    }
}

fn linkage_from(c: u8) -> Option<Linkage> {
    Some(match c {
        0 => Linkage::Import,
        1 => Linkage::Local,
        2 => Linkage::Preemptible,
        3 => Linkage::Hidden,
        4 => Linkage::Export,
        _ => return None,
    })
}

fn arg_kind_code(k: ArgKind) -> u8 {
    match k {
        ArgKind::Global => 0,
        ArgKind::Constant => 1,
        ArgKind::Local => 2,
        ArgKind::Value => 3,
        ArgKind::Image => 4,
        ArgKind::Sampler => 5,
        ArgKind::Pipe => 6,
    }
}

fn arg_kind_from(c: u8) -> Option<ArgKind> {
    Some(match c {
        0 => ArgKind::Global,
        1 => ArgKind::Constant,
        2 => ArgKind::Local,
        3 => ArgKind::Value,
        4 => ArgKind::Image,
        5 => ArgKind::Sampler,
        6 => ArgKind::Pipe,
        _ => return None,
    })
}

fn strategy_code(s: BarrierStrategy) -> u8 {
    match s {
        BarrierStrategy::WorkItemLoops => 0,
        BarrierStrategy::Regions => 1,
        BarrierStrategy::Fibers => 2,
    }
}

fn strategy_from(c: u8) -> Option<BarrierStrategy> {
    Some(match c {
        0 => BarrierStrategy::WorkItemLoops,
        1 => BarrierStrategy::Regions,
        2 => BarrierStrategy::Fibers,
        _ => return None,
    })
}

/// Little-endian writer of the image format.
#[derive(Default)]
struct Writer(Vec<u8>);

impl Writer {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn bytes(&mut self, b: &[u8]) {
        self.u64(b.len() as u64);
        self.0.extend_from_slice(b);
    }
    fn str(&mut self, s: &str) {
        self.bytes(s.as_bytes());
    }
    fn opt3(&mut self, v: Option<[u32; 3]>) {
        match v {
            Some(a) => {
                self.u8(1);
                a.iter().for_each(|x| self.u32(*x));
            }
            None => self.u8(0),
        }
    }
}

/// Bounds-checked reader; every method fails (None) past the end.
struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let s = self.b.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(s)
    }
    fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    fn len(&mut self) -> Option<usize> {
        usize::try_from(self.u64()?).ok()
    }
    fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = self.len()?;
        self.take(n)
    }
    fn str(&mut self) -> Option<String> {
        String::from_utf8(self.bytes()?.to_vec()).ok()
    }
    fn opt3(&mut self) -> Option<Option<[u32; 3]>> {
        Some(match self.u8()? {
            0 => None,
            1 => Some([self.u32()?, self.u32()?, self.u32()?]),
            _ => return None,
        })
    }
}

/// Writes the image of a finalized compilation; `None` when it holds something an image
/// cannot carry.
pub(crate) fn encode(jit: &JITModule, rec: &Recorder, kernels: &[Pending]) -> Option<Vec<u8>> {
    if !rec.complete {
        return None;
    }
    let mut w = Writer::default();
    w.0.extend_from_slice(MAGIC);
    let decls = jit.declarations();
    let funcs: Vec<_> = decls.get_functions().collect();
    w.u64(funcs.len() as u64);
    for (i, (id, d)) in funcs.iter().enumerate() {
        if id.as_u32() as usize != i {
            return None;
        }
        w.u8(linkage_code(d.linkage));
        w.str(d.name.as_deref()?);
    }
    let data: Vec<_> = decls.get_data_objects().collect();
    w.u64(data.len() as u64);
    for (i, (id, d)) in data.iter().enumerate() {
        if id.as_u32() as usize != i || d.tls {
            return None;
        }
        w.u8(linkage_code(d.linkage));
        w.u8(d.writable as u8);
        w.str(d.name.as_deref()?);
    }
    w.u64(rec.data.len() as u64);
    for d in &rec.data {
        w.u32(d.id.as_u32());
        w.u64(d.align);
        w.bytes(&d.bytes);
        w.u64(d.relocs.len() as u64);
        for (offset, target, addend) in &d.relocs {
            w.u32(*offset);
            w.u32(target.as_u32());
            w.u64(*addend as u64);
        }
    }
    w.u64(rec.funcs.len() as u64);
    for f in &rec.funcs {
        w.u32(f.id.as_u32());
        w.u64(f.align);
        w.bytes(&f.bytes);
        w.u64(f.relocs.len() as u64);
        for r in &f.relocs {
            w.u32(r.offset);
            w.u8(RELOCS.iter().position(|k| *k == r.kind)? as u8);
            w.u64(r.addend as u64);
            match &r.name {
                ModuleRelocTarget::User { namespace, index } => {
                    w.u8(0);
                    w.u32(*namespace);
                    w.u32(*index);
                }
                ModuleRelocTarget::LibCall(lc) => {
                    w.u8(1);
                    w.str(&lc.to_string());
                }
                ModuleRelocTarget::FunctionOffset(fid, off) => {
                    w.u8(2);
                    w.u32(fid.as_u32());
                    w.u32(*off);
                }
                ModuleRelocTarget::KnownSymbol(_) => return None,
            }
        }
    }
    w.u64(kernels.len() as u64);
    for p in kernels {
        let k = &p.kernel;
        w.str(&k.name);
        w.u64(k.args.len() as u64);
        for a in &k.args {
            w.u8(arg_kind_code(a.kind));
            w.u64(a.offset as u64);
            w.u64(a.size as u64);
            w.u64(a.align as u64);
            match &a.name {
                Some(n) => {
                    w.u8(1);
                    w.str(n);
                }
                None => w.u8(0),
            }
        }
        w.u64(k.args_size as u64);
        w.u64(k.static_local_size as u64);
        w.opt3(k.reqd);
        w.opt3(k.hint);
        w.u64(k.private as u64);
        w.u8(k.has_barriers as u8);
        w.u8(k.shared_atomics as u8);
        w.u8(k.group_blind as u8);
        w.u32(k.promoted_loops);
        w.u64(k.robust_tail.map_or(0, |t| t as u64 + 1));
        w.u8(strategy_code(p.strategy));
        match p.code {
            Code::Group(fid, record) => {
                w.u8(0);
                w.u32(fid.as_u32());
                w.u64(record as u64);
            }
            Code::Fiber(fid) => {
                w.u8(1);
                w.u32(fid.as_u32());
            }
        }
    }
    Some(w.0)
}

fn bad(what: &str) -> CompileError {
    CompileError::new(format!("cached native code is damaged ({what})"))
}

/// Loads an image written by [`encode`] by the same Clift build on the same CPU.
pub fn load(image: &[u8]) -> Result<Program, CompileError> {
    let mut r = Reader { b: image, at: 0 };
    if r.take(MAGIC.len()) != Some(MAGIC.as_slice()) {
        return Err(bad("magic"));
    }
    let (mut jit, symbols) = new_jit(false)?;
    let sig = jit.make_signature();
    let nfuncs = r.len().ok_or_else(|| bad("function count"))?;
    let mut lengths = Vec::new();
    for i in 0..nfuncs {
        let linkage = r.u8().and_then(linkage_from).ok_or_else(|| bad("linkage"))?;
        let name = r.str().ok_or_else(|| bad("function name"))?;
        // An import the JIT cannot resolve would fail (panic) in the linker.
        if linkage == Linkage::Import && !symbols.contains(name.as_str()) {
            return Err(bad("imported function"));
        }
        let id = jit
            .declare_function(&name, linkage, &sig)
            .map_err(|e| bad(&e.to_string()))?;
        if id.as_u32() as usize != i {
            return Err(bad("function order"));
        }
        lengths.push(None::<usize>);
    }
    let ndata = r.len().ok_or_else(|| bad("data count"))?;
    for i in 0..ndata {
        let linkage = r.u8().and_then(linkage_from).ok_or_else(|| bad("linkage"))?;
        let writable = r.u8().ok_or_else(|| bad("data flags"))? != 0;
        let name = r.str().ok_or_else(|| bad("data name"))?;
        let id = jit
            .declare_data(&name, linkage, writable, false)
            .map_err(|e| bad(&e.to_string()))?;
        if id.as_u32() as usize != i {
            return Err(bad("data order"));
        }
    }
    let ndefs = r.len().ok_or_else(|| bad("data definitions"))?;
    let mut defs = Vec::new();
    let mut defined = vec![false; ndata];
    for _ in 0..ndefs {
        let id = r.u32().ok_or_else(|| bad("data id"))?;
        if id as usize >= ndata || std::mem::replace(&mut defined[id as usize], true) {
            return Err(bad("data id"));
        }
        let align = r
            .u64()
            .filter(|a| a.is_power_of_two())
            .ok_or_else(|| bad("data alignment"))?;
        let bytes = r.bytes().ok_or_else(|| bad("data bytes"))?;
        let nrel = r.len().ok_or_else(|| bad("data relocation count"))?;
        let mut relocs = Vec::with_capacity(nrel.min(1 << 16));
        for _ in 0..nrel {
            let offset = r.u32().ok_or_else(|| bad("data relocation"))?;
            // Each relocation is a pointer written into the bytes.
            if (offset as usize).checked_add(8).is_none_or(|end| end > bytes.len()) {
                return Err(bad("data relocation offset"));
            }
            let target = r
                .u32()
                .filter(|t| (*t as usize) < ndata)
                .ok_or_else(|| bad("data relocation target"))?;
            let addend = r.u64().ok_or_else(|| bad("data relocation"))? as i64;
            relocs.push((offset, DataId::from_u32(target), addend));
        }
        defs.push((DataId::from_u32(id), align, bytes, relocs));
    }
    for (id, align, bytes, relocs) in defs {
        let mut dd = DataDescription::new();
        for (offset, target, addend) in relocs {
            // The JIT resolves a reference to an undefined variable by panicking.
            if !defined[target.as_u32() as usize] {
                return Err(bad("data relocation target"));
            }
            let gv = jit.declare_data_in_data(target, &mut dd);
            dd.write_data_addr(offset, gv, addend);
        }
        dd.define(bytes.to_vec().into_boxed_slice());
        dd.set_align(align);
        jit.define_data(id, &dd).map_err(|e| bad(&e.to_string()))?;
    }
    let nbodies = r.len().ok_or_else(|| bad("function definitions"))?;
    // Functions the code refers to: each must be defined here or imported.
    let mut referenced: Vec<u32> = Vec::new();
    for _ in 0..nbodies {
        let id = r.u32().ok_or_else(|| bad("function id"))?;
        if id as usize >= nfuncs {
            return Err(bad("function id"));
        }
        let align = r
            .u64()
            .filter(|a| a.is_power_of_two() && *a <= 4096)
            .ok_or_else(|| bad("code alignment"))?;
        let bytes = r.bytes().ok_or_else(|| bad("code"))?;
        let nrel = r.len().ok_or_else(|| bad("relocation count"))?;
        let mut relocs = Vec::with_capacity(nrel.min(1 << 16));
        for _ in 0..nrel {
            let offset = r.u32().ok_or_else(|| bad("relocation"))?;
            let kind = *r
                .u8()
                .and_then(|k| RELOCS.get(k as usize))
                .ok_or_else(|| bad("relocation kind"))?;
            let width = match kind {
                Reloc::Abs8 => 8,
                _ => 4,
            };
            if (offset as usize).checked_add(width).is_none_or(|end| end > bytes.len()) {
                return Err(bad("relocation offset"));
            }
            let addend = r.u64().ok_or_else(|| bad("relocation"))? as i64;
            let name = match r.u8() {
                Some(0) => {
                    let namespace = r.u32().ok_or_else(|| bad("relocation target"))?;
                    let index = r.u32().ok_or_else(|| bad("relocation target"))?;
                    let count = match namespace {
                        0 => nfuncs,
                        1 => ndata,
                        _ => return Err(bad("relocation namespace")),
                    };
                    if index as usize >= count {
                        return Err(bad("relocation target"));
                    }
                    if namespace == 0 {
                        referenced.push(index);
                    }
                    ModuleRelocTarget::User { namespace, index }
                }
                Some(1) => {
                    let name = r.str().ok_or_else(|| bad("libcall"))?;
                    ModuleRelocTarget::LibCall(name.parse::<LibCall>().map_err(|_| bad("libcall"))?)
                }
                Some(2) => {
                    let fid = r
                        .u32()
                        .filter(|f| (*f as usize) < nfuncs)
                        .ok_or_else(|| bad("offset target"))?;
                    let off = r.u32().ok_or_else(|| bad("offset target"))?;
                    referenced.push(fid);
                    ModuleRelocTarget::FunctionOffset(FuncId::from_u32(fid), off)
                }
                _ => return Err(bad("relocation target")),
            };
            relocs.push(ModuleReloc {
                offset,
                kind,
                name,
                addend,
            });
        }
        lengths[id as usize] = Some(bytes.len());
        jit.define_function_bytes(FuncId::from_u32(id), align, bytes, &relocs)
            .map_err(|e| bad(&e.to_string()))?;
    }
    for fid in referenced {
        let decl = jit.declarations().get_function_decl(FuncId::from_u32(fid));
        if decl.linkage != Linkage::Import && lengths.get(fid as usize).copied().flatten().is_none() {
            return Err(bad("call of an undefined function"));
        }
    }
    let nkernels = r.len().ok_or_else(|| bad("kernel count"))?;
    let mut kernels = Vec::new();
    for _ in 0..nkernels.min(1 << 16) {
        let name = r.str().ok_or_else(|| bad("kernel name"))?;
        let nargs = r.len().ok_or_else(|| bad("argument count"))?;
        let mut args = Vec::new();
        for _ in 0..nargs.min(1 << 16) {
            let kind = r.u8().and_then(arg_kind_from).ok_or_else(|| bad("argument kind"))?;
            let offset = r.len().ok_or_else(|| bad("argument"))?;
            let size = r.len().ok_or_else(|| bad("argument"))?;
            let align = r.len().ok_or_else(|| bad("argument"))?;
            let name = match r.u8() {
                Some(1) => Some(r.str().ok_or_else(|| bad("argument name"))?),
                Some(0) => None,
                _ => return Err(bad("argument name")),
            };
            args.push(KernelArg {
                kind,
                offset,
                size,
                align,
                name,
            });
        }
        let args_size = r.len().ok_or_else(|| bad("argument block"))?;
        if args
            .iter()
            .any(|a| a.offset.checked_add(a.size).is_none_or(|e| e > args_size))
        {
            return Err(bad("argument layout"));
        }
        let static_local_size = r.len().ok_or_else(|| bad("local size"))?;
        let reqd = r.opt3().ok_or_else(|| bad("work-group size"))?;
        let hint = r.opt3().ok_or_else(|| bad("work-group size hint"))?;
        let private = r.len().ok_or_else(|| bad("private size"))?;
        let has_barriers = r.u8().ok_or_else(|| bad("barriers"))? != 0;
        let shared_atomics = r.u8().ok_or_else(|| bad("atomics"))? != 0;
        let group_blind = r.u8().ok_or_else(|| bad("group blind"))? != 0;
        let promoted_loops = r.u32().ok_or_else(|| bad("promoted loops"))?;
        let robust_tail = match r.len().ok_or_else(|| bad("robust tail"))? {
            0 => None,
            t if t - 1 + crate::codegen::robust::robust_tail(args.len()) == args_size => Some(t - 1),
            _ => return Err(bad("robust tail")),
        };
        let strategy = r.u8().and_then(strategy_from).ok_or_else(|| bad("strategy"))?;
        let code = match r.u8() {
            Some(0) => Code::Group(
                FuncId::from_u32(r.u32().ok_or_else(|| bad("entry"))?),
                r.len().ok_or_else(|| bad("record"))?,
            ),
            Some(1) => Code::Fiber(FuncId::from_u32(r.u32().ok_or_else(|| bad("entry"))?)),
            _ => return Err(bad("entry")),
        };
        let (Code::Group(fid, _) | Code::Fiber(fid)) = code;
        if lengths.get(fid.as_u32() as usize).copied().flatten().is_none() {
            return Err(bad("entry function"));
        }
        kernels.push(Pending {
            kernel: Kernel0 {
                name,
                args,
                args_size,
                static_local_size,
                reqd,
                hint,
                private,
                has_barriers,
                shared_atomics,
                group_blind,
                promoted_loops,
                robust_tail,
            },
            code,
            strategy,
        });
    }
    if r.at != image.len() {
        return Err(bad("trailing bytes"));
    }
    jit.finalize_definitions().map_err(|e| bad(&format!("linking: {e}")))?;
    Ok(program_from(jit, kernels))
}
