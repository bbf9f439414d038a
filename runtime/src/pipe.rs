//! Pipe objects (API section 5.4): a memory object of type `CL_MEM_OBJECT_PIPE` whose bytes
//! are a ring of packets laid out by `jit::pipe` (header with the packet size, capacity and
//! the read and write counters, one state byte per slot, then the packets). Kernels receive
//! the address of those bytes; the packet size and capacity are read back from the header.

use crate::context::Context;
use crate::memory::{Mem, Storage};
use opencl_sys::{cl_mem_flags, CL_MEM_OBJECT_PIPE};
use std::sync::Arc;

pub use jit::pipe::{MAX_PACKETS, MAX_PACKET_SIZE};

/// Why a pipe could not be made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PipeError {
    /// More bytes than one allocation may have (`CL_DEVICE_MAX_MEM_ALLOC_SIZE`), or more
    /// packets than the ring's counters can tell apart.
    TooLarge,
    /// The allocation failed.
    NoMemory,
}

/// An empty pipe of `max_packets` packets of `packet_size` bytes (both already checked against
/// the device's limits by the caller).
pub fn create(
    context: Arc<Context>,
    flags: cl_mem_flags,
    packet_size: u32,
    max_packets: u32,
) -> Result<Mem, PipeError> {
    let device = crate::device::device();
    if max_packets > MAX_PACKETS {
        return Err(PipeError::TooLarge);
    }
    let bytes = jit::pipe::pipe_bytes(packet_size, max_packets)
        .filter(|&b| b as u64 <= device.max_mem_alloc_size())
        .ok_or(PipeError::TooLarge)?;
    let storage = Storage::allocate(bytes, device.mem_base_addr_align_bytes().max(128), context.numa_node())
        .ok_or(PipeError::NoMemory)?;
    // SAFETY: fresh zeroed storage of `bytes` bytes, aligned to 128, not shared yet.
    unsafe { jit::pipe::init(storage.ptr(), packet_size, max_packets) };
    let mut mem = Mem::new_buffer(context, flags, bytes, std::ptr::null_mut(), storage, Vec::new());
    mem.mem_type = CL_MEM_OBJECT_PIPE;
    Ok(mem)
}

/// `(CL_PIPE_PACKET_SIZE, CL_PIPE_MAX_PACKETS)` of a pipe; `None` for any other memory object.
pub fn geometry(mem: &Mem) -> Option<(u32, u32)> {
    // SAFETY: a pipe's bytes start with the header `create` wrote.
    (mem.mem_type == CL_MEM_OBJECT_PIPE).then(|| unsafe { jit::pipe::geometry(mem.base()) })
}
