//! The contract between compiled kernels and the runtime that runs them.
//!
//! The runtime lays a kernel's argument values out in one block (`Kernel::args`, offsets
//! chosen by the compiler), gives every worker thread its own local-memory arena, and for each
//! work-group calls `Kernel::run_group` with a `WorkGroupContext` describing that group.

use std::ffi::c_void;

/// The least size of a work-group's local-memory arena, and `CL_DEVICE_LOCAL_MEM_SIZE`.
pub const LOCAL_ARENA_BYTES: usize = 64 * 1024;

/// The size of a sub-group (`cl_khr_subgroups`): work-items `k * SUB_GROUP_SIZE ..` of a
/// work-group's local linear ids form sub-group `k`, the last one possibly smaller (see
/// `codegen/collective.rs`).
pub const SUB_GROUP_SIZE: usize = 32;

/// Everything a work-group needs to know about the ND-range and its place in it. The work-item
/// builtins (GlobalInvocationId, LocalInvocationId, WorkgroupId, GlobalSize, ...) are computed
/// from it and the work-item's local id.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct WorkGroupContext {
    /// 1, 2 or 3 (unused dimensions have size 1, offset 0, id 0).
    pub work_dim: u32,
    /// 1 when host threads may take part in this command's atomics: it reaches memory the
    /// host can use while it runs (an SVM pointer argument or `CL_KERNEL_EXEC_INFO_SVM_PTRS`,
    /// a buffer over SVM or `CL_MEM_USE_HOST_PTR` memory); else 0. With 0 and one work-group,
    /// atomics of every scope are plain loads and stores (`codegen/atomics.rs`).
    pub host_shared: u32,
    pub global_offset: [u64; 3],
    pub global_size: [u64; 3],
    /// The size of *this* group: smaller than `enqueued_local_size` for the last group of a
    /// dimension whose global size is not a multiple of the local size (non-uniform ND-range).
    pub local_size: [u64; 3],
    pub enqueued_local_size: [u64; 3],
    /// When every count is 1, the compiled atomics on global memory are plain loads and stores
    /// (no other kernel instance shares an inclusive scope with this one without SVM; see
    /// `codegen/atomics.rs`): a runtime with SVM atomics must revisit this.
    pub num_groups: [u64; 3],
    pub group_id: [u64; 3],
    /// This worker's local-memory arena: the kernel's Workgroup variables first
    /// (`Kernel::static_local_size` bytes), then the `__local` pointer arguments at the
    /// offsets the runtime wrote into the argument block. Null, or at least
    /// `LOCAL_ARENA_BYTES` bytes that belong to this group alone: atomics through generic
    /// pointers treat any address in that span as local memory.
    pub local_mem: *mut u8,
    /// The command's `PrintfSink` (never null when the runtime launches a kernel).
    pub printf: *mut c_void,
}

impl WorkGroupContext {
    /// Makes this the context of group `linear` (dimension 0 fastest) of its ND-range.
    pub fn set_group(&mut self, linear: u64) {
        let n = self.num_groups;
        self.group_id = [linear % n[0], (linear / n[0]) % n[1], linear / (n[0] * n[1])];
        self.set_group_size();
    }

    /// Moves to the next group in linear order, without a division (a worker runs its groups
    /// in runs of consecutive indices), and returns its `group_id` and `local_size`.
    pub fn next_group(&mut self) -> ([u64; 3], [u64; 3]) {
        let mut id = self.group_id;
        for (i, n) in id.iter_mut().zip(self.num_groups) {
            *i += 1;
            if *i < n {
                break;
            }
            *i = 0;
        }
        // Computed in registers and then stored, never read back right after the stores:
        // a caller copies both into its work-item.
        let size = std::array::from_fn(|d| self.size_of(id, d));
        self.group_id = id;
        self.local_size = size;
        (id, size)
    }

    /// `local_size` of the group `group_id` names.
    fn set_group_size(&mut self) {
        self.local_size = std::array::from_fn(|d| self.size_of(self.group_id, d));
    }

    /// The size in dimension `d` of group `id`: the enqueued size, or what is left of the
    /// global size for the last group of a dimension (a non-uniform ND-range).
    fn size_of(&self, id: [u64; 3], d: usize) -> u64 {
        let rest = self.global_size[d] - id[d] * self.enqueued_local_size[d];
        rest.min(self.enqueued_local_size[d])
    }
}

/// What kind of value a kernel argument is, and how it sits in the argument block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgKind {
    /// A `__global` pointer (CrossWorkgroup): 8 bytes, the buffer's address (or 0 for NULL).
    Global,
    /// A `__constant` pointer (UniformConstant): 8 bytes, the buffer's address.
    Constant,
    /// A `__local` pointer (Workgroup): 8 bytes holding the argument's byte offset within the
    /// local arena; the size comes from clSetKernelArg(size, NULL).
    Local,
    /// A value passed by value (scalars, vectors, structs): `size` bytes copied verbatim.
    Value,
    /// An image object: 8 bytes, the address of the runtime's image descriptor.
    Image,
    /// A sampler: 8 bytes, the runtime's sampler value.
    Sampler,
    /// A pipe (`pipe T`, OpTypePipe): 8 bytes, the address of the pipe object's bytes
    /// (`crate::pipe`).
    Pipe,
}

#[derive(Clone, Debug)]
pub struct KernelArg {
    pub kind: ArgKind,
    /// Byte offset in the argument block.
    pub offset: usize,
    /// Bytes the value occupies in the block (8 for pointers, images and samplers).
    pub size: usize,
    /// Alignment the argument's type requires (by-value arguments).
    pub align: usize,
    /// The parameter's OpName, when the module has one.
    pub name: Option<String>,
}

/// Where a command's printf output goes: `WorkGroupContext::printf` points at one of these
/// for the whole ND-range. Each printf call appends its complete formatted text at once
/// (so a work-item's lines stay in order and never interleave mid-line); the runtime writes
/// the text to standard output when the command completes.
#[derive(Default)]
pub struct PrintfSink {
    pub text: std::sync::Mutex<Vec<u8>>,
}

impl PrintfSink {
    /// Appends one formatted printf call.
    pub fn append(&self, bytes: &[u8]) {
        self.text
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend_from_slice(bytes);
    }

    /// Takes everything printed so far.
    pub fn take(&self) -> Vec<u8> {
        std::mem::take(&mut *self.text.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

/// An image as compiled kernels and the image engine (`crate::image`) see it: the runtime
/// keeps one per image object and passes its address as the kernel argument
/// (`ArgKind::Image`). Codegen reads the size, order and data-type fields directly (the
/// `IMAGE_*` offsets below) for OpImageQuerySize, OpImageQueryOrder and OpImageQueryFormat.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ImageDesc {
    /// The first byte of texel (0, 0, 0) of layer 0.
    pub data: *mut u8,
    /// `CL_MEM_OBJECT_IMAGE1D` ... `CL_MEM_OBJECT_IMAGE1D_BUFFER`.
    pub image_type: u32,
    /// `cl_image_format::image_channel_order` (`CL_R`, `CL_RGBA`, `CL_sRGBA`, `CL_DEPTH`, ...).
    pub channel_order: u32,
    /// `cl_image_format::image_channel_data_type` (`CL_UNORM_INT8`, `CL_FLOAT`, ...).
    pub channel_data_type: u32,
    /// Bytes per texel.
    pub element_size: u32,
    /// Texels in x; rows (1 for 1D images); slices (1 unless 3D).
    pub width: u64,
    pub height: u64,
    pub depth: u64,
    /// Layers of a 1D or 2D image array (1 otherwise).
    pub array_size: u64,
    /// Bytes from one row to the next, and from one 2D slice (3D) or layer (arrays) to the next.
    pub row_pitch: u64,
    pub slice_pitch: u64,
    /// The reads kernels call for this image: `crate::image::reads_for(self)`, chosen once
    /// from the format and image type (reads specialised for them, or the reference engine's
    /// entry points for the other formats). Never null: `crate::image::GENERIC_READS` when
    /// there is no better choice.
    pub reads: *const crate::image::ReadTable,
}

// SAFETY: `data` points at the image object's storage, shared memory by the OpenCL model.
unsafe impl Send for ImageDesc {}
unsafe impl Sync for ImageDesc {}

pub const IMAGE_CHANNEL_ORDER_OFFSET: i32 = std::mem::offset_of!(ImageDesc, channel_order) as i32;
pub const IMAGE_CHANNEL_DATA_TYPE_OFFSET: i32 = std::mem::offset_of!(ImageDesc, channel_data_type) as i32;
pub const IMAGE_WIDTH_OFFSET: i32 = std::mem::offset_of!(ImageDesc, width) as i32;
pub const IMAGE_HEIGHT_OFFSET: i32 = std::mem::offset_of!(ImageDesc, height) as i32;
pub const IMAGE_DEPTH_OFFSET: i32 = std::mem::offset_of!(ImageDesc, depth) as i32;
pub const IMAGE_ARRAY_SIZE_OFFSET: i32 = std::mem::offset_of!(ImageDesc, array_size) as i32;
pub const IMAGE_READS_OFFSET: i32 = std::mem::offset_of!(ImageDesc, reads) as i32;

/// A sampler as kernels see it (`ArgKind::Sampler` arguments and OpConstantSampler): the
/// bits of OpenCL C's `sampler_t` initializers, so both spellings agree.
pub mod sampler_bits {
    /// Set when coordinates are normalized (`CLK_NORMALIZED_COORDS_TRUE`).
    pub const NORMALIZED: u32 = 0x1;
    /// The addressing mode field.
    pub const ADDRESS_MASK: u32 = 0xe;
    pub const ADDRESS_NONE: u32 = 0x0;
    pub const ADDRESS_CLAMP_TO_EDGE: u32 = 0x2;
    pub const ADDRESS_CLAMP: u32 = 0x4;
    pub const ADDRESS_REPEAT: u32 = 0x6;
    pub const ADDRESS_MIRRORED_REPEAT: u32 = 0x8;
    /// The filter field.
    pub const FILTER_MASK: u32 = 0x30;
    pub const FILTER_NEAREST: u32 = 0x10;
    pub const FILTER_LINEAR: u32 = 0x20;
}

#[cfg(test)]
mod tests {
    use super::WorkGroupContext;

    /// Walking the groups one by one gives every group the id and size that computing it from
    /// its linear index gives, in 1 to 3 dimensions, with partial last groups.
    #[test]
    fn next_group_agrees_with_set_group() {
        for (global, local) in [
            ([7u64, 1, 1], [3u64, 1, 1]),
            ([1, 1, 1], [1, 1, 1]),
            ([10, 6, 1], [4, 5, 1]),
            ([5, 4, 9], [2, 4, 2]),
            ([33, 2, 3], [33, 1, 3]),
        ] {
            let mut ctx = WorkGroupContext {
                work_dim: 3,
                host_shared: 0,
                global_offset: [0; 3],
                global_size: global,
                local_size: local,
                enqueued_local_size: local,
                num_groups: std::array::from_fn(|d| global[d].div_ceil(local[d])),
                group_id: [0; 3],
                local_mem: std::ptr::null_mut(),
                printf: std::ptr::null_mut(),
            };
            let total: u64 = ctx.num_groups.iter().product();
            let mut walk = ctx;
            walk.set_group(0);
            let mut items = 0;
            for linear in 0..total {
                if linear > 0 {
                    let (id, size) = walk.next_group();
                    assert_eq!((id, size), (walk.group_id, walk.local_size));
                }
                ctx.set_group(linear);
                assert_eq!(walk.group_id, ctx.group_id, "group {linear} of {global:?} / {local:?}");
                assert_eq!(
                    walk.local_size, ctx.local_size,
                    "group {linear} of {global:?} / {local:?}"
                );
                items += walk.local_size.iter().product::<u64>();
            }
            // The groups cover the range exactly.
            assert_eq!(items, global.iter().product::<u64>());
        }
    }
}
