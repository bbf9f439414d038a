//! Image instructions (OpenCL SPIR-V environment section 7): sampled and sampler-less reads,
//! writes and the size/format/order queries. Reads whose image format (an enqueue's variant,
//! `CompileOptions::specialize`) and sampler (a constant) are known are generated inline
//! (`image_inline`); the others call the entry of the image's read table
//! (`ImageDesc::reads`, `crate::image::fast`) for the read kind and sampler: code specialised
//! for the image's format, image type and sampler, or the engine's generic entry point;
//! writes call the image engine (`crate::image`, the `clift_image_*` symbols); the queries
//! load the runtime's `ImageDesc`.

use super::helpers::RTE;
use super::layout::Scalar;
use super::state::{op_id, result, FnTx, R};
use super::CompileError;
use crate::abi::{self, sampler_bits};
use crate::image::fast;
use crate::spirv::module::Type;
use crate::spirv::Instruction;
use cranelift_codegen::ir::{types, AbiParam, InstBuilder, MemFlagsData, StackSlotData, StackSlotKind, Value};
use cranelift_module::Module;
use rspirv::spirv::{Dim, Op, SamplerAddressingMode, SamplerFilterMode};

/// `image_channel_order` values start here; OpImageQueryOrder answers the SPIR-V
/// Image Channel Order number, which counts from 0 in the same sequence.
const CL_CHANNEL_ORDER_BASE: i64 = 0x10B0;
/// Likewise for `image_channel_data_type` and the SPIR-V Image Channel Data Type.
const CL_CHANNEL_TYPE_BASE: i64 = 0x10D0;

/// The sampler bits (`abi::sampler_bits`) of an OpConstantSampler.
pub(crate) fn constant_sampler_bits(
    addressing: SamplerAddressingMode,
    normalized: bool,
    filter: SamplerFilterMode,
) -> u32 {
    let address = match addressing {
        SamplerAddressingMode::None => sampler_bits::ADDRESS_NONE,
        SamplerAddressingMode::ClampToEdge => sampler_bits::ADDRESS_CLAMP_TO_EDGE,
        SamplerAddressingMode::Clamp => sampler_bits::ADDRESS_CLAMP,
        SamplerAddressingMode::Repeat => sampler_bits::ADDRESS_REPEAT,
        SamplerAddressingMode::RepeatMirrored => sampler_bits::ADDRESS_MIRRORED_REPEAT,
    };
    let filter = match filter {
        SamplerFilterMode::Nearest => sampler_bits::FILTER_NEAREST,
        SamplerFilterMode::Linear => sampler_bits::FILTER_LINEAR,
    };
    address | filter | if normalized { sampler_bits::NORMALIZED } else { 0 }
}

/// What an image type's coordinates look like.
#[derive(Clone, Copy)]
struct Shape {
    dim: Dim,
    arrayed: bool,
}

impl Shape {
    /// Descriptor fields OpImageQuerySize(Lod) answers, in component order.
    fn size_fields(self) -> Vec<i32> {
        let (w, h, d, a) = (
            abi::IMAGE_WIDTH_OFFSET,
            abi::IMAGE_HEIGHT_OFFSET,
            abi::IMAGE_DEPTH_OFFSET,
            abi::IMAGE_ARRAY_SIZE_OFFSET,
        );
        match (self.dim, self.arrayed) {
            (Dim::Dim1D | Dim::DimBuffer, false) => vec![w],
            (Dim::Dim1D | Dim::DimBuffer, true) => vec![w, a],
            (Dim::Dim2D, false) => vec![w, h],
            (Dim::Dim2D, true) => vec![w, h, a],
            _ => vec![w, h, d],
        }
    }
}

impl FnTx<'_, '_, '_> {
    /// The image type behind an image or sampled-image value.
    fn image_shape(&self, inst: &Instruction, value: u32) -> R<Shape> {
        let mut ty = self.ty_of(value)?;
        if let Some(Type::SampledImage { image }) = self.cx.m.type_of(ty) {
            ty = *image;
        }
        match self.cx.m.type_of(ty) {
            Some(Type::Image { dim, arrayed, .. }) => Ok(Shape {
                dim: *dim,
                arrayed: *arrayed != 0,
            }),
            _ => Err(self.err(inst, "operand is not an image")),
        }
    }

    /// The (up to three) coordinate components of `coord` as `to` (I32 or F32); missing
    /// components are 0.
    fn image_coords(&mut self, coord: u32, to: types::Type) -> R<[Value; 3]> {
        let cty = self.ty_of(coord)?;
        let (s, _) = self.cx.layout.shape(cty)?;
        let leaves = self.val(coord)?;
        let mut out = Vec::with_capacity(3);
        for &v in leaves.iter().take(3) {
            out.push(match (s, to) {
                (Scalar::Float(32), types::F32) => v,
                (Scalar::Float(_), types::F32) => self.float_to_float(v, s, Scalar::Float(32), RTE)?,
                (Scalar::Int(_), types::F32) => {
                    let i = self.int_resize(v, types::I32, true);
                    self.b.ins().fcvt_from_sint(types::F32, i)
                }
                (Scalar::Int(_), _) => self.int_resize(v, types::I32, true),
                (Scalar::Float(_), _) => {
                    let f = self.float_to_float(v, s, Scalar::Float(32), RTE)?;
                    self.b.ins().fcvt_to_sint_sat(types::I32, f)
                }
                _ => return Err(CompileError::new("image coordinates must be integers or floats")),
            });
        }
        while out.len() < 3 {
            let z = self.zero(to);
            out.push(z);
        }
        Ok([out[0], out[1], out[2]])
    }

    /// A 16-byte stack buffer for four texel channels (also where inline writes outside their
    /// image go).
    pub(super) fn texel_slot(&mut self) -> Value {
        let slot = self
            .b
            .create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 16, 4));
        self.b.ins().stack_addr(types::I64, slot, 0)
    }

    /// Defines `r` of type `ty` (a 4-vector or a scalar of 32-bit floats, halves or ints) from
    /// the four 32-bit channels at `buf` (floats when `float`, ints otherwise).
    fn def_texel(&mut self, inst: &Instruction, r: u32, ty: u32, buf: Value, float: bool) -> R {
        let (s, n) = self.cx.layout.shape(ty)?;
        if n != 1 && n != 4 {
            return Err(self.err(inst, "an image texel has 4 components (or 1 for depth images)"));
        }
        let flags = MemFlagsData::trusted();
        let mut out = Vec::with_capacity(n as usize);
        for c in 0..n {
            let off = 4 * c as i32;
            out.push(match (s, float) {
                (Scalar::Float(32), true) => self.b.ins().load(types::F32, flags, buf, off),
                (Scalar::Float(16), true) => {
                    let f = self.b.ins().load(types::F32, flags, buf, off);
                    self.float_to_float(f, Scalar::Float(32), Scalar::Float(16), RTE)?
                }
                (Scalar::Int(32), false) => self.b.ins().load(types::I32, flags, buf, off),
                _ => return Err(self.err(inst, "result type does not match the image's sampled type")),
            });
        }
        self.def(r, ty, out);
        Ok(())
    }

    /// Defines `r` of type `ty` (as `def_texel`) from the four channels in register `v`
    /// (F32X4 when `float`, else I32X4): an inline read's result.
    fn def_texel_reg(&mut self, inst: &Instruction, r: u32, ty: u32, v: Value, float: bool) -> R {
        let (s, n) = self.cx.layout.shape(ty)?;
        if n != 4 {
            return Err(self.err(inst, "an image texel has 4 components (or 1 for depth images)"));
        }
        match (s, float) {
            (Scalar::Float(32), true) | (Scalar::Int(32), false) => {
                if let Some(sh) = self.simd_shape(ty).filter(|sh| sh.vty == self.b.func.dfg.value_type(v)) {
                    self.def_simd(r, ty, sh, vec![v]);
                } else {
                    let out = (0..4).map(|c| self.b.ins().extractlane(v, c)).collect();
                    self.def(r, ty, out);
                }
            }
            (Scalar::Float(16), true) => {
                let mut out = Vec::with_capacity(4);
                for c in 0..4 {
                    let f = self.b.ins().extractlane(v, c);
                    out.push(self.float_to_float(f, Scalar::Float(32), Scalar::Float(16), RTE)?);
                }
                self.def(r, ty, out);
            }
            _ => return Err(self.err(inst, "result type does not match the image's sampled type")),
        }
        Ok(())
    }

    /// Stores texel value `id` as four 32-bit channels into a new stack buffer; `true` when
    /// the channels are floats.
    fn store_texel(&mut self, inst: &Instruction, id: u32) -> R<(Value, bool)> {
        let ty = self.ty_of(id)?;
        let (s, n) = self.cx.layout.shape(ty)?;
        if n != 1 && n != 4 {
            return Err(self.err(inst, "an image texel has 4 components (or 1 for depth images)"));
        }
        let leaves = self.val(id)?;
        let buf = self.texel_slot();
        let flags = MemFlagsData::trusted();
        let float = matches!(s, Scalar::Float(_));
        for c in 0..4 {
            let v = match leaves.get(c) {
                Some(&v) => match s {
                    Scalar::Float(32) | Scalar::Int(32) => v,
                    Scalar::Float(w) => self.float_to_float(v, Scalar::Float(w), Scalar::Float(32), RTE)?,
                    _ => return Err(self.err(inst, "texel components must be 32-bit integers or floats")),
                },
                None if float => self.b.ins().f32const(0.0),
                None => self.b.ins().iconst(types::I32, 0),
            };
            self.b.ins().store(flags, v, buf, 4 * c as i32);
        }
        Ok((buf, float))
    }

    /// The four 32-bit components of a written texel (floats when the bool is true), when it
    /// is a 4-vector of 32-bit floats or integers (else `None`: the write calls the helper).
    fn texel_components(&mut self, id: u32) -> R<Option<([Value; 4], bool)>> {
        let ty = self.ty_of(id)?;
        let (s, n) = self.cx.layout.shape(ty)?;
        let float = match s {
            Scalar::Float(32) => true,
            Scalar::Int(32) => false,
            _ => return Ok(None),
        };
        if n != 4 {
            return Ok(None);
        }
        let leaves = self.val(id)?;
        Ok(<[Value; 4]>::try_from(leaves.as_slice()).ok().map(|v| (v, float)))
    }

    /// The image's `ReadTable` (`ImageDesc::reads`, never null).
    fn read_table(&mut self, image: Value) -> Value {
        self.b.ins().load(
            types::I64,
            MemFlagsData::trusted().with_readonly(),
            image,
            abi::IMAGE_READS_OFFSET,
        )
    }

    /// Calls the read whose function pointer is at `at + offset` with `args` (no results).
    fn call_read(&mut self, at: Value, offset: i32, params: &[types::Type], args: &[Value]) {
        let f = self
            .b
            .ins()
            .load(types::I64, MemFlagsData::trusted().with_readonly(), at, offset);
        let mut sig = self.cx.jit.make_signature();
        sig.params.extend(params.iter().map(|t| AbiParam::new(*t)));
        let sig = self.b.import_signature(sig);
        self.b.ins().call_indirect(sig, f, args);
    }

    pub fn image(&mut self, inst: &Instruction) -> R {
        let ptr = types::I64;
        match inst.opcode {
            Op::SampledImage => {
                let (r, ty) = result(inst)?;
                let image = self.val1(op_id(inst, 0)?)?;
                let sampler = self.val1(op_id(inst, 1)?)?;
                self.def(r, ty, vec![image, sampler]);
            }
            Op::ImageSampleExplicitLod => {
                let (r, ty) = result(inst)?;
                let si = op_id(inst, 0)?;
                self.image_shape(inst, si)?;
                let parts = self.val(si)?;
                let (&image, &sampler) = match (parts.first(), parts.get(1)) {
                    (Some(i), Some(s)) => (i, s),
                    _ => return Err(self.err(inst, "operand is not a sampled image")),
                };
                let known = self.iconst_of(sampler);
                let sampler = self.b.ins().ireduce(types::I32, sampler);
                let [x, y, z] = self.image_coords(op_id(inst, 1)?, types::F32)?;
                let (s, _) = self.cx.layout.shape(ty)?;
                let float = matches!(s, Scalar::Float(_));
                // Format and sampler known: the read generated inline (`image_inline`).
                if let Some(bits) = known {
                    if let Some(v) = self.inline_sample(image, bits as u32, [x, y, z], float) {
                        return self.def_texel_reg(inst, r, ty, v, float);
                    }
                }
                let buf = self.texel_slot();
                // The image's entry for this sampler: `sample_* [sampler & 63]` of its
                // ReadTable (a constant index when the sampler is a constant).
                let table = self.read_table(image);
                let index = self.b.ins().band_imm_u(sampler, i64::from(fast::SAMPLER_INDEX_MASK));
                let index = self.b.ins().uextend(ptr, index);
                let offset = self.b.ins().ishl_imm_u(index, 3);
                let entry = self.b.ins().iadd(table, offset);
                let kind = if float {
                    fast::SAMPLE_FLOAT_OFFSET
                } else {
                    fast::SAMPLE_INT_OFFSET
                };
                let f32t = types::F32;
                self.call_read(
                    entry,
                    kind,
                    &[ptr, types::I32, f32t, f32t, f32t, ptr],
                    &[image, sampler, x, y, z, buf],
                );
                self.def_texel(inst, r, ty, buf, float)?;
            }
            Op::ImageRead => {
                let (r, ty) = result(inst)?;
                let img_id = op_id(inst, 0)?;
                self.image_shape(inst, img_id)?;
                let image = self.val1(img_id)?;
                let [x, y, z] = self.image_coords(op_id(inst, 1)?, types::I32)?;
                let (s, _) = self.cx.layout.shape(ty)?;
                let float = matches!(s, Scalar::Float(_));
                if let Some(v) = self.inline_read(image, [x, y, z], float) {
                    return self.def_texel_reg(inst, r, ty, v, float);
                }
                let buf = self.texel_slot();
                let table = self.read_table(image);
                let kind = if float {
                    fast::READ_FLOAT_OFFSET
                } else {
                    fast::READ_INT_OFFSET
                };
                let i32t = types::I32;
                self.call_read(table, kind, &[ptr, i32t, i32t, i32t, ptr], &[image, x, y, z, buf]);
                self.def_texel(inst, r, ty, buf, float)?;
            }
            Op::ImageWrite => {
                let img_id = op_id(inst, 0)?;
                self.image_shape(inst, img_id)?;
                let image = self.val1(img_id)?;
                let [x, y, z] = self.image_coords(op_id(inst, 1)?, types::I32)?;
                if let Some((v, float)) = self.texel_components(op_id(inst, 2)?)? {
                    if self.inline_write(image, [x, y, z], v, float).is_some() {
                        return Ok(());
                    }
                }
                let (buf, float) = self.store_texel(inst, op_id(inst, 2)?)?;
                let name = if float {
                    "clift_image_write_float"
                } else {
                    "clift_image_write_int"
                };
                let i32t = types::I32;
                self.call_helper(name, &[ptr, i32t, i32t, i32t, ptr], &[], &[image, x, y, z, buf])?;
            }
            Op::ImageQuerySizeLod | Op::ImageQuerySize => {
                let (r, ty) = result(inst)?;
                let img_id = op_id(inst, 0)?;
                let shape = self.image_shape(inst, img_id)?;
                let image = self.val1(img_id)?;
                let (s, n) = self.cx.layout.shape(ty)?;
                let fields = shape.size_fields();
                let t = match s {
                    Scalar::Int(32) => types::I32,
                    Scalar::Int(64) => types::I64,
                    _ => return Err(self.err(inst, "size components must be 32- or 64-bit integers")),
                };
                if n as usize != fields.len() {
                    return Err(self.err(inst, "result has the wrong number of components for the image"));
                }
                // The descriptor does not change while the kernel runs: a query in a loop may
                // be hoisted out of it.
                let flags = MemFlagsData::trusted().with_readonly().with_can_move();
                let mut out = Vec::with_capacity(fields.len());
                for off in fields {
                    let v = self.b.ins().load(types::I64, flags, image, off);
                    out.push(if t == types::I32 {
                        self.b.ins().ireduce(types::I32, v)
                    } else {
                        v
                    });
                }
                self.def(r, ty, out);
            }
            Op::ImageQueryFormat | Op::ImageQueryOrder => {
                let (r, ty) = result(inst)?;
                let img_id = op_id(inst, 0)?;
                self.image_shape(inst, img_id)?;
                let image = self.val1(img_id)?;
                let (off, base) = if inst.opcode == Op::ImageQueryOrder {
                    (abi::IMAGE_CHANNEL_ORDER_OFFSET, CL_CHANNEL_ORDER_BASE)
                } else {
                    (abi::IMAGE_CHANNEL_DATA_TYPE_OFFSET, CL_CHANNEL_TYPE_BASE)
                };
                let flags = MemFlagsData::trusted().with_readonly().with_can_move();
                let v = self.b.ins().load(types::I32, flags, image, off);
                let v = self.b.ins().iadd_imm_s(v, -base);
                let (s, _) = self.cx.layout.shape(ty)?;
                let v = match s {
                    Scalar::Int(w) => self.int_resize(v, Scalar::Int(w).clif(), false),
                    _ => return Err(self.err(inst, "result must be an integer")),
                };
                self.def(r, ty, vec![v]);
            }
            _ => return Err(self.err(inst, "unsupported image instruction")),
        }
        Ok(())
    }
}
