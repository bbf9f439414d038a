//! Buffers: creation flags and errors, sub-buffers, read/write/copy (and Rect), fill,
//! map/unmap, host access flags, migrate, destructor callbacks, clGetMemObjectInfo.

use cts::*;
use std::ptr;
use std::sync::Mutex;

const ACCESS: [cl_mem_flags; 3] = [CL_MEM_READ_WRITE, CL_MEM_WRITE_ONLY, CL_MEM_READ_ONLY];
const HOSTPTR: [cl_mem_flags; 3] = [CL_MEM_USE_HOST_PTR, CL_MEM_ALLOC_HOST_PTR, CL_MEM_COPY_HOST_PTR];
const HOSTACC: [cl_mem_flags; 3] = [CL_MEM_HOST_WRITE_ONLY, CL_MEM_HOST_READ_ONLY, CL_MEM_HOST_NO_ACCESS];

fn base_align() -> usize {
    device_info::<cl_uint>(CL_DEVICE_MEM_BASE_ADDR_ALIGN) as usize / 8
}

#[test]
fn create_buffer_every_flag_combination() {
    let ctx = Context::new();
    let bits: Vec<cl_mem_flags> = ACCESS.iter().chain(&HOSTPTR).chain(&HOSTACC).copied().collect();
    let mut host = pattern(256, 7);
    for mask in 0u32..(1 << bits.len()) {
        let flags = (0..bits.len())
            .filter(|i| mask & (1 << i) != 0)
            .fold(0, |a, i| a | bits[i]);
        let n_access = ACCESS.iter().filter(|&&f| flags & f != 0).count();
        let n_hostacc = HOSTACC.iter().filter(|&&f| flags & f != 0).count();
        let use_ = flags & CL_MEM_USE_HOST_PTR != 0;
        let valid =
            n_access <= 1 && n_hostacc <= 1 && !(use_ && flags & (CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR) != 0);
        let needs_ptr = flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR) != 0;
        let hp = if needs_ptr {
            host.as_mut_ptr() as *mut c_void
        } else {
            ptr::null_mut()
        };
        for with_props in [false, true] {
            let mut err = 0;
            let m = unsafe {
                if with_props {
                    clCreateBufferWithProperties(ctx.0, ptr::null(), flags, 256, hp, &mut err)
                } else {
                    clCreateBuffer(ctx.0, flags, 256, hp, &mut err)
                }
            };
            if valid {
                check_err!(err, CL_SUCCESS, format!("flags {flags:#x} props {with_props}"));
                let m = Mem(m);
                if n_access == 1 {
                    assert_eq!(mem_info::<cl_mem_flags>(m.0, CL_MEM_FLAGS), flags, "CL_MEM_FLAGS");
                }
                assert_eq!(m.size(), 256);
                if use_ {
                    assert_eq!(mem_info::<*mut c_void>(m.0, CL_MEM_HOST_PTR), hp);
                } else {
                    assert!(mem_info::<*mut c_void>(m.0, CL_MEM_HOST_PTR).is_null());
                }
            } else {
                assert!(m.is_null(), "invalid flags {flags:#x} returned a handle");
                check_err!(err, CL_INVALID_VALUE, format!("invalid flags {flags:#x}"));
            }
        }
    }
    // Unknown flag bit.
    assert_eq!(
        ctx.try_buffer(1 << 40, 16, ptr::null_mut()).err(),
        Some(CL_INVALID_VALUE)
    );
}

#[test]
fn create_buffer_errors() {
    let ctx = Context::new();
    let mut host = vec![0u8; 64];
    let hp = host.as_mut_ptr() as *mut c_void;
    assert_eq!(
        ctx.try_buffer(CL_MEM_READ_WRITE, 0, ptr::null_mut()).err(),
        Some(CL_INVALID_BUFFER_SIZE)
    );
    let max: cl_ulong = device_info(CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    assert_eq!(
        ctx.try_buffer(CL_MEM_READ_WRITE, max as usize + 1, ptr::null_mut())
            .err(),
        Some(CL_INVALID_BUFFER_SIZE)
    );
    assert_eq!(
        ctx.try_buffer(CL_MEM_USE_HOST_PTR, 64, ptr::null_mut()).err(),
        Some(CL_INVALID_HOST_PTR)
    );
    assert_eq!(
        ctx.try_buffer(CL_MEM_COPY_HOST_PTR, 64, ptr::null_mut()).err(),
        Some(CL_INVALID_HOST_PTR)
    );
    for flags in [
        0,
        CL_MEM_READ_WRITE,
        CL_MEM_ALLOC_HOST_PTR,
        CL_MEM_READ_ONLY | CL_MEM_HOST_NO_ACCESS,
    ] {
        assert_eq!(
            ctx.try_buffer(flags, 64, hp).err(),
            Some(CL_INVALID_HOST_PTR),
            "flags {flags:#x}"
        );
    }
    let mut err = 0;
    let m = unsafe { clCreateBuffer(ptr::null_mut(), 0, 64, ptr::null_mut(), &mut err) };
    assert!(m.is_null());
    check_err!(err, CL_INVALID_CONTEXT, "NULL context");
    // Properties: no core buffer property exists; unknown names are CL_INVALID_PROPERTY.
    let bad: [cl_mem_properties; 3] = [0x0BAD, 0, 0];
    let m = unsafe { clCreateBufferWithProperties(ctx.0, bad.as_ptr(), 0, 64, ptr::null_mut(), &mut err) };
    assert!(m.is_null());
    check_err!(err, CL_INVALID_PROPERTY, "unknown buffer property");
    let m = unsafe { clCreateBufferWithProperties(ctx.0, ptr::null(), 0, 0, ptr::null_mut(), &mut err) };
    assert!(m.is_null());
    check_err!(err, CL_INVALID_BUFFER_SIZE, "WithProperties size 0");
    // The context is still usable.
    let b = ctx.buffer(64);
    assert_eq!(b.size(), 64);
}

#[test]
fn mem_object_info_queries() {
    let ctx = Context::new();
    let mut host = pattern(1024, 8);
    let hp = host.as_mut_ptr() as *mut c_void;
    let empty: [cl_mem_properties; 1] = [0];
    let mut err = 0;
    let m = unsafe {
        clCreateBufferWithProperties(
            ctx.0,
            empty.as_ptr(),
            CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR,
            1024,
            hp,
            &mut err,
        )
    };
    check_err!(err, CL_SUCCESS, "clCreateBufferWithProperties");
    let m = Mem(m);
    assert_eq!(mem_info::<cl_mem_object_type>(m.0, CL_MEM_TYPE), CL_MEM_OBJECT_BUFFER);
    assert_eq!(
        mem_info::<cl_mem_flags>(m.0, CL_MEM_FLAGS),
        CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR
    );
    assert_eq!(mem_info::<size_t>(m.0, CL_MEM_SIZE), 1024);
    assert_eq!(mem_info::<*mut c_void>(m.0, CL_MEM_HOST_PTR), hp);
    assert_eq!(mem_info::<cl_uint>(m.0, CL_MEM_MAP_COUNT), 0);
    assert_eq!(mem_info::<cl_uint>(m.0, CL_MEM_REFERENCE_COUNT), 1);
    assert_eq!(mem_info::<cl_context>(m.0, CL_MEM_CONTEXT), ctx.0);
    assert!(mem_info::<cl_mem>(m.0, CL_MEM_ASSOCIATED_MEMOBJECT).is_null());
    assert_eq!(mem_info::<size_t>(m.0, CL_MEM_OFFSET), 0);
    assert_eq!(mem_info::<cl_bool>(m.0, CL_MEM_USES_SVM_POINTER), CL_FALSE);
    let props: Vec<cl_mem_properties> = bytes_to_vec(&mem_bytes(m.0, CL_MEM_PROPERTIES).unwrap());
    assert_eq!(props, vec![0], "CL_MEM_PROPERTIES returns the (empty) list given");
    let plain = ctx.buffer(16);
    let mut size: size_t = 99;
    ok!(clGetMemObjectInfo(
        plain.0,
        CL_MEM_PROPERTIES,
        0,
        ptr::null_mut(),
        &mut size
    ));
    assert_eq!(size, 0, "CL_MEM_PROPERTIES of a clCreateBuffer buffer is empty");
    // Sub-buffer info.
    let al = base_align();
    let big = ctx.buffer(al * 4);
    let s = big.sub(CL_MEM_READ_ONLY, al, al);
    assert_eq!(mem_info::<cl_mem>(s.0, CL_MEM_ASSOCIATED_MEMOBJECT), big.0);
    assert_eq!(mem_info::<size_t>(s.0, CL_MEM_OFFSET), al);
    assert_eq!(mem_info::<size_t>(s.0, CL_MEM_SIZE), al);
    assert_eq!(mem_info::<cl_context>(s.0, CL_MEM_CONTEXT), ctx.0);
    // Sub-buffer of a USE_HOST_PTR buffer: host_ptr + origin.
    let ubuf_host = vec![0u8; al * 2];
    let ub = ctx.buffer_with(CL_MEM_USE_HOST_PTR, al * 2, ubuf_host.as_ptr() as *mut c_void);
    let us = ub.sub(0, al, al);
    assert_eq!(
        mem_info::<*mut c_void>(us.0, CL_MEM_HOST_PTR) as usize,
        ubuf_host.as_ptr() as usize + al
    );
    // Errors.
    check!(
        clGetMemObjectInfo(m.0, 0x0BAD, 0, ptr::null_mut(), &mut size),
        CL_INVALID_VALUE
    );
    let mut v: cl_uint = 0;
    check!(
        clGetMemObjectInfo(
            m.0,
            CL_MEM_MAP_COUNT,
            1,
            &mut v as *mut cl_uint as *mut c_void,
            ptr::null_mut()
        ),
        CL_INVALID_VALUE
    );
    check!(
        clGetMemObjectInfo(ptr::null_mut(), CL_MEM_SIZE, 0, ptr::null_mut(), &mut size),
        CL_INVALID_MEM_OBJECT
    );
    // Retain/release.
    ok!(clRetainMemObject(m.0));
    assert_eq!(m.reference_count(), 2);
    ok!(clReleaseMemObject(m.0));
    assert_eq!(m.reference_count(), 1);
    check!(clRetainMemObject(ptr::null_mut()), CL_INVALID_MEM_OBJECT);
    check!(clReleaseMemObject(ptr::null_mut()), CL_INVALID_MEM_OBJECT);
    drop(m);
    drop(host);
}

#[test]
fn sub_buffers_and_their_errors() {
    let ctx = Context::new();
    let q = ctx.queue();
    let al = base_align();
    assert!(al.is_power_of_two());
    let size = al * 8;
    let data = pattern(size, 9);
    let parent = ctx.buffer_from(&data);
    let s = parent.sub(CL_MEM_READ_WRITE, al * 2, al * 3);
    assert_eq!(q.read(&s, 0, al * 3), data[al * 2..al * 5].to_vec());
    // Writing through the sub-buffer shows in the parent.
    let w = pattern(al, 10);
    q.write(&s, al, &w);
    let mut expect = data.clone();
    expect[al * 3..al * 4].copy_from_slice(&w);
    assert_eq!(q.read(&parent, 0, size), expect);
    // Flags inherited: sub-buffer of a READ_ONLY parent with flags 0.
    let ro = ctx.buffer_with(CL_MEM_READ_ONLY | CL_MEM_HOST_READ_ONLY, size, ptr::null_mut());
    let ros = ro.sub(0, 0, al);
    let f: cl_mem_flags = mem_info(ros.0, CL_MEM_FLAGS);
    assert_ne!(f & CL_MEM_READ_ONLY, 0, "sub-buffer inherits READ_ONLY");
    assert_ne!(f & CL_MEM_HOST_READ_ONLY, 0, "sub-buffer inherits HOST_READ_ONLY");
    // Misaligned origin.
    if al > 1 {
        assert_eq!(parent.try_sub(0, 1, al).err(), Some(CL_MISALIGNED_SUB_BUFFER_OFFSET));
    }
    // Out of bounds.
    assert_eq!(parent.try_sub(0, al * 8, al).err(), Some(CL_INVALID_VALUE));
    assert_eq!(parent.try_sub(0, al * 7, al * 2).err(), Some(CL_INVALID_VALUE));
    assert_eq!(parent.try_sub(0, 0, usize::MAX).err(), Some(CL_INVALID_VALUE));
    // Size 0.
    assert_eq!(parent.try_sub(0, 0, 0).err(), Some(CL_INVALID_BUFFER_SIZE));
    // Sub-buffer of a sub-buffer.
    assert_eq!(s.try_sub(0, 0, al).err(), Some(CL_INVALID_MEM_OBJECT));
    // Access conflicts with the parent.
    let wo = ctx.buffer_with(CL_MEM_WRITE_ONLY, size, ptr::null_mut());
    assert_eq!(wo.try_sub(CL_MEM_READ_WRITE, 0, al).err(), Some(CL_INVALID_VALUE));
    assert_eq!(wo.try_sub(CL_MEM_READ_ONLY, 0, al).err(), Some(CL_INVALID_VALUE));
    assert_eq!(ro.try_sub(CL_MEM_WRITE_ONLY, 0, al).err(), Some(CL_INVALID_VALUE));
    assert_eq!(ro.try_sub(CL_MEM_READ_WRITE, 0, al).err(), Some(CL_INVALID_VALUE));
    // Host pointer flags are not allowed on sub-buffers.
    for f in HOSTPTR {
        assert_eq!(parent.try_sub(f, 0, al).err(), Some(CL_INVALID_VALUE), "flags {f:#x}");
    }
    // Host access conflicts.
    assert_eq!(ro.try_sub(CL_MEM_HOST_WRITE_ONLY, 0, al).err(), Some(CL_INVALID_VALUE));
    let hno = ctx.buffer_with(CL_MEM_HOST_NO_ACCESS, size, ptr::null_mut());
    assert_eq!(hno.try_sub(CL_MEM_HOST_READ_ONLY, 0, al).err(), Some(CL_INVALID_VALUE));
    assert_eq!(hno.try_sub(CL_MEM_HOST_WRITE_ONLY, 0, al).err(), Some(CL_INVALID_VALUE));
    // Bad create type / NULL info.
    let region = cl_buffer_region { origin: 0, size: al };
    let mut err = 0;
    let m = unsafe { clCreateSubBuffer(parent.0, 0, 0x0BAD, &region as *const _ as *const c_void, &mut err) };
    assert!(m.is_null());
    check_err!(err, CL_INVALID_VALUE, "bad buffer_create_type");
    let m = unsafe { clCreateSubBuffer(parent.0, 0, CL_BUFFER_CREATE_TYPE_REGION, ptr::null(), &mut err) };
    assert!(m.is_null());
    check_err!(err, CL_INVALID_VALUE, "NULL buffer_create_info");
    let m = unsafe {
        clCreateSubBuffer(
            ptr::null_mut(),
            0,
            CL_BUFFER_CREATE_TYPE_REGION,
            &region as *const _ as *const c_void,
            &mut err,
        )
    };
    assert!(m.is_null());
    check_err!(err, CL_INVALID_MEM_OBJECT, "NULL buffer");
    // The parent keeps working.
    assert_eq!(q.read(&parent, 0, size), expect);
    // A sub-buffer keeps its parent's storage alive.
    let keep = {
        let p2 = ctx.buffer_from(&data);
        p2.sub(0, al, al)
    };
    assert_eq!(q.read(&keep, 0, al), data[al..al * 2].to_vec());
}

#[test]
fn read_write_copy_and_bounds() {
    let ctx = Context::new();
    let q = ctx.queue();
    let n = 4096;
    let a_data = pattern(n, 11);
    let a = ctx.buffer_from(&a_data);
    let b = ctx.buffer(n);
    q.write(&b, 0, &vec![0u8; n]);
    // Partial write, then full read: every byte checked.
    let part = pattern(777, 12);
    q.write(&b, 1001, &part);
    let mut expect = vec![0u8; n];
    expect[1001..1778].copy_from_slice(&part);
    assert_eq!(q.read(&b, 0, n), expect);
    // Copy a range, unaligned offsets.
    q.copy(&a, &b, 3, 2049, 1500, &[]).wait();
    expect[2049..3549].copy_from_slice(&a_data[3..1503]);
    assert_eq!(q.read(&b, 0, n), expect);
    // Copy within one buffer, non-overlapping.
    q.copy(&b, &b, 0, 3600, 400, &[]).wait();
    let src = expect[0..400].to_vec();
    expect[3600..4000].copy_from_slice(&src);
    assert_eq!(q.read(&b, 0, n), expect);
    // Adjacent (touching) regions do not overlap.
    q.copy(&b, &b, 0, 100, 100, &[]).wait();
    let src = expect[0..100].to_vec();
    expect[100..200].copy_from_slice(&src);
    assert_eq!(q.read(&b, 0, n), expect);
    // Out of range.
    let mut host = vec![0u8; n + 1];
    let hp = host.as_mut_ptr() as *mut c_void;
    check!(
        clEnqueueReadBuffer(q.0, b.0, CL_TRUE, 1, n, hp, 0, ptr::null(), ptr::null_mut()),
        CL_INVALID_VALUE
    );
    check!(
        clEnqueueReadBuffer(q.0, b.0, CL_TRUE, n, 1, hp, 0, ptr::null(), ptr::null_mut()),
        CL_INVALID_VALUE
    );
    check!(
        clEnqueueWriteBuffer(q.0, b.0, CL_TRUE, 0, n + 1, hp, 0, ptr::null(), ptr::null_mut()),
        CL_INVALID_VALUE
    );
    check!(
        clEnqueueWriteBuffer(q.0, b.0, CL_TRUE, usize::MAX, 2, hp, 0, ptr::null(), ptr::null_mut()),
        CL_INVALID_VALUE
    );
    check!(
        clEnqueueReadBuffer(
            q.0,
            b.0,
            CL_TRUE,
            0,
            16,
            ptr::null_mut(),
            0,
            ptr::null(),
            ptr::null_mut()
        ),
        CL_INVALID_VALUE
    );
    check!(
        clEnqueueWriteBuffer(q.0, b.0, CL_TRUE, 0, 16, ptr::null(), 0, ptr::null(), ptr::null_mut()),
        CL_INVALID_VALUE
    );
    check!(
        clEnqueueCopyBuffer(q.0, a.0, b.0, 1, 0, n, 0, ptr::null(), ptr::null_mut()),
        CL_INVALID_VALUE
    );
    check!(
        clEnqueueCopyBuffer(q.0, a.0, b.0, 0, 1, n, 0, ptr::null(), ptr::null_mut()),
        CL_INVALID_VALUE
    );
    check!(
        clEnqueueCopyBuffer(q.0, a.0, b.0, usize::MAX, 0, 2, 0, ptr::null(), ptr::null_mut()),
        CL_INVALID_VALUE
    );
    check!(
        clEnqueueReadBuffer(q.0, ptr::null_mut(), CL_TRUE, 0, 1, hp, 0, ptr::null(), ptr::null_mut()),
        CL_INVALID_MEM_OBJECT
    );
    check!(
        clEnqueueCopyBuffer(q.0, a.0, ptr::null_mut(), 0, 0, 1, 0, ptr::null(), ptr::null_mut()),
        CL_INVALID_MEM_OBJECT
    );
    // Buffer from another context.
    let other = Context::new();
    let ob = other.buffer(n);
    check!(
        clEnqueueReadBuffer(q.0, ob.0, CL_TRUE, 0, 1, hp, 0, ptr::null(), ptr::null_mut()),
        CL_INVALID_CONTEXT
    );
    check!(
        clEnqueueCopyBuffer(q.0, a.0, ob.0, 0, 0, 1, 0, ptr::null(), ptr::null_mut()),
        CL_INVALID_CONTEXT
    );
    // Nothing changed by the failed calls.
    assert_eq!(q.read(&b, 0, n), expect);
    assert_eq!(q.read(&a, 0, n), a_data);
}

#[test]
fn copy_overlap() {
    let ctx = Context::new();
    let q = ctx.queue();
    let al = base_align();
    let n = al * 8;
    let b = ctx.buffer_from(&pattern(n, 13));
    let e = ptr::null_mut::<cl_event>();
    check!(
        clEnqueueCopyBuffer(q.0, b.0, b.0, 0, 10, 20, 0, ptr::null(), e),
        CL_MEM_COPY_OVERLAP
    );
    check!(
        clEnqueueCopyBuffer(q.0, b.0, b.0, 10, 0, 20, 0, ptr::null(), e),
        CL_MEM_COPY_OVERLAP
    );
    check!(
        clEnqueueCopyBuffer(q.0, b.0, b.0, 5, 5, 1, 0, ptr::null(), e),
        CL_MEM_COPY_OVERLAP
    );
    // Through sub-buffers of one parent.
    let s1 = b.sub(0, 0, al * 2);
    let s2 = b.sub(0, al, al * 2);
    check!(
        clEnqueueCopyBuffer(q.0, s1.0, s2.0, al, 0, al, 0, ptr::null(), e),
        CL_MEM_COPY_OVERLAP
    );
    check!(
        clEnqueueCopyBuffer(q.0, s1.0, b.0, 0, al / 2, al, 0, ptr::null(), e),
        CL_MEM_COPY_OVERLAP
    );
    // Sub-buffers that overlap as objects but whose copied ranges do not.
    ok!(clEnqueueCopyBuffer(
        q.0,
        s1.0,
        s2.0,
        0,
        al * 2 - 1,
        1,
        0,
        ptr::null(),
        e
    ));
    q.finish();
}

/// Host-side reference of the rect arithmetic: copies `region` from `src` at `so` (with
/// src pitches) to `dst` at `dorig` (with dst pitches). Pitches 0 mean "tightly packed".
#[allow(clippy::too_many_arguments)]
fn rect_ref(
    src: &[u8],
    dst: &mut [u8],
    so: [usize; 3],
    dorig: [usize; 3],
    region: [usize; 3],
    srp: usize,
    ssp: usize,
    drp: usize,
    dsp: usize,
) {
    let srp = if srp == 0 { region[0] } else { srp };
    let ssp = if ssp == 0 { region[1] * srp } else { ssp };
    let drp = if drp == 0 { region[0] } else { drp };
    let dsp = if dsp == 0 { region[1] * drp } else { dsp };
    for z in 0..region[2] {
        for y in 0..region[1] {
            let s = (so[2] + z) * ssp + (so[1] + y) * srp + so[0];
            let d = (dorig[2] + z) * dsp + (dorig[1] + y) * drp + dorig[0];
            let row = src[s..s + region[0]].to_vec();
            dst[d..d + region[0]].copy_from_slice(&row);
        }
    }
}

struct RectCase {
    bo: [usize; 3],
    ho: [usize; 3],
    region: [usize; 3],
    brp: usize,
    bsp: usize,
    hrp: usize,
    hsp: usize,
}

fn rect_cases() -> Vec<RectCase> {
    vec![
        RectCase {
            bo: [0, 0, 0],
            ho: [0, 0, 0],
            region: [16, 1, 1],
            brp: 0,
            bsp: 0,
            hrp: 0,
            hsp: 0,
        },
        RectCase {
            bo: [3, 2, 1],
            ho: [1, 1, 0],
            region: [5, 4, 3],
            brp: 17,
            bsp: 17 * 9,
            hrp: 11,
            hsp: 11 * 6,
        },
        RectCase {
            bo: [0, 0, 0],
            ho: [0, 0, 0],
            region: [7, 3, 2],
            brp: 0,
            bsp: 0,
            hrp: 0,
            hsp: 0,
        },
        RectCase {
            bo: [1, 0, 0],
            ho: [0, 5, 2],
            region: [20, 6, 1],
            brp: 32,
            bsp: 0,
            hrp: 24,
            hsp: 24 * 12,
        },
        RectCase {
            bo: [2, 3, 4],
            ho: [4, 3, 2],
            region: [1, 1, 1],
            brp: 10,
            bsp: 100,
            hrp: 9,
            hsp: 90,
        },
        RectCase {
            bo: [0, 1, 1],
            ho: [2, 0, 1],
            region: [13, 5, 4],
            brp: 13,
            bsp: 13 * 7,
            hrp: 20,
            hsp: 20 * 5,
        },
    ]
}

#[test]
fn read_write_rect_every_byte() {
    let ctx = Context::new();
    let q = ctx.queue();
    let n = 8192;
    for (i, c) in rect_cases().iter().enumerate() {
        let init = pattern(n, 100 + i as u64);
        let buf = ctx.buffer_from(&init);
        // Read rect.
        let mut host = pattern(n, 200 + i as u64);
        let mut expect = host.clone();
        rect_ref(&init, &mut expect, c.bo, c.ho, c.region, c.brp, c.bsp, c.hrp, c.hsp);
        ok!(clEnqueueReadBufferRect(
            q.0,
            buf.0,
            CL_TRUE,
            c.bo.as_ptr(),
            c.ho.as_ptr(),
            c.region.as_ptr(),
            c.brp,
            c.bsp,
            c.hrp,
            c.hsp,
            host.as_mut_ptr() as *mut c_void,
            0,
            ptr::null(),
            ptr::null_mut()
        ));
        assert!(host == expect, "read rect case {i}: bytes differ from the reference");
        // Write rect.
        let src = pattern(n, 300 + i as u64);
        let mut expect = init.clone();
        rect_ref(&src, &mut expect, c.ho, c.bo, c.region, c.hrp, c.hsp, c.brp, c.bsp);
        ok!(clEnqueueWriteBufferRect(
            q.0,
            buf.0,
            CL_TRUE,
            c.bo.as_ptr(),
            c.ho.as_ptr(),
            c.region.as_ptr(),
            c.brp,
            c.bsp,
            c.hrp,
            c.hsp,
            src.as_ptr() as *const c_void,
            0,
            ptr::null(),
            ptr::null_mut()
        ));
        assert!(
            q.read(&buf, 0, n) == expect,
            "write rect case {i}: bytes differ from the reference"
        );
        // Copy rect to a second buffer (buffer pitches as src, host pitches as dst).
        let dst_init = pattern(n, 400 + i as u64);
        let dst = ctx.buffer_from(&dst_init);
        let mut expect_dst = dst_init.clone();
        rect_ref(
            &expect,
            &mut expect_dst,
            c.bo,
            c.ho,
            c.region,
            c.brp,
            c.bsp,
            c.hrp,
            c.hsp,
        );
        let mut ev = ptr::null_mut();
        ok!(clEnqueueCopyBufferRect(
            q.0,
            buf.0,
            dst.0,
            c.bo.as_ptr(),
            c.ho.as_ptr(),
            c.region.as_ptr(),
            c.brp,
            c.bsp,
            c.hrp,
            c.hsp,
            0,
            ptr::null(),
            &mut ev
        ));
        let ev = Event(ev);
        assert_eq!(ev.command_type(), CL_COMMAND_COPY_BUFFER_RECT);
        assert!(
            q.read(&dst, 0, n) == expect_dst,
            "copy rect case {i}: bytes differ from the reference"
        );
    }
}

#[test]
fn copy_rect_within_one_buffer_and_overlap() {
    let ctx = Context::new();
    let q = ctx.queue();
    let n = 8192;
    let init = pattern(n, 14);
    let b = ctx.buffer_from(&init);
    // Two disjoint 8x8x2 blocks in a 64-byte-row, 64x64-slice layout.
    let (rp, sp) = (64usize, 64 * 64);
    let region = [8usize, 8, 2];
    let so = [0usize, 0, 0];
    let dorig = [16usize, 8, 0];
    let mut expect = init.clone();
    let snapshot = expect.clone();
    rect_ref(&snapshot, &mut expect, so, dorig, region, rp, sp, rp, sp);
    ok!(clEnqueueCopyBufferRect(
        q.0,
        b.0,
        b.0,
        so.as_ptr(),
        dorig.as_ptr(),
        region.as_ptr(),
        rp,
        sp,
        rp,
        sp,
        0,
        ptr::null(),
        ptr::null_mut()
    ));
    assert!(q.read(&b, 0, n) == expect, "copy rect within one buffer");
    // Overlapping blocks.
    let d2 = [4usize, 4, 0];
    check!(
        clEnqueueCopyBufferRect(
            q.0,
            b.0,
            b.0,
            so.as_ptr(),
            d2.as_ptr(),
            region.as_ptr(),
            rp,
            sp,
            rp,
            sp,
            0,
            ptr::null(),
            ptr::null_mut()
        ),
        CL_MEM_COPY_OVERLAP
    );
    // Same buffer with different pitches.
    check!(
        clEnqueueCopyBufferRect(
            q.0,
            b.0,
            b.0,
            so.as_ptr(),
            dorig.as_ptr(),
            region.as_ptr(),
            rp,
            sp,
            rp * 2,
            sp * 2,
            0,
            ptr::null(),
            ptr::null_mut()
        ),
        CL_INVALID_VALUE
    );
    assert!(q.read(&b, 0, n) == expect, "failed calls changed the buffer");
}

#[test]
fn rect_argument_errors() {
    let ctx = Context::new();
    let q = ctx.queue();
    let b = ctx.buffer(1024);
    let mut host = vec![0u8; 4096];
    let hp = host.as_mut_ptr() as *mut c_void;
    let o = [0usize; 3];
    let read = |bo: &[usize; 3], region: &[usize; 3], brp: usize, bsp: usize, hrp: usize, hsp: usize| unsafe {
        clEnqueueReadBufferRect(
            q.0,
            b.0,
            CL_TRUE,
            bo.as_ptr(),
            o.as_ptr(),
            region.as_ptr(),
            brp,
            bsp,
            hrp,
            hsp,
            hp,
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    check!(read(&o, &[4, 4, 1], 0, 0, 0, 0), CL_SUCCESS);
    check!(read(&o, &[0, 4, 1], 0, 0, 0, 0), CL_INVALID_VALUE);
    check!(read(&o, &[4, 0, 1], 0, 0, 0, 0), CL_INVALID_VALUE);
    check!(read(&o, &[4, 4, 0], 0, 0, 0, 0), CL_INVALID_VALUE);
    check!(read(&o, &[8, 2, 1], 4, 0, 0, 0), CL_INVALID_VALUE); // buffer_row_pitch < region[0]
    check!(read(&o, &[8, 2, 1], 0, 0, 4, 0), CL_INVALID_VALUE); // host_row_pitch < region[0]
    check!(read(&o, &[8, 4, 2], 8, 16, 0, 0), CL_INVALID_VALUE); // buffer_slice_pitch < region[1]*row
    check!(read(&o, &[8, 4, 2], 0, 0, 8, 16), CL_INVALID_VALUE); // host_slice_pitch < region[1]*row
    check!(read(&o, &[8, 4, 2], 8, 36, 0, 0), CL_INVALID_VALUE); // slice not a multiple of row
    check!(read(&o, &[8, 4, 2], 0, 0, 8, 36), CL_INVALID_VALUE);
    check!(read(&o, &[32, 32, 2], 0, 0, 0, 0), CL_INVALID_VALUE); // out of bounds (2048 > 1024)
    check!(read(&[1, 0, 0], &[32, 32, 1], 0, 0, 0, 0), CL_INVALID_VALUE); // out of bounds by one byte
    check!(read(&[0, 0, 1], &[16, 16, 4], 16, 256, 0, 0), CL_INVALID_VALUE);
    check!(
        clEnqueueReadBufferRect(
            q.0,
            b.0,
            CL_TRUE,
            ptr::null(),
            o.as_ptr(),
            [1usize, 1, 1].as_ptr(),
            0,
            0,
            0,
            0,
            hp,
            0,
            ptr::null(),
            ptr::null_mut()
        ),
        CL_INVALID_VALUE
    );
    check!(
        clEnqueueReadBufferRect(
            q.0,
            b.0,
            CL_TRUE,
            o.as_ptr(),
            o.as_ptr(),
            [1usize, 1, 1].as_ptr(),
            0,
            0,
            0,
            0,
            ptr::null_mut(),
            0,
            ptr::null(),
            ptr::null_mut()
        ),
        CL_INVALID_VALUE
    );
    check!(
        clEnqueueWriteBufferRect(
            q.0,
            b.0,
            CL_TRUE,
            o.as_ptr(),
            o.as_ptr(),
            [2048usize, 1, 1].as_ptr(),
            0,
            0,
            0,
            0,
            hp,
            0,
            ptr::null(),
            ptr::null_mut()
        ),
        CL_INVALID_VALUE
    );
    let b2 = ctx.buffer(1024);
    check!(
        clEnqueueCopyBufferRect(
            q.0,
            b.0,
            b2.0,
            o.as_ptr(),
            o.as_ptr(),
            [64usize, 17, 1].as_ptr(),
            64,
            0,
            0,
            0,
            0,
            ptr::null(),
            ptr::null_mut()
        ),
        CL_INVALID_VALUE
    );
    check!(
        clEnqueueCopyBufferRect(
            q.0,
            b.0,
            b2.0,
            o.as_ptr(),
            o.as_ptr(),
            [8usize, 2, 1].as_ptr(),
            4,
            0,
            0,
            0,
            0,
            ptr::null(),
            ptr::null_mut()
        ),
        CL_INVALID_VALUE
    );
    q.finish();
}

#[test]
fn fill_every_pattern_size() {
    let ctx = Context::new();
    let q = ctx.queue();
    let n = 128 * 12;
    let init = pattern(n, 15);
    let b = ctx.buffer_from(&init);
    let mut expect = init.clone();
    for ps in (0..=7).map(|s| 1usize << s) {
        let pat = pattern(ps, 500 + ps as u64);
        let (off, len) = (ps * 2, ps * 5);
        let e = q.fill(&b, &pat, off, len, &[]);
        e.wait();
        assert_eq!(e.command_type(), CL_COMMAND_FILL_BUFFER);
        for i in 0..len {
            expect[off + i] = pat[i % ps];
        }
        assert!(q.read(&b, 0, n) == expect, "fill with pattern size {ps}");
    }
    // Fill the whole buffer.
    q.fill(&b, &[0xA5], 0, n, &[]).wait();
    assert!(q.read(&b, 0, n).iter().all(|&x| x == 0xA5));
    expect = vec![0xA5; n];
    // Errors.
    let pat = [0u8; 256];
    let pp = pat.as_ptr() as *const c_void;
    let fill = |p: *const c_void, ps: usize, off: usize, len: usize| unsafe {
        clEnqueueFillBuffer(q.0, b.0, p, ps, off, len, 0, ptr::null(), ptr::null_mut())
    };
    for ps in [0usize, 3, 5, 6, 7, 12, 24, 48, 100, 256] {
        check!(fill(pp, ps, 0, ps.max(1) * 2), CL_INVALID_VALUE);
    }
    check!(fill(ptr::null(), 4, 0, 16), CL_INVALID_VALUE);
    check!(fill(pp, 4, 2, 16), CL_INVALID_VALUE); // offset not a multiple
    check!(fill(pp, 4, 0, 18), CL_INVALID_VALUE); // size not a multiple
    check!(fill(pp, 4, 0, n + 4), CL_INVALID_VALUE); // out of bounds
    check!(fill(pp, 4, n, 4), CL_INVALID_VALUE);
    check!(
        clEnqueueFillBuffer(q.0, ptr::null_mut(), pp, 4, 0, 4, 0, ptr::null(), ptr::null_mut()),
        CL_INVALID_MEM_OBJECT
    );
    assert!(q.read(&b, 0, n) == expect);
}

#[test]
fn map_unmap_blocking_and_not() {
    let ctx = Context::new();
    let q = ctx.queue();
    let n = 4096;
    let data = pattern(n, 16);
    let b = ctx.buffer_from(&data);
    // Blocking map for reading.
    let mut err = 0;
    let p = unsafe {
        clEnqueueMapBuffer(
            q.0,
            b.0,
            CL_TRUE,
            CL_MAP_READ,
            100,
            1000,
            0,
            ptr::null(),
            ptr::null_mut(),
            &mut err,
        )
    };
    check_err!(err, CL_SUCCESS, "blocking map");
    let got = unsafe { std::slice::from_raw_parts(p as *const u8, 1000) };
    assert_eq!(got, &data[100..1100]);
    assert_eq!(mem_info::<cl_uint>(b.0, CL_MEM_MAP_COUNT), 1);
    let mut ue = ptr::null_mut();
    ok!(clEnqueueUnmapMemObject(q.0, b.0, p, 0, ptr::null(), &mut ue));
    let ue = Event(ue);
    ue.wait();
    assert_eq!(ue.command_type(), CL_COMMAND_UNMAP_MEM_OBJECT);
    assert_eq!(mem_info::<cl_uint>(b.0, CL_MEM_MAP_COUNT), 0);
    // Non-blocking map for writing, gated by a user event.
    let gate = ctx.user_event();
    let mut me = ptr::null_mut();
    let p = unsafe { clEnqueueMapBuffer(q.0, b.0, CL_FALSE, CL_MAP_WRITE, 0, n, 1, &gate.0, &mut me, &mut err) };
    check_err!(err, CL_SUCCESS, "non-blocking map");
    let me = Event(me);
    assert_eq!(me.command_type(), CL_COMMAND_MAP_BUFFER);
    gate.set_status(CL_COMPLETE);
    me.wait();
    let w = pattern(n, 17);
    unsafe { std::ptr::copy_nonoverlapping(w.as_ptr(), p as *mut u8, n) };
    ok!(clEnqueueUnmapMemObject(q.0, b.0, p, 0, ptr::null(), ptr::null_mut()));
    assert_eq!(
        q.read(&b, 0, n),
        w,
        "data written through a map is in the buffer after unmap"
    );
    // WRITE_INVALIDATE_REGION.
    let p = unsafe {
        clEnqueueMapBuffer(
            q.0,
            b.0,
            CL_TRUE,
            CL_MAP_WRITE_INVALIDATE_REGION,
            0,
            16,
            0,
            ptr::null(),
            ptr::null_mut(),
            &mut err,
        )
    };
    check_err!(err, CL_SUCCESS, "WRITE_INVALIDATE_REGION map");
    unsafe { std::ptr::write_bytes(p as *mut u8, 0x5A, 16) };
    ok!(clEnqueueUnmapMemObject(q.0, b.0, p, 0, ptr::null(), ptr::null_mut()));
    let got = q.read(&b, 0, n);
    assert!(got[..16].iter().all(|&x| x == 0x5A));
    assert_eq!(&got[16..], &w[16..]);
    // Two maps of one buffer for reading: the count counts both.
    let p1 = unsafe {
        clEnqueueMapBuffer(
            q.0,
            b.0,
            CL_TRUE,
            CL_MAP_READ,
            0,
            8,
            0,
            ptr::null(),
            ptr::null_mut(),
            &mut err,
        )
    };
    let p2 = unsafe {
        clEnqueueMapBuffer(
            q.0,
            b.0,
            CL_TRUE,
            CL_MAP_READ,
            8,
            8,
            0,
            ptr::null(),
            ptr::null_mut(),
            &mut err,
        )
    };
    assert_eq!(mem_info::<cl_uint>(b.0, CL_MEM_MAP_COUNT), 2);
    ok!(clEnqueueUnmapMemObject(q.0, b.0, p2, 0, ptr::null(), ptr::null_mut()));
    ok!(clEnqueueUnmapMemObject(q.0, b.0, p1, 0, ptr::null(), ptr::null_mut()));
    q.finish();
    assert_eq!(mem_info::<cl_uint>(b.0, CL_MEM_MAP_COUNT), 0);
}

#[test]
fn map_errors() {
    let ctx = Context::new();
    let q = ctx.queue();
    let b = ctx.buffer(256);
    let mut err = 0;
    let map = |flags: cl_map_flags, off: usize, size: usize, err: &mut cl_int| unsafe {
        clEnqueueMapBuffer(
            q.0,
            b.0,
            CL_TRUE,
            flags,
            off,
            size,
            0,
            ptr::null(),
            ptr::null_mut(),
            err,
        )
    };
    for (flags, off, size) in [
        (CL_MAP_READ, 0, 0),
        (CL_MAP_READ, 0, 257),
        (CL_MAP_READ, 256, 1),
        (CL_MAP_READ, usize::MAX, 2),
        // WRITE_INVALIDATE_REGION "is mutually exclusive with CL_MAP_READ or CL_MAP_WRITE".
        // (PoCL 3.1 deviates: it accepts READ | WRITE_INVALIDATE_REGION.)
        (CL_MAP_READ | CL_MAP_WRITE_INVALIDATE_REGION, 0, 16),
        (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION, 0, 16),
        (1 << 10, 0, 16),
    ] {
        let p = map(flags, off, size, &mut err);
        assert!(
            p.is_null(),
            "map flags {flags:#x} off {off} size {size} returned a pointer ({})",
            err_name(err)
        );
        check_err!(
            err,
            CL_INVALID_VALUE,
            format!("map flags {flags:#x} off {off} size {size}")
        );
    }
    // Unmap of a pointer that is not mapped.
    let mut host = [0u8; 16];
    check!(
        clEnqueueUnmapMemObject(
            q.0,
            b.0,
            host.as_mut_ptr() as *mut c_void,
            0,
            ptr::null(),
            ptr::null_mut()
        ),
        CL_INVALID_VALUE
    );
    // A pointer mapped from another buffer.
    let b2 = ctx.buffer(256);
    let p = unsafe {
        clEnqueueMapBuffer(
            q.0,
            b2.0,
            CL_TRUE,
            CL_MAP_READ,
            0,
            16,
            0,
            ptr::null(),
            ptr::null_mut(),
            &mut err,
        )
    };
    check_err!(err, CL_SUCCESS, "map b2");
    check!(
        clEnqueueUnmapMemObject(q.0, b.0, p, 0, ptr::null(), ptr::null_mut()),
        CL_INVALID_VALUE
    );
    ok!(clEnqueueUnmapMemObject(q.0, b2.0, p, 0, ptr::null(), ptr::null_mut()));
    // Unmapping it twice.
    q.finish();
    check!(
        clEnqueueUnmapMemObject(q.0, b2.0, p, 0, ptr::null(), ptr::null_mut()),
        CL_INVALID_VALUE
    );
    // Overlapping regions mapped for writing.
    let w = map(CL_MAP_WRITE, 0, 64, &mut err);
    check_err!(err, CL_SUCCESS, "map for writing");
    let w2 = map(CL_MAP_WRITE, 32, 64, &mut err);
    assert!(w2.is_null());
    check_err!(err, CL_INVALID_OPERATION, "overlapping write maps");
    ok!(clEnqueueUnmapMemObject(q.0, b.0, w, 0, ptr::null(), ptr::null_mut()));
    q.finish();
    assert_eq!(mem_info::<cl_uint>(b.0, CL_MEM_MAP_COUNT), 0);
}

#[test]
fn use_host_ptr_maps_to_host_pointer() {
    let ctx = Context::new();
    let q = ctx.queue();
    let al = base_align();
    let n = al * 4;
    // Host memory aligned like the device wants, so the implementation can use it directly.
    let layout = std::alloc::Layout::from_size_align(n, al.max(64)).unwrap();
    let host = unsafe { std::alloc::alloc(layout) };
    let init = pattern(n, 18);
    unsafe { std::ptr::copy_nonoverlapping(init.as_ptr(), host, n) };
    {
        let b = ctx.buffer_with(CL_MEM_USE_HOST_PTR | CL_MEM_READ_WRITE, n, host as *mut c_void);
        let mut err = 0;
        let p = unsafe {
            clEnqueueMapBuffer(
                q.0,
                b.0,
                CL_TRUE,
                CL_MAP_READ | CL_MAP_WRITE,
                8,
                64,
                0,
                ptr::null(),
                ptr::null_mut(),
                &mut err,
            )
        };
        check_err!(err, CL_SUCCESS, "map USE_HOST_PTR buffer");
        assert_eq!(
            p as usize,
            host as usize + 8,
            "USE_HOST_PTR map must return host_ptr + offset"
        );
        unsafe { std::ptr::write_bytes(p as *mut u8, 0x11, 64) };
        ok!(clEnqueueUnmapMemObject(q.0, b.0, p, 0, ptr::null(), ptr::null_mut()));
        let mut expect = init.clone();
        expect[8..72].fill(0x11);
        assert_eq!(q.read(&b, 0, n), expect);
        // Writes through the API are visible in host memory after a map (synchronisation point).
        q.write(&b, 100, &[0x22; 10]);
        let p = unsafe {
            clEnqueueMapBuffer(
                q.0,
                b.0,
                CL_TRUE,
                CL_MAP_READ,
                0,
                n,
                0,
                ptr::null(),
                ptr::null_mut(),
                &mut err,
            )
        };
        assert_eq!(p as usize, host as usize);
        let got = unsafe { std::slice::from_raw_parts(host, n) };
        assert!(got[100..110].iter().all(|&x| x == 0x22));
        ok!(clEnqueueUnmapMemObject(q.0, b.0, p, 0, ptr::null(), ptr::null_mut()));
        // Sub-buffer maps to host_ptr + origin + offset.
        let s = b.sub(0, al, al);
        let p = unsafe {
            clEnqueueMapBuffer(
                q.0,
                s.0,
                CL_TRUE,
                CL_MAP_READ,
                4,
                4,
                0,
                ptr::null(),
                ptr::null_mut(),
                &mut err,
            )
        };
        check_err!(err, CL_SUCCESS, "map sub-buffer of USE_HOST_PTR buffer");
        assert_eq!(p as usize, host as usize + al + 4);
        ok!(clEnqueueUnmapMemObject(q.0, s.0, p, 0, ptr::null(), ptr::null_mut()));
        q.finish();
    }
    unsafe { std::alloc::dealloc(host, layout) };
}

#[test]
fn host_access_flags_forbid_host_commands() {
    let ctx = Context::new();
    let q = ctx.queue();
    let n = 64;
    let mut host = vec![0u8; n];
    let hp = host.as_mut_ptr() as *mut c_void;
    let o = [0usize; 3];
    let r = [n, 1, 1];
    let mut err = 0;
    for flags in [CL_MEM_HOST_NO_ACCESS, CL_MEM_HOST_READ_ONLY, CL_MEM_HOST_WRITE_ONLY] {
        let b = ctx.buffer_with(flags, n, ptr::null_mut());
        let can_read = flags == CL_MEM_HOST_READ_ONLY;
        let can_write = flags == CL_MEM_HOST_WRITE_ONLY;
        let want = |ok: bool| if ok { CL_SUCCESS } else { CL_INVALID_OPERATION };
        check!(
            clEnqueueReadBuffer(q.0, b.0, CL_TRUE, 0, n, hp, 0, ptr::null(), ptr::null_mut()),
            want(can_read)
        );
        check!(
            clEnqueueReadBufferRect(
                q.0,
                b.0,
                CL_TRUE,
                o.as_ptr(),
                o.as_ptr(),
                r.as_ptr(),
                0,
                0,
                0,
                0,
                hp,
                0,
                ptr::null(),
                ptr::null_mut()
            ),
            want(can_read)
        );
        check!(
            clEnqueueWriteBuffer(q.0, b.0, CL_TRUE, 0, n, hp, 0, ptr::null(), ptr::null_mut()),
            want(can_write)
        );
        check!(
            clEnqueueWriteBufferRect(
                q.0,
                b.0,
                CL_TRUE,
                o.as_ptr(),
                o.as_ptr(),
                r.as_ptr(),
                0,
                0,
                0,
                0,
                hp,
                0,
                ptr::null(),
                ptr::null_mut()
            ),
            want(can_write)
        );
        for (mf, ok_) in [
            (CL_MAP_READ, can_read),
            (CL_MAP_WRITE, can_write),
            (CL_MAP_WRITE_INVALIDATE_REGION, can_write),
        ] {
            let p =
                unsafe { clEnqueueMapBuffer(q.0, b.0, CL_TRUE, mf, 0, n, 0, ptr::null(), ptr::null_mut(), &mut err) };
            check_err!(err, want(ok_), format!("map {mf:#x} of a buffer with {flags:#x}"));
            if ok_ {
                ok!(clEnqueueUnmapMemObject(q.0, b.0, p, 0, ptr::null(), ptr::null_mut()));
            } else {
                assert!(p.is_null());
            }
        }
        // Device-side commands stay allowed.
        let other = ctx.buffer(n);
        q.copy(&b, &other, 0, 0, n, &[]).wait();
        q.copy(&other, &b, 0, 0, n, &[]).wait();
        q.fill(&b, &[1, 2, 3, 4], 0, n, &[]).wait();
        // Sub-buffers inherit the restriction.
        let s = b.sub(0, 0, n);
        if !can_read {
            check!(
                clEnqueueReadBuffer(q.0, s.0, CL_TRUE, 0, 4, hp, 0, ptr::null(), ptr::null_mut()),
                CL_INVALID_OPERATION
            );
        }
        if !can_write {
            check!(
                clEnqueueWriteBuffer(q.0, s.0, CL_TRUE, 0, 4, hp, 0, ptr::null(), ptr::null_mut()),
                CL_INVALID_OPERATION
            );
        }
    }
    q.finish();
}

#[test]
fn migrate_mem_objects() {
    let ctx = Context::new();
    let q = ctx.queue();
    let data = pattern(512, 19);
    let a = ctx.buffer_from(&data);
    let b = ctx.buffer_from(&data);
    let list = [a.0, b.0];
    for flags in [0, CL_MIGRATE_MEM_OBJECT_HOST, CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED] {
        let mut e = ptr::null_mut();
        ok!(clEnqueueMigrateMemObjects(
            q.0,
            2,
            list.as_ptr(),
            flags,
            0,
            ptr::null(),
            &mut e
        ));
        let e = Event(e);
        e.wait();
        assert_eq!(e.command_type(), CL_COMMAND_MIGRATE_MEM_OBJECTS);
    }
    // Content kept by a plain migration.
    ok!(clEnqueueMigrateMemObjects(
        q.0,
        1,
        list.as_ptr(),
        CL_MIGRATE_MEM_OBJECT_HOST,
        0,
        ptr::null(),
        ptr::null_mut()
    ));
    q.write(&a, 0, &data);
    assert_eq!(q.read(&a, 0, 512), data);
    check!(
        clEnqueueMigrateMemObjects(q.0, 0, list.as_ptr(), 0, 0, ptr::null(), ptr::null_mut()),
        CL_INVALID_VALUE
    );
    check!(
        clEnqueueMigrateMemObjects(q.0, 1, ptr::null(), 0, 0, ptr::null(), ptr::null_mut()),
        CL_INVALID_VALUE
    );
    check!(
        clEnqueueMigrateMemObjects(q.0, 1, list.as_ptr(), 1 << 8, 0, ptr::null(), ptr::null_mut()),
        CL_INVALID_VALUE
    );
    let bad = [a.0, ptr::null_mut()];
    check!(
        clEnqueueMigrateMemObjects(q.0, 2, bad.as_ptr(), 0, 0, ptr::null(), ptr::null_mut()),
        CL_INVALID_MEM_OBJECT
    );
    let other = Context::new();
    let ob = other.buffer(16);
    check!(
        clEnqueueMigrateMemObjects(q.0, 1, &ob.0, 0, 0, ptr::null(), ptr::null_mut()),
        CL_INVALID_CONTEXT
    );
    q.finish();
}

static MEM_ORDER: Mutex<Vec<usize>> = Mutex::new(Vec::new());

unsafe extern "C" fn mem_destructor(m: cl_mem, user: *mut c_void) {
    assert!(!m.is_null());
    MEM_ORDER.lock().unwrap().push(user as usize);
}

#[test]
fn mem_destructor_callbacks_lifo_after_release() {
    let ctx = Context::new();
    let tag = 0x2000usize;
    let mine = || -> Vec<usize> {
        MEM_ORDER
            .lock()
            .unwrap()
            .iter()
            .copied()
            .filter(|&x| x > tag && x <= tag + 10)
            .collect()
    };
    let b = ctx.buffer(64);
    for i in 1..=3 {
        ok!(clSetMemObjectDestructorCallback(
            b.0,
            Some(mem_destructor),
            (tag + i) as *mut c_void
        ));
    }
    check!(
        clSetMemObjectDestructorCallback(b.0, None, ptr::null_mut()),
        CL_INVALID_VALUE
    );
    check!(
        clSetMemObjectDestructorCallback(ptr::null_mut(), Some(mem_destructor), ptr::null_mut()),
        CL_INVALID_MEM_OBJECT
    );
    // A sub-buffer keeps the parent alive.
    let s = b.sub(0, 0, 32);
    ok!(clSetMemObjectDestructorCallback(
        s.0,
        Some(mem_destructor),
        (tag + 4) as *mut c_void
    ));
    drop(b);
    assert!(mine().is_empty(), "parent destructor ran while a sub-buffer exists");
    drop(s);
    assert!(
        wait_until(EVENTUALLY, || mine().len() == 4),
        "destructor callbacks did not run: {:?}",
        mine()
    );
    let got = mine();
    assert_eq!(got[0], tag + 4, "the sub-buffer is destroyed before its parent");
    assert_eq!(&got[1..], &[tag + 3, tag + 2, tag + 1], "callbacks run LIFO");
    // Pending commands keep a buffer alive: release while a gated write is queued.
    let q = ctx.queue();
    let gate = ctx.user_event();
    let b = ctx.buffer(64);
    ok!(clSetMemObjectDestructorCallback(
        b.0,
        Some(mem_destructor),
        (tag + 5) as *mut c_void
    ));
    let data = pattern(64, 20);
    let w = q.write_async(&b, 0, &data, &[gate.0]);
    drop(b);
    q.flush();
    std::thread::sleep(std::time::Duration::from_millis(50));
    assert!(
        !mine().contains(&(tag + 5)),
        "buffer destroyed while a command still uses it"
    );
    gate.set_status(CL_COMPLETE);
    w.wait();
    q.finish();
    assert!(
        wait_until(EVENTUALLY, || mine().contains(&(tag + 5))),
        "destructor did not run after the command"
    );
}
