//! Image reads generated inline for their format and sampler (issue 15, item 3).
//!
//! When the format and image type of an image argument are known (an enqueue's variant of the
//! kernel: `CompileOptions::specialize`, `ArgFact::Image`) and so are the sampler bits (a
//! literal or `OpConstantSampler` sampler, or an enqueue's `ArgFact::Sampler`), a read is
//! Cranelift IR for that combination: the addressing, filtering and conversion of the
//! reference engine (`crate::image::sample`, `crate::image::convert`) with every decision
//! taken at compile time, `roundss` floors, the texel decoded and combined in SIMD registers
//! and the result left in a register. Everything else (other formats, read kinds the format
//! does not return, invalid sampler bits, unknown formats or samplers) calls the image's read
//! table as before (`super::image`).
//!
//! The code is the engine's computation step by step, so the results are bit for bit the
//! engine's (`cts/tests/image_inline.rs` compares them over every combination served). The
//! differences it relies on, each harmless:
//! - `floor` and `nearest` (round half to even) are the IEEE operations, where the engine's
//!   `floor_f32` / `rint_f32` give +0 for -0 and for the values that round to zero: only the
//!   sign of a zero differs, and every such zero is either turned into an integer, or is the
//!   subtrahend of a difference that cannot be zero, or goes through `abs`.
//! - Indices are 32-bit (`fcvt_to_sint_sat` to i32) where the engine clamps to ±2^41 in 64
//!   bits: with every size at most 2^24 (`super::INLINE_MAX_EXTENT`, the enqueue checks it),
//!   an index the engine clamps is out of range here too, on the same side; the `+ 1` of
//!   linear filtering is taken after clamping to 2^30, so it cannot wrap.
//! - Accesses the engine checks against the image and that provably fall inside
//!   (clamp-to-edge, repeat and mirrored repeat give indices in range; the layer is clamped)
//!   are not checked. For clamp and none, and for sampler-less reads, an index outside reads
//!   the border colour, as in the engine, from a load of the image's first texel.
//! - A NaN result may be another NaN (the engine's NaN passes through its software floor;
//!   `roundss` quiets it).

use super::state::FnTx;
use super::vector::vflags;
use super::ArgFact;
use crate::abi::{self, sampler_bits as sb};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, ConstantData, InstBuilder, InstructionData, MemFlagsData, Opcode, Value, ValueDef};
use cranelift_module::Module;
use opencl_sys::*;

const DATA_OFFSET: i32 = std::mem::offset_of!(abi::ImageDesc, data) as i32;
const ROW_PITCH_OFFSET: i32 = std::mem::offset_of!(abi::ImageDesc, row_pitch) as i32;
const SLICE_PITCH_OFFSET: i32 = std::mem::offset_of!(abi::ImageDesc, slice_pitch) as i32;

/// A channel data type reads are generated for.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Dt {
    Unorm8,
    Unorm16,
    Half,
    Float,
    S8,
    S16,
    S32,
    U8,
    U16,
    U32,
}

impl Dt {
    fn bytes(self) -> u32 {
        match self {
            Dt::Unorm8 | Dt::S8 | Dt::U8 => 1,
            Dt::Unorm16 | Dt::Half | Dt::S16 | Dt::U16 => 2,
            Dt::Float | Dt::S32 | Dt::U32 => 4,
        }
    }

    /// read_imagef/h reads it (else read_imagei/ui).
    fn is_float(self) -> bool {
        matches!(self, Dt::Unorm8 | Dt::Unorm16 | Dt::Half | Dt::Float)
    }

    fn signed(self) -> bool {
        matches!(self, Dt::S8 | Dt::S16 | Dt::S32)
    }
}

/// The format and image type of an image reads are generated for.
#[derive(Clone, Copy, Debug)]
struct Shape {
    dt: Dt,
    /// Stored channels: 1 (R), 2 (RG) or 4 (RGBA, BGRA).
    channels: u32,
    bgra: bool,
    /// Spatial dimensions (1, 2 or 3) and whether the image is an array.
    dims: usize,
    arrayed: bool,
}

impl Shape {
    fn elem(&self) -> u32 {
        self.dt.bytes() * self.channels
    }

    /// The border colour's alpha is 1 (R, RG: no alpha channel), else 0.
    fn alpha_one(&self) -> bool {
        self.channels < 4
    }
}

fn shape(order: u32, data_type: u32, image_type: u32) -> Option<Shape> {
    let dt = match data_type {
        CL_UNORM_INT8 => Dt::Unorm8,
        CL_UNORM_INT16 => Dt::Unorm16,
        CL_HALF_FLOAT => Dt::Half,
        CL_FLOAT => Dt::Float,
        CL_SIGNED_INT8 => Dt::S8,
        CL_SIGNED_INT16 => Dt::S16,
        CL_SIGNED_INT32 => Dt::S32,
        CL_UNSIGNED_INT8 => Dt::U8,
        CL_UNSIGNED_INT16 => Dt::U16,
        CL_UNSIGNED_INT32 => Dt::U32,
        _ => return None,
    };
    let (channels, bgra) = match order {
        CL_RGBA => (4, false),
        // The format table has BGRA in 8-bit types only.
        CL_BGRA if matches!(dt, Dt::Unorm8 | Dt::S8 | Dt::U8) => (4, true),
        CL_R => (1, false),
        CL_RG => (2, false),
        _ => return None,
    };
    let (dims, arrayed) = match image_type {
        CL_MEM_OBJECT_IMAGE1D | CL_MEM_OBJECT_IMAGE1D_BUFFER => (1, false),
        CL_MEM_OBJECT_IMAGE1D_ARRAY => (1, true),
        CL_MEM_OBJECT_IMAGE2D => (2, false),
        CL_MEM_OBJECT_IMAGE2D_ARRAY => (2, true),
        CL_MEM_OBJECT_IMAGE3D => (3, false),
        _ => return None,
    };
    Some(Shape {
        dt,
        channels,
        bgra,
        dims,
        arrayed,
    })
}

/// Whether reads of this format and image type can be generated inline.
pub(crate) fn served(order: u32, data_type: u32, image_type: u32) -> bool {
    shape(order, data_type, image_type).is_some()
}

/// The image's descriptor fields a read uses, loaded once per read.
struct Geo {
    data: Value,
    /// Width, height, depth as i32 (only the first `dims` are loaded).
    size: [Option<Value>; 3],
    layers: Option<Value>,
    row_pitch: Option<Value>,
    slice_pitch: Option<Value>,
}

/// The two texels and the weight of one axis of a linear read.
#[derive(Clone, Copy)]
struct Lin {
    i0: Value,
    i1: Value,
    frac: Value,
}

impl FnTx<'_, '_, '_> {
    fn smax_c(&mut self, x: Value, c: i64) -> Value {
        let k = self.b.ins().iconst(types::I32, c);
        self.b.ins().smax(x, k)
    }

    fn smin_c(&mut self, x: Value, c: i64) -> Value {
        let k = self.b.ins().iconst(types::I32, c);
        self.b.ins().smin(x, k)
    }

    /// The value's constant, when it is an `iconst`.
    pub(crate) fn iconst_of(&self, v: Value) -> Option<i64> {
        let v = self.b.func.dfg.resolve_aliases(v);
        match self.b.func.dfg.value_def(v) {
            ValueDef::Result(inst, _) => match self.b.func.dfg.insts[inst] {
                InstructionData::UnaryImm {
                    opcode: Opcode::Iconst,
                    imm,
                } => Some(imm.bits()),
                _ => None,
            },
            _ => None,
        }
    }

    /// The shape of the image `image` (a descriptor pointer) when an enqueue gave its format
    /// and floors lower to one instruction on this target.
    fn inline_shape(&self, image: Value) -> Option<Shape> {
        let Some(ArgFact::Image {
            order,
            data_type,
            image_type,
        }) = self.cx.image_facts.get(&image).copied()
        else {
            return None;
        };
        let isa = self.cx.jit.isa();
        if isa.name() == "x64"
            && !isa
                .isa_flags()
                .iter()
                .any(|f| f.name == "has_sse41" && f.as_bool() == Some(true))
        {
            return None;
        }
        shape(order, data_type, image_type)
    }

    /// read_imagef/i/ui with sampler bits `sampler` of image `image` at float coordinates
    /// `c`, generated inline: the 4 components in one register (F32X4 when `float`, else
    /// I32X4), or `None` when this read is not generated inline.
    pub(crate) fn inline_sample(&mut self, image: Value, sampler: u32, c: [Value; 3], float: bool) -> Option<Value> {
        let sh = self.inline_shape(image)?;
        let s = sampler & 63;
        let addr = s & sb::ADDRESS_MASK;
        let linear = match s & sb::FILTER_MASK {
            sb::FILTER_NEAREST => false,
            sb::FILTER_LINEAR => true,
            _ => return None,
        };
        if addr > sb::ADDRESS_MIRRORED_REPEAT || sh.dt.is_float() != float {
            return None;
        }
        // A 1D buffer has no sampled reads (the engine's table sends them to the generic
        // entry point; so does this).
        if self.inline_image_type(image) == Some(CL_MEM_OBJECT_IMAGE1D_BUFFER) {
            return None;
        }
        let norm = s & sb::NORMALIZED != 0;
        let geo = self.geo(image, &sh);
        let layer = if sh.arrayed {
            let l = self.b.ins().nearest(c[sh.dims]);
            let l = self.b.ins().fcvt_to_sint_sat(types::I32, l);
            let l = self.smax_c(l, 0);
            let top = geo.layers.map(|n| self.b.ins().iadd_imm_s(n, -1))?;
            Some(self.b.ins().smin(l, top))
        } else {
            None
        };
        // Accesses that can fall outside the image: clamp and none.
        let check = matches!(addr, sb::ADDRESS_CLAMP | sb::ADDRESS_NONE);
        // Integer formats read nearest whatever the filter (as the engine).
        if !linear || !sh.dt.is_float() {
            let mut ijk = [None; 3];
            for (d, o) in ijk.iter_mut().enumerate().take(sh.dims) {
                *o = Some(self.nearest_axis(addr, norm, c[d], geo.size[d]?));
            }
            return Some(self.fetch(&sh, &geo, ijk, layer, check));
        }
        let mut ax = Vec::with_capacity(3);
        for (d, &x) in c.iter().enumerate().take(sh.dims) {
            ax.push(self.linear_axis(addr, norm, x, geo.size[d]?));
        }
        let one = self.b.ins().f32const(1.0);
        let w = |t: &mut Self, l: &Lin| (t.b.ins().fsub(one, l.frac), l.frac);
        let t = |tx: &mut Self, i: Value, j: Option<Value>, k: Option<Value>| {
            tx.fetch(&sh, &geo, [Some(i), j, k], layer, check)
        };
        let splat = |t: &mut Self, x: Value| t.b.ins().splat(types::F32X4, x);
        Some(match sh.dims {
            1 => {
                let x = ax[0];
                let (na, a) = w(self, &x);
                let t0 = t(self, x.i0, None, None);
                let t1 = t(self, x.i1, None, None);
                let (wa, wb) = (splat(self, na), splat(self, a));
                let p0 = self.b.ins().fmul(wa, t0);
                let p1 = self.b.ins().fmul(wb, t1);
                self.b.ins().fadd(p0, p1)
            }
            2 => {
                let (x, y) = (ax[0], ax[1]);
                let (na, a) = w(self, &x);
                let (nb, b) = w(self, &y);
                let t00 = t(self, x.i0, Some(y.i0), None);
                let t10 = t(self, x.i1, Some(y.i0), None);
                let t01 = t(self, x.i0, Some(y.i1), None);
                let t11 = t(self, x.i1, Some(y.i1), None);
                let ws = [(na, nb), (a, nb), (na, b), (a, b)];
                let ts = [t00, t10, t01, t11];
                let mut acc = None;
                for ((p, q), tx) in ws.into_iter().zip(ts) {
                    let wgt = self.b.ins().fmul(p, q);
                    let wv = splat(self, wgt);
                    let term = self.b.ins().fmul(wv, tx);
                    acc = Some(match acc {
                        None => term,
                        Some(s) => self.b.ins().fadd(s, term),
                    });
                }
                acc?
            }
            _ => {
                let (x, y, z) = (ax[0], ax[1], ax[2]);
                let (na, a) = w(self, &x);
                let (nb, b) = w(self, &y);
                let (nc, cc) = w(self, &z);
                // Terms in the engine's order: x fastest, then y, then z.
                let mut acc = None;
                for (zi, zw) in [(z.i0, nc), (z.i1, cc)] {
                    for (yi, yw) in [(y.i0, nb), (y.i1, b)] {
                        for (xi, xw) in [(x.i0, na), (x.i1, a)] {
                            let tx = t(self, xi, Some(yi), Some(zi));
                            let w0 = self.b.ins().fmul(xw, yw);
                            let wgt = self.b.ins().fmul(w0, zw);
                            let wv = splat(self, wgt);
                            let term = self.b.ins().fmul(wv, tx);
                            acc = Some(match acc {
                                None => term,
                                Some(s) => self.b.ins().fadd(s, term),
                            });
                        }
                    }
                }
                acc?
            }
        })
    }

    /// Sampler-less read_imagef/i/ui of image `image` at integer coordinates `c`, generated
    /// inline (see `inline_sample`).
    pub(crate) fn inline_read(&mut self, image: Value, c: [Value; 3], float: bool) -> Option<Value> {
        let (sh, geo, ijk, layer) = self.integer_access(image, c, float)?;
        Some(self.fetch(&sh, &geo, ijk, layer, true))
    }

    /// The shape and descriptor fields of an inline sampler-less access to `image` of the
    /// kind `float` says, with integer coordinates `c` split into spatial indices and layer;
    /// `None` when the image's format is not served or takes the other kind.
    #[allow(clippy::type_complexity)]
    fn integer_access(
        &mut self,
        image: Value,
        c: [Value; 3],
        float: bool,
    ) -> Option<(Shape, Geo, [Option<Value>; 3], Option<Value>)> {
        let sh = self.inline_shape(image)?;
        if sh.dt.is_float() != float {
            return None;
        }
        let geo = self.geo(image, &sh);
        let mut ijk = [None; 3];
        for (d, o) in ijk.iter_mut().enumerate().take(sh.dims) {
            *o = Some(c[d]);
        }
        let layer = if sh.arrayed { c.get(sh.dims).copied() } else { None };
        Some((sh, geo, ijk, layer))
    }

    /// write_imagef/i/ui of the four 32-bit components `v` (floats when `float`) to image
    /// `image` at integer coordinates `c`, generated inline: the engine's `encode_float` /
    /// `encode_int` for the format, stored where the texel lies, and nothing stored (the
    /// stores go to a scratch slot) where a coordinate is outside the image. `None`: not
    /// generated inline (another format, or a write kind the format does not take), nothing
    /// emitted.
    pub(crate) fn inline_write(&mut self, image: Value, c: [Value; 3], v: [Value; 4], float: bool) -> Option<()> {
        let (sh, geo, ijk, layer) = self.integer_access(image, c, float)?;
        let (at, inside) = self.texel_address(&sh, &geo, ijk, layer, true);
        let at = match inside {
            Some(ok) => {
                let scratch = self.texel_slot();
                self.b.ins().select(ok, at, scratch)
            }
            None => at,
        };
        // The stored channels' sources (the format's `sources`): BGRA stores z, y, x, w.
        let order: &[usize] = match (sh.channels, sh.bgra) {
            (4, true) => &[2, 1, 0, 3],
            (4, false) => &[0, 1, 2, 3],
            (2, _) => &[0, 1],
            _ => &[0],
        };
        let flags = MemFlagsData::new().with_notrap();
        let bytes = sh.dt.bytes() as i32;
        for (slot, &src) in order.iter().enumerate() {
            let x = self.encode_channel(sh.dt, v[src]);
            self.b.ins().store(flags, x, at, bytes * slot as i32);
        }
        Some(())
    }

    /// One channel of a written texel as its stored integer (I8, I16 or I32), by the rules
    /// of 7.4 as the engine's `encode_int` / `encode_float` apply them.
    fn encode_channel(&mut self, dt: Dt, x: Value) -> Value {
        match dt {
            Dt::S8 | Dt::S16 => {
                let max = if dt == Dt::S8 { 127 } else { 32767 };
                let x = self.smin_c(x, max);
                let x = self.smax_c(x, -max - 1);
                let t = if dt == Dt::S8 { types::I8 } else { types::I16 };
                self.b.ins().ireduce(t, x)
            }
            Dt::U8 | Dt::U16 => {
                let (max, t) = if dt == Dt::U8 {
                    (255, types::I8)
                } else {
                    (65535, types::I16)
                };
                let k = self.b.ins().iconst(types::I32, max);
                let x = self.b.ins().umin(x, k);
                self.b.ins().ireduce(t, x)
            }
            Dt::S32 | Dt::U32 => x,
            Dt::Float => self.b.ins().bitcast(types::I32, MemFlagsData::new(), x),
            Dt::Unorm8 | Dt::Unorm16 => {
                // to_unorm: rint(clamp(x * max, 0, max)) in double (exact products), NaN 0.
                let (max, t) = if dt == Dt::Unorm8 {
                    (255.0, types::I8)
                } else {
                    (65535.0, types::I16)
                };
                let d = self.b.ins().fpromote(types::F64, x);
                let m = self.b.ins().f64const(max);
                let p = self.b.ins().fmul(d, m);
                let zero = self.b.ins().f64const(0.0);
                let p = self.b.ins().fmax(p, zero);
                let p = self.b.ins().fmin(p, m);
                let r = self.b.ins().nearest(p);
                let u = self.b.ins().fcvt_to_uint_sat(types::I32, r);
                // fmax/fmin pass a NaN through; the saturating conversion makes it 0.
                self.b.ins().ireduce(t, u)
            }
            Dt::Half => {
                // Rounded to nearest even (`half::f32_bits_to_half`); a NaN keeps its sign and
                // the top of its payload, quieted, as the engine's `f32_to_half` does.
                let bits = self.b.ins().bitcast(types::I32, MemFlagsData::new(), x);
                let h = super::half::f32_bits_to_half(&mut self.b, bits);
                let mag = self.b.ins().band_imm_s(bits, 0x7fff_ffff);
                let is_nan = self.b.ins().icmp_imm_s(IntCC::UnsignedGreaterThan, mag, 0x7f80_0000);
                let sign = self.b.ins().ushr_imm_u(bits, 16);
                let sign = self.b.ins().band_imm_s(sign, 0x8000);
                let payload = self.b.ins().band_imm_s(bits, 0x7f_ffff);
                let payload = self.b.ins().ushr_imm_u(payload, 13);
                let nan = self.b.ins().bor(sign, payload);
                let nan = self.b.ins().bor_imm_s(nan, 0x7e00);
                let h = self.b.ins().select(is_nan, nan, h);
                self.b.ins().ireduce(types::I16, h)
            }
        }
    }

    fn inline_image_type(&self, image: Value) -> Option<u32> {
        match self.cx.image_facts.get(&image) {
            Some(ArgFact::Image { image_type, .. }) => Some(*image_type),
            _ => None,
        }
    }

    /// Loads the descriptor fields a read of `sh` uses.
    fn geo(&mut self, image: Value, sh: &Shape) -> Geo {
        let flags = MemFlagsData::trusted().with_readonly().with_can_move();
        let ld = |t: &mut Self, off: i32| t.b.ins().load(types::I64, flags, image, off);
        let data = ld(self, DATA_OFFSET);
        let offs = [
            abi::IMAGE_WIDTH_OFFSET,
            abi::IMAGE_HEIGHT_OFFSET,
            abi::IMAGE_DEPTH_OFFSET,
        ];
        let mut size = [None; 3];
        for d in 0..sh.dims {
            let v = ld(self, offs[d]);
            size[d] = Some(self.b.ins().ireduce(types::I32, v));
        }
        let layers = sh.arrayed.then(|| {
            let v = ld(self, abi::IMAGE_ARRAY_SIZE_OFFSET);
            self.b.ins().ireduce(types::I32, v)
        });
        let row_pitch = (sh.dims >= 2).then(|| ld(self, ROW_PITCH_OFFSET));
        // Slices of a 3D image and layers of an array (1D arrays too) step by the slice pitch.
        let slice_pitch = (sh.dims == 3 || sh.arrayed).then(|| ld(self, SLICE_PITCH_OFFSET));
        Geo {
            data,
            size,
            layers,
            row_pitch,
            slice_pitch,
        }
    }

    /// The normalized coordinate s of repeat and mirrored repeat.
    fn normalized_coord(&mut self, norm: bool, x: Value, wt: Value) -> Value {
        if norm {
            x
        } else {
            self.b.ins().fdiv(x, wt)
        }
    }

    /// The unnormalized coordinate u of the other modes.
    fn unnormalized_coord(&mut self, norm: bool, x: Value, wt: Value) -> Value {
        if norm {
            self.b.ins().fmul(x, wt)
        } else {
            x
        }
    }

    /// |s - 2 rint(s / 2)| × wt: mirrored repeat's u.
    fn mirrored_u(&mut self, norm: bool, x: Value, wt: Value) -> Value {
        let s = self.normalized_coord(norm, x, wt);
        let half = self.b.ins().f32const(0.5);
        let h = self.b.ins().fmul(half, s);
        let r = self.b.ins().nearest(h);
        let two = self.b.ins().f32const(2.0);
        let r2 = self.b.ins().fmul(two, r);
        let d = self.b.ins().fsub(s, r2);
        let a = self.b.ins().fabs(d);
        self.b.ins().fmul(a, wt)
    }

    /// (s - floor(s)) × wt: repeat's u.
    fn repeat_u(&mut self, norm: bool, x: Value, wt: Value) -> Value {
        let s = self.normalized_coord(norm, x, wt);
        let f = self.b.ins().floor(s);
        let d = self.b.ins().fsub(s, f);
        self.b.ins().fmul(d, wt)
    }

    /// (i32) floor(x), saturating (NaN gives 0).
    fn ifloor(&mut self, x: Value) -> Value {
        let f = self.b.ins().floor(x);
        self.b.ins().fcvt_to_sint_sat(types::I32, f)
    }

    /// Clamp-to-edge, clamp or none applied to index `i`.
    fn clamp_index(&mut self, addr: u32, i: Value, size: Value) -> Value {
        match addr {
            sb::ADDRESS_CLAMP_TO_EDGE => {
                let top = self.b.ins().iadd_imm_s(size, -1);
                let lo = self.smax_c(i, 0);
                self.b.ins().smin(lo, top)
            }
            sb::ADDRESS_CLAMP => {
                let lo = self.smax_c(i, -1);
                self.b.ins().smin(lo, size)
            }
            _ => i,
        }
    }

    /// The nearest texel's index along one axis.
    fn nearest_axis(&mut self, addr: u32, norm: bool, x: Value, size: Value) -> Value {
        let wt = self.b.ins().fcvt_from_sint(types::F32, size);
        match addr {
            sb::ADDRESS_REPEAT => {
                let u = self.repeat_u(norm, x, wt);
                let i = self.ifloor(u);
                let over = self.b.ins().icmp(IntCC::SignedGreaterThanOrEqual, i, size);
                let wrapped = self.b.ins().isub(i, size);
                self.b.ins().select(over, wrapped, i)
            }
            sb::ADDRESS_MIRRORED_REPEAT => {
                let u = self.mirrored_u(norm, x, wt);
                let i = self.ifloor(u);
                let top = self.b.ins().iadd_imm_s(size, -1);
                self.b.ins().smin(i, top)
            }
            _ => {
                let u = self.unnormalized_coord(norm, x, wt);
                let i = self.ifloor(u);
                self.clamp_index(addr, i, size)
            }
        }
    }

    /// The two texel indices and the weight along one axis of a linear read.
    fn linear_axis(&mut self, addr: u32, norm: bool, x: Value, size: Value) -> Lin {
        let wt = self.b.ins().fcvt_from_sint(types::F32, size);
        let u = match addr {
            sb::ADDRESS_REPEAT => self.repeat_u(norm, x, wt),
            sb::ADDRESS_MIRRORED_REPEAT => self.mirrored_u(norm, x, wt),
            _ => self.unnormalized_coord(norm, x, wt),
        };
        let half = self.b.ins().f32const(0.5);
        let t = self.b.ins().fsub(u, half);
        let f0 = self.b.ins().floor(t);
        let frac = self.b.ins().fsub(t, f0);
        let i0 = self.b.ins().fcvt_to_sint_sat(types::I32, f0);
        let i0 = self.smin_c(i0, 1 << 30);
        let i1 = self.b.ins().iadd_imm_s(i0, 1);
        let (i0, i1) = match addr {
            sb::ADDRESS_REPEAT => {
                let neg = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, i0, 0);
                let up = self.b.ins().iadd(i0, size);
                let i0 = self.b.ins().select(neg, up, i0);
                let over = self.b.ins().icmp(IntCC::SignedGreaterThanOrEqual, i1, size);
                let down = self.b.ins().isub(i1, size);
                (i0, self.b.ins().select(over, down, i1))
            }
            sb::ADDRESS_MIRRORED_REPEAT => {
                let top = self.b.ins().iadd_imm_s(size, -1);
                (self.smax_c(i0, 0), self.b.ins().smin(i1, top))
            }
            _ => (self.clamp_index(addr, i0, size), self.clamp_index(addr, i1, size)),
        };
        Lin { i0, i1, frac }
    }

    /// The texel at (i, j, k) of `layer` (missing: 0) decoded and mapped to the 4 components
    /// (F32X4 for float formats, I32X4 else); with `check`, an index outside the image reads
    /// the border colour.
    fn fetch(&mut self, sh: &Shape, g: &Geo, ijk: [Option<Value>; 3], layer: Option<Value>, check: bool) -> Value {
        let (at, inside) = self.texel_address(sh, g, ijk, layer, check);
        let at = match inside {
            Some(ok) => self.b.ins().select(ok, at, g.data),
            None => at,
        };
        let v = self.decode(sh, at);
        match inside {
            None => v,
            Some(ok) => {
                let border = self.border(sh);
                self.b.ins().select(ok, v, border)
            }
        }
    }

    /// The address of the texel at (i, j, k) of `layer` (missing: 0), and with `check` whether
    /// every index lies inside the image (unsigned compares: a negative index is outside).
    fn texel_address(
        &mut self,
        sh: &Shape,
        g: &Geo,
        ijk: [Option<Value>; 3],
        layer: Option<Value>,
        check: bool,
    ) -> (Value, Option<Value>) {
        let i64t = types::I64;
        let mut off: Option<Value> = None;
        let mut add = |t: &mut Self, v: Value| {
            off = Some(match off {
                None => v,
                Some(o) => t.b.ins().iadd(o, v),
            });
        };
        if let Some(i) = ijk[0] {
            let i = self.b.ins().sextend(i64t, i);
            let v = self.b.ins().imul_imm_s(i, i64::from(sh.elem()));
            add(self, v);
        }
        if let (Some(j), Some(rp)) = (ijk[1], g.row_pitch) {
            let j = self.b.ins().sextend(i64t, j);
            let v = self.b.ins().imul(j, rp);
            add(self, v);
        }
        let kl = match (ijk[2], layer) {
            (Some(k), Some(l)) => Some(self.b.ins().iadd(k, l)),
            (k, l) => k.or(l),
        };
        if let (Some(kl), Some(sp)) = (kl, g.slice_pitch) {
            let kl = self.b.ins().sextend(i64t, kl);
            let v = self.b.ins().imul(kl, sp);
            add(self, v);
        }
        let at = match off {
            Some(o) => self.b.ins().iadd(g.data, o),
            None => g.data,
        };
        let mut inside = None;
        if check {
            let mut all: Option<Value> = None;
            let mut lims: Vec<(Value, Value)> = Vec::new();
            for (i, n) in ijk.iter().zip(&g.size) {
                if let (Some(i), Some(n)) = (*i, *n) {
                    lims.push((i, n));
                }
            }
            if let (Some(l), Some(n)) = (layer, g.layers) {
                lims.push((l, n));
            }
            for (i, n) in lims {
                let c = self.b.ins().icmp(IntCC::UnsignedLessThan, i, n);
                all = Some(match all {
                    None => c,
                    Some(a) => self.b.ins().band(a, c),
                });
            }
            inside = all;
        }
        (at, inside)
    }

    /// A 16-byte constant of four 32-bit lanes.
    fn const4(&mut self, ty: types::Type, lanes: [u32; 4]) -> Value {
        let bytes: Vec<u8> = lanes.iter().flat_map(|l| l.to_le_bytes()).collect();
        let h = self.b.func.dfg.constants.insert(ConstantData::from(bytes));
        self.b.ins().vconst(ty, h)
    }

    /// The border colour of `sh`'s reads.
    fn border(&mut self, sh: &Shape) -> Value {
        let alpha = match (sh.alpha_one(), sh.dt.is_float()) {
            (false, _) => 0,
            (true, true) => 1.0f32.to_bits(),
            (true, false) => 1,
        };
        let ty = if sh.dt.is_float() { types::F32X4 } else { types::I32X4 };
        self.const4(ty, [0, 0, 0, alpha])
    }

    /// Loads the texel at `at` and decodes it: the engine's `decode_float` / `decode_int`.
    fn decode(&mut self, sh: &Shape, at: Value) -> Value {
        let flags = MemFlagsData::new().with_notrap();
        let raw = match sh.elem() {
            16 => self.b.ins().load(types::I32X4, flags, at, 0),
            8 => {
                let x = self.b.ins().load(types::I64, flags, at, 0);
                let v = self.b.ins().scalar_to_vector(types::I64X2, x);
                self.b.ins().bitcast(types::I32X4, vflags(), v)
            }
            n => {
                let t = match n {
                    1 => types::I8,
                    2 => types::I16,
                    _ => types::I32,
                };
                let x = self.b.ins().load(t, flags, at, 0);
                let x = if t == types::I32 {
                    x
                } else {
                    self.b.ins().uextend(types::I32, x)
                };
                self.b.ins().scalar_to_vector(types::I32X4, x)
            }
        };
        // Channels to 32-bit lanes (missing channels are zero bytes, hence 0).
        let signed = sh.dt.signed();
        let lanes = match sh.dt.bytes() {
            1 => {
                let b = self.b.ins().bitcast(types::I8X16, vflags(), raw);
                let h = if signed {
                    self.b.ins().swiden_low(b)
                } else {
                    self.b.ins().uwiden_low(b)
                };
                if signed {
                    self.b.ins().swiden_low(h)
                } else {
                    self.b.ins().uwiden_low(h)
                }
            }
            2 => {
                let h = self.b.ins().bitcast(types::I16X8, vflags(), raw);
                if signed {
                    self.b.ins().swiden_low(h)
                } else {
                    self.b.ins().uwiden_low(h)
                }
            }
            _ => raw,
        };
        // The value of each channel (bits of the float for float formats).
        let bits = match sh.dt {
            Dt::Unorm8 | Dt::Unorm16 => {
                let max = if sh.dt == Dt::Unorm8 { 255.0f32 } else { 65535.0 };
                let f = self.b.ins().fcvt_from_sint(types::F32X4, lanes);
                let m = self.const4(types::F32X4, [max.to_bits(); 4]);
                let q = self.b.ins().fdiv(f, m);
                self.b.ins().bitcast(types::I32X4, vflags(), q)
            }
            Dt::Half => self.half_bits(lanes),
            _ => lanes,
        };
        // The channel mapping (7.6): R and RG read 0 for the missing colours and 1 for alpha;
        // BGRA swaps R and B.
        let mapped = if sh.bgra {
            let b = self.b.ins().bitcast(types::I8X16, vflags(), bits);
            let order: Vec<u8> = [2u8, 1, 0, 3]
                .iter()
                .flat_map(|&l| (0..4).map(move |j| l * 4 + j))
                .collect();
            let imm = self.b.func.dfg.immediates.push(ConstantData::from(order));
            let s = self.b.ins().shuffle(b, b, imm);
            self.b.ins().bitcast(types::I32X4, vflags(), s)
        } else if sh.channels < 4 {
            let one = if sh.dt.is_float() { 1.0f32.to_bits() } else { 1 };
            let a = self.const4(types::I32X4, [0, 0, 0, one]);
            self.b.ins().bor(bits, a)
        } else {
            bits
        };
        if sh.dt.is_float() {
            self.b.ins().bitcast(types::F32X4, vflags(), mapped)
        } else {
            mapped
        }
    }

    /// Half bits (zero-extended in 32-bit lanes) to float bits: the engine's `half_to_f32`.
    fn half_bits(&mut self, h: Value) -> Value {
        let i = types::I32X4;
        let c = |t: &mut Self, x: u32| t.const4(i, [x; 4]);
        let m8000 = c(self, 0x8000);
        let sign = self.b.ins().band(h, m8000);
        let sign = self.b.ins().ishl_imm_u(sign, 16);
        let m3ff = c(self, 0x3ff);
        let man = self.b.ins().band(h, m3ff);
        let m7c00 = c(self, 0x7c00);
        let exp = self.b.ins().band(h, m7c00);
        // Normal: ((exp + 112) << 23) | (man << 13) = (h & 0x7fff) << 13 + (112 << 23).
        let m7fff = c(self, 0x7fff);
        let em = self.b.ins().band(h, m7fff);
        let em = self.b.ins().ishl_imm_u(em, 13);
        let bias = c(self, 112 << 23);
        let normal = self.b.ins().iadd(em, bias);
        // INF / NaN: 0x7f800000 | man << 13.
        let man13 = self.b.ins().ishl_imm_u(man, 13);
        let inf = c(self, 0x7f80_0000);
        let special = self.b.ins().bor(man13, inf);
        // Subnormal (and zero): man × 2^-24, exact.
        let mf = self.b.ins().fcvt_from_sint(types::F32X4, man);
        let scale = self.const4(types::F32X4, [(1.0f32 / 16_777_216.0).to_bits(); 4]);
        let sub = self.b.ins().fmul(mf, scale);
        let sub = self.b.ins().bitcast(i, vflags(), sub);
        let zero = c(self, 0);
        let is_sub = self.b.ins().icmp(IntCC::Equal, exp, zero);
        let is_special = self.b.ins().icmp(IntCC::Equal, exp, m7c00);
        let v = self.b.ins().bitselect(is_special, special, normal);
        let v = self.b.ins().bitselect(is_sub, sub, v);
        self.b.ins().bor(v, sign)
    }
}
