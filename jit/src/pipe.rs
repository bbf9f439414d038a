//! Pipes (OpenCL C 6.13.16, SPIR-V OpReadPipe ... OpGroupCommitWritePipe): the layout of a pipe
//! object's bytes and the run-time functions compiled kernels call on them.
//!
//! A pipe is a ring of `capacity` packet slots in the memory object itself, so that kernels on
//! any worker thread reach it through the argument's address alone:
//!
//! ```text
//! 0    Header (64 bytes): lock, packet size, capacity, data offset, four packet counters
//! 64   one state byte per slot (FREE, WRITTEN, READ)
//! data capacity * packet_size bytes of packets (data offset: a multiple of 128)
//! ```
//!
//! The four counters count packets since the pipe was created (32 bits, wrapping; the capacity
//! is less than 2^31, so differences stay exact):
//!
//! ```text
//! rd_committed <= rd_reserved <= wr_committed <= wr_reserved <= rd_committed + capacity
//! ```
//!
//! `[wr_committed, wr_reserved)` are slots reserved for writing and not yet committed,
//! `[rd_reserved, wr_committed)` packets that can be read, `[rd_committed, rd_reserved)` slots
//! reserved for reading. Reservations may be committed in any order: a commit marks its slots
//! (WRITTEN or READ) and the committed counter advances over the marked prefix, so packets of a
//! write reservation become readable once every earlier write reservation is committed too, and
//! slots of a read reservation are free again once every earlier read is committed. A plain
//! `read_pipe` / `write_pipe` is a reservation of one packet, its copy and its commit at once.
//!
//! Reservations, commits and plain reads and writes hold a spin lock in the header (packets are
//! at most `MAX_PACKET_SIZE` bytes, so the critical sections are short); a reserved read or
//! write copies its packet without it: the slot belongs to the reservation, and the lock taken
//! by the commit publishes the bytes to the reader that reserves them later.
//!
//! A reservation id (`reserve_id_t`, 8 bytes) is `start << 32 | count`, `count > 0`; the
//! invalid id is 0. Ids are only ever used modulo the capacity to address slots, so a damaged
//! id cannot reach outside the pipe's bytes.

use std::sync::atomic::{AtomicU32, AtomicU8, Ordering};

/// `CL_DEVICE_PIPE_MAX_PACKET_SIZE`.
pub const MAX_PACKET_SIZE: u32 = 1024;
/// The largest capacity a pipe may have (the counters' differences must stay below 2^31).
pub const MAX_PACKETS: u32 = 1 << 30;

const FREE: u8 = 0;
const WRITTEN: u8 = 1;
const READ: u8 = 2;

/// The first bytes of a pipe object.
#[repr(C)]
pub struct Header {
    lock: AtomicU32,
    packet_size: u32,
    capacity: u32,
    data_offset: u32,
    wr_reserved: AtomicU32,
    wr_committed: AtomicU32,
    rd_reserved: AtomicU32,
    rd_committed: AtomicU32,
}

const HEADER_BYTES: usize = 64;
const _: () = assert!(std::mem::size_of::<Header>() <= HEADER_BYTES);

/// Where the packets of a pipe of `capacity` packets start.
fn data_offset(capacity: u32) -> usize {
    (HEADER_BYTES + capacity as usize).next_multiple_of(128)
}

/// Bytes a pipe of `capacity` packets of `packet_size` bytes occupies; `None` when it does not
/// fit in memory at all.
pub fn pipe_bytes(packet_size: u32, capacity: u32) -> Option<usize> {
    (packet_size as usize)
        .checked_mul(capacity as usize)?
        .checked_add(data_offset(capacity))
}

/// Writes the header of an empty pipe into `base`.
///
/// # Safety
/// `base` points to `pipe_bytes(packet_size, capacity)` zeroed bytes aligned to 8, not yet
/// shared with any other thread.
pub unsafe fn init(base: *mut u8, packet_size: u32, capacity: u32) {
    let h = base as *mut Header;
    unsafe {
        h.write(Header {
            lock: AtomicU32::new(0),
            packet_size,
            capacity,
            data_offset: data_offset(capacity) as u32,
            wr_reserved: AtomicU32::new(0),
            wr_committed: AtomicU32::new(0),
            rd_reserved: AtomicU32::new(0),
            rd_committed: AtomicU32::new(0),
        })
    };
}

/// The packet size and capacity recorded in a pipe's header.
///
/// # Safety
/// `base` is the first byte of a pipe made by [`init`].
pub unsafe fn geometry(base: *const u8) -> (u32, u32) {
    let h = unsafe { &*(base as *const Header) };
    (h.packet_size, h.capacity)
}

struct Pipe<'a> {
    h: &'a Header,
    base: *mut u8,
}

struct Guard<'a>(&'a AtomicU32);

impl Drop for Guard<'_> {
    fn drop(&mut self) {
        self.0.store(0, Ordering::Release);
    }
}

impl<'a> Pipe<'a> {
    /// # Safety
    /// `base` is NULL or the first byte of a pipe made by [`init`].
    unsafe fn at(base: *mut u8) -> Option<Pipe<'a>> {
        if base.is_null() {
            return None;
        }
        let h = unsafe { &*(base as *const Header) };
        (h.capacity > 0).then_some(Pipe { h, base })
    }

    fn lock(&self) -> Guard<'_> {
        let mut spins = 0u32;
        while self
            .h
            .lock
            .compare_exchange_weak(0, 1, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            spins += 1;
            if spins < 64 {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
        Guard(&self.h.lock)
    }

    fn slot_index(&self, n: u32) -> usize {
        (n % self.h.capacity) as usize
    }

    fn state(&self, slot: usize) -> &AtomicU8 {
        // SAFETY: the state bytes follow the header, one per slot.
        unsafe { &*(self.base.add(HEADER_BYTES + slot) as *const AtomicU8) }
    }

    fn packet(&self, slot: usize) -> *mut u8 {
        self.base
            .wrapping_add(self.h.data_offset as usize + slot * self.h.packet_size as usize)
    }

    /// Bytes to copy for an instruction whose packet size is `size` (never past the slot).
    fn copy_len(&self, size: u32) -> usize {
        size.min(self.h.packet_size) as usize
    }

    /// Reserves `n` packets (caller holds the lock): the first counter value, or `None`.
    fn reserve_locked(&self, n: u32, write: bool) -> Option<u32> {
        let h = self.h;
        if n == 0 || n > h.capacity {
            return None;
        }
        let relaxed = Ordering::Relaxed;
        if write {
            let start = h.wr_reserved.load(relaxed);
            let used = start.wrapping_sub(h.rd_committed.load(relaxed));
            if used.checked_add(n)? > h.capacity {
                return None;
            }
            h.wr_reserved.store(start.wrapping_add(n), relaxed);
            Some(start)
        } else {
            let start = h.rd_reserved.load(relaxed);
            let ready = h.wr_committed.load(relaxed).wrapping_sub(start);
            if n > ready {
                return None;
            }
            h.rd_reserved.store(start.wrapping_add(n), relaxed);
            Some(start)
        }
    }

    /// Commits the `n` packets from `start` (caller holds the lock); ignored when they are not
    /// an outstanding reservation of that direction.
    fn commit_locked(&self, start: u32, n: u32, write: bool) {
        let h = self.h;
        let relaxed = Ordering::Relaxed;
        let (committed, reserved, mark) = if write {
            (&h.wr_committed, &h.wr_reserved, WRITTEN)
        } else {
            (&h.rd_committed, &h.rd_reserved, READ)
        };
        let c = committed.load(relaxed);
        let outstanding = reserved.load(relaxed).wrapping_sub(c);
        let from = start.wrapping_sub(c);
        if n == 0 || from.checked_add(n).is_none_or(|end| end > outstanding) {
            return;
        }
        for k in 0..n {
            self.state(self.slot_index(start.wrapping_add(k))).store(mark, relaxed);
        }
        let mut c = c;
        let end = reserved.load(relaxed);
        while c != end {
            let s = self.state(self.slot_index(c));
            if s.load(relaxed) != mark {
                break;
            }
            s.store(FREE, relaxed);
            c = c.wrapping_add(1);
        }
        committed.store(c, relaxed);
    }
}

fn make_id(start: u32, n: u32) -> u64 {
    (start as u64) << 32 | n as u64
}

fn split_id(id: u64) -> (u32, u32) {
    ((id >> 32) as u32, id as u32)
}

/// `read_pipe(p, ptr)`: 0 and one packet copied to `dst`, or -1 when the pipe is empty.
///
/// # Safety
/// `pipe` is NULL or a pipe made by [`init`]; `dst` is valid for `size` bytes.
pub unsafe extern "C" fn clift_pipe_read(pipe: *mut u8, dst: *mut u8, size: u32) -> i32 {
    let Some(p) = (unsafe { Pipe::at(pipe) }) else {
        return -1;
    };
    let mut packet = PacketBuf::new(p.copy_len(size));
    {
        let _g = p.lock();
        let Some(start) = p.reserve_locked(1, false) else {
            return -1;
        };
        let slot = p.slot_index(start);
        let bytes = packet.bytes();
        unsafe { std::ptr::copy_nonoverlapping(p.packet(slot), bytes.as_mut_ptr(), bytes.len()) };
        p.commit_locked(start, 1, false);
    }
    // The kernel's pointer, with the pipe's lock released: a bad one faults as the kernel's
    // own access would, and the pipe stays usable.
    let bytes = packet.bytes();
    unsafe { crate::fault::kernel_copy(dst, bytes.as_ptr(), bytes.len()) };
    0
}

/// A packet's bytes copied out of the pipe or out of the kernel's memory, so that the kernel's
/// pointer is never touched with the pipe's lock held.
struct PacketBuf {
    small: [u8; 128],
    large: Vec<u8>,
    len: usize,
}

impl PacketBuf {
    fn new(len: usize) -> PacketBuf {
        PacketBuf {
            small: [0; 128],
            large: if len > 128 { vec![0; len] } else { Vec::new() },
            len,
        }
    }

    fn bytes(&mut self) -> &mut [u8] {
        if self.len > self.small.len() {
            &mut self.large
        } else {
            &mut self.small[..self.len]
        }
    }
}

/// `write_pipe(p, ptr)`: 0 and one packet copied from `src`, or -1 when the pipe is full.
///
/// # Safety
/// As [`clift_pipe_read`], `src` valid for `size` bytes.
pub unsafe extern "C" fn clift_pipe_write(pipe: *mut u8, src: *const u8, size: u32) -> i32 {
    let Some(p) = (unsafe { Pipe::at(pipe) }) else {
        return -1;
    };
    // The kernel's pointer first, without the pipe's lock (see `clift_pipe_read`).
    let mut packet = PacketBuf::new(p.copy_len(size));
    let bytes = packet.bytes();
    unsafe { crate::fault::kernel_copy(bytes.as_mut_ptr(), src, bytes.len()) };
    let _g = p.lock();
    let Some(start) = p.reserve_locked(1, true) else {
        return -1;
    };
    let slot = p.slot_index(start);
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), p.packet(slot), bytes.len()) };
    p.commit_locked(start, 1, true);
    0
}

/// `reserve_read_pipe` / `reserve_write_pipe` (`write` non-zero): a reservation id, or 0.
///
/// # Safety
/// `pipe` is NULL or a pipe made by [`init`].
pub unsafe extern "C" fn clift_pipe_reserve(pipe: *mut u8, n: u32, write: u32) -> u64 {
    let Some(p) = (unsafe { Pipe::at(pipe) }) else { return 0 };
    let _g = p.lock();
    p.reserve_locked(n, write != 0).map_or(0, |start| make_id(start, n))
}

/// `commit_read_pipe` / `commit_write_pipe`.
///
/// # Safety
/// As [`clift_pipe_reserve`].
pub unsafe extern "C" fn clift_pipe_commit(pipe: *mut u8, id: u64, write: u32) {
    let Some(p) = (unsafe { Pipe::at(pipe) }) else { return };
    let (start, n) = split_id(id);
    let _g = p.lock();
    p.commit_locked(start, n, write != 0);
}

/// `read_pipe(p, id, index, ptr)` (`write` zero) and `write_pipe(p, id, index, ptr)`: 0, or -1
/// for an invalid id or an index outside the reservation.
///
/// # Safety
/// As [`clift_pipe_reserve`]; `ptr` valid for `size` bytes.
pub unsafe extern "C" fn clift_pipe_reserved(
    pipe: *mut u8,
    id: u64,
    index: u32,
    ptr: *mut u8,
    size: u32,
    write: u32,
) -> i32 {
    let Some(p) = (unsafe { Pipe::at(pipe) }) else {
        return -1;
    };
    let (start, n) = split_id(id);
    if index >= n {
        return -1;
    }
    let slot = p.slot_index(start.wrapping_add(index));
    let len = p.copy_len(size);
    // No lock held: the kernel's pointer is copied from or to directly.
    unsafe {
        if write != 0 {
            crate::fault::kernel_copy(p.packet(slot), ptr as *const u8, len);
        } else {
            crate::fault::kernel_copy(ptr, p.packet(slot), len);
        }
    }
    0
}

/// `get_pipe_num_packets`: packets written (committed) and not yet read (committed).
///
/// # Safety
/// As [`clift_pipe_reserve`].
pub unsafe extern "C" fn clift_pipe_num_packets(pipe: *mut u8) -> u32 {
    let Some(p) = (unsafe { Pipe::at(pipe) }) else { return 0 };
    let _g = p.lock();
    let h = p.h;
    h.wr_committed
        .load(Ordering::Relaxed)
        .wrapping_sub(h.rd_committed.load(Ordering::Relaxed))
}

/// `get_pipe_max_packets`: the capacity.
///
/// # Safety
/// As [`clift_pipe_reserve`].
pub unsafe extern "C" fn clift_pipe_max_packets(pipe: *mut u8) -> u32 {
    unsafe { Pipe::at(pipe) }.map_or(0, |p| p.h.capacity)
}

/// The leader of a work-group (`sub_group` zero) or sub-group reservation: the work-item of
/// local linear id 0 (or the first of its sub-group) reserves, the others answer 0; the code
/// generator then spreads the leader's id over the group with a reduction (`codegen::pipe`).
///
/// # Safety
/// `wi` is the work-item state the driver passed to the kernel, with its ids set; `pipe` as
/// for [`clift_pipe_reserve`].
pub(crate) unsafe extern "C" fn clift_pipe_group_reserve(
    wi: *const crate::codegen::driver::WorkItem,
    pipe: *mut u8,
    n: u32,
    flags: u32,
) -> u64 {
    if unsafe { !is_leader(wi, flags) } {
        return 0;
    }
    unsafe { clift_pipe_reserve(pipe, n, flags & GROUP_WRITE) }
}

/// The leader's commit of a work-group or sub-group reservation (after a barrier: every
/// work-item has copied its packet).
///
/// # Safety
/// As [`clift_pipe_group_reserve`].
pub(crate) unsafe extern "C" fn clift_pipe_group_commit(
    wi: *const crate::codegen::driver::WorkItem,
    pipe: *mut u8,
    id: u64,
    flags: u32,
) {
    if unsafe { is_leader(wi, flags) } {
        unsafe { clift_pipe_commit(pipe, id, flags & GROUP_WRITE) }
    }
}

/// `flags` of the group helpers: a write reservation.
pub(crate) const GROUP_WRITE: u32 = 1;
/// `flags` of the group helpers: sub-group scope.
pub(crate) const GROUP_SUB: u32 = 2;

unsafe fn is_leader(wi: *const crate::codegen::driver::WorkItem, flags: u32) -> bool {
    let lid = unsafe { (*wi).local_linear_id } as usize;
    if flags & GROUP_SUB != 0 {
        lid.is_multiple_of(crate::abi::SUB_GROUP_SIZE)
    } else {
        lid == 0
    }
}

/// `(name, address)` of the pipe functions, for the JIT's symbol table.
pub(crate) fn symbols() -> Vec<(&'static str, *const u8)> {
    vec![
        ("clift_pipe_read", clift_pipe_read as *const u8),
        ("clift_pipe_write", clift_pipe_write as *const u8),
        ("clift_pipe_reserve", clift_pipe_reserve as *const u8),
        ("clift_pipe_commit", clift_pipe_commit as *const u8),
        ("clift_pipe_reserved", clift_pipe_reserved as *const u8),
        ("clift_pipe_num_packets", clift_pipe_num_packets as *const u8),
        ("clift_pipe_max_packets", clift_pipe_max_packets as *const u8),
        ("clift_pipe_group_reserve", clift_pipe_group_reserve as *const u8),
        ("clift_pipe_group_commit", clift_pipe_group_commit as *const u8),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Owned(Vec<u64>);

    fn make(packet: u32, cap: u32) -> Owned {
        let words = pipe_bytes(packet, cap).unwrap().div_ceil(8);
        let mut v = Owned(vec![0u64; words]);
        unsafe { init(v.0.as_mut_ptr() as *mut u8, packet, cap) };
        v
    }

    impl Owned {
        fn p(&mut self) -> *mut u8 {
            self.0.as_mut_ptr() as *mut u8
        }
    }

    #[test]
    fn plain_reads_and_writes_are_fifo_and_bounded() {
        let mut o = make(4, 3);
        let p = o.p();
        unsafe {
            let mut x = 0u32;
            assert_eq!(clift_pipe_read(p, &mut x as *mut u32 as *mut u8, 4), -1, "empty");
            for v in [7u32, 8, 9] {
                assert_eq!(clift_pipe_write(p, &v as *const u32 as *const u8, 4), 0);
            }
            assert_eq!(clift_pipe_write(p, &1u32 as *const u32 as *const u8, 4), -1, "full");
            assert_eq!(clift_pipe_num_packets(p), 3);
            assert_eq!(clift_pipe_max_packets(p), 3);
            // Wrap around several times.
            for round in 0..10u32 {
                let mut got = 0u32;
                assert_eq!(clift_pipe_read(p, &mut got as *mut u32 as *mut u8, 4), 0);
                assert_eq!(got, if round < 3 { 7 + round } else { 100 + round - 3 });
                let v = 100 + round;
                assert_eq!(clift_pipe_write(p, &v as *const u32 as *const u8, 4), 0);
            }
        }
    }

    #[test]
    fn out_of_order_commits() {
        let mut o = make(8, 4);
        let p = o.p();
        unsafe {
            let a = clift_pipe_reserve(p, 2, 1);
            let b = clift_pipe_reserve(p, 2, 1);
            assert!(a != 0 && b != 0);
            assert_eq!(clift_pipe_reserve(p, 1, 1), 0, "full with reservations");
            for (id, base) in [(b, 20u64), (a, 10)] {
                for i in 0..2 {
                    let mut v = base + i as u64;
                    assert_eq!(clift_pipe_reserved(p, id, i, &mut v as *mut u64 as *mut u8, 8, 1), 0);
                }
                assert_eq!(clift_pipe_reserved(p, id, 2, std::ptr::null_mut(), 8, 1), -1);
            }
            clift_pipe_commit(p, b, 1);
            assert_eq!(clift_pipe_num_packets(p), 0, "b waits for a");
            assert_eq!(clift_pipe_reserve(p, 1, 0), 0);
            clift_pipe_commit(p, a, 1);
            assert_eq!(clift_pipe_num_packets(p), 4);
            let r = clift_pipe_reserve(p, 3, 0);
            assert_ne!(r, 0);
            let mut got = Vec::new();
            for i in 0..3 {
                let mut v = 0u64;
                assert_eq!(clift_pipe_reserved(p, r, i, &mut v as *mut u64 as *mut u8, 8, 0), 0);
                got.push(v);
            }
            assert_eq!(got, [10, 11, 20]);
            assert_eq!(clift_pipe_reserve(p, 1, 1), 0, "slots still reserved for reading");
            clift_pipe_commit(p, r, 0);
            assert_eq!(clift_pipe_num_packets(p), 1);
            // A commit of an id that is not outstanding changes nothing.
            clift_pipe_commit(p, r, 0);
            clift_pipe_commit(p, 0xdead_beef_0000_0003, 1);
            assert_eq!(clift_pipe_num_packets(p), 1);
            assert_eq!(clift_pipe_reserve(p, 0, 1), 0);
            assert_eq!(clift_pipe_reserve(p, 5, 1), 0);
            assert_eq!(clift_pipe_reserve(std::ptr::null_mut(), 1, 1), 0);
        }
    }

    #[test]
    fn threads_lose_and_duplicate_nothing() {
        let mut o = make(8, 64);
        let p = o.p() as usize;
        let per = 20_000u64;
        let writers: Vec<_> = (0..3u64)
            .map(|t| {
                std::thread::spawn(move || {
                    let p = p as *mut u8;
                    let mut k = 0;
                    while k < per {
                        let v = t * per + k;
                        let ok = if k % 2 == 0 {
                            unsafe { clift_pipe_write(p, &v as *const u64 as *const u8, 8) == 0 }
                        } else {
                            let id = unsafe { clift_pipe_reserve(p, 1, 1) };
                            id != 0
                                && unsafe {
                                    clift_pipe_reserved(p, id, 0, &v as *const u64 as *mut u8, 8, 1);
                                    clift_pipe_commit(p, id, 1);
                                    true
                                }
                        };
                        if ok {
                            k += 1;
                        } else {
                            std::thread::yield_now();
                        }
                    }
                })
            })
            .collect();
        let total = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let readers: Vec<_> = (0..2)
            .map(|_| {
                let total = total.clone();
                std::thread::spawn(move || {
                    let p = p as *mut u8;
                    let mut got = Vec::new();
                    while total.load(Ordering::Relaxed) < 3 * per {
                        let mut v = 0u64;
                        if unsafe { clift_pipe_read(p, &mut v as *mut u64 as *mut u8, 8) } == 0 {
                            got.push(v);
                            total.fetch_add(1, Ordering::Relaxed);
                        } else {
                            std::thread::yield_now();
                        }
                    }
                    got
                })
            })
            .collect();
        for w in writers {
            w.join().unwrap();
        }
        let mut all: Vec<u64> = readers.into_iter().flat_map(|r| r.join().unwrap()).collect();
        all.sort_unstable();
        assert_eq!(all, (0..3 * per).collect::<Vec<_>>());
    }
}
