//! Wrong-type and NULL handles: each entry point answers with its own CL_INVALID_* code, nothing
//! crashes, and a failed call leaves the objects usable. Each test runs in a child process
//! (`isolate`) so that an implementation crashing on one bad handle fails only that test.

use cts::*;
use std::ptr;

struct Objs {
    ctx: Context,
    q: Queue,
    buf: Mem,
    ev: Event,
}

fn objs() -> Objs {
    let ctx = Context::new();
    let q = ctx.queue();
    let buf = ctx.buffer_from(&pattern(64, 50));
    let ev = ctx.user_event();
    Objs { ctx, q, buf, ev }
}

/// Every object still works after the failed calls.
fn still_usable(o: &Objs) {
    assert_eq!(o.ctx.reference_count(), 1);
    assert_eq!(o.q.read(&o.buf, 0, 64), pattern(64, 50));
    assert_eq!(o.ev.status(), CL_SUBMITTED);
    o.ev.set_status(CL_COMPLETE);
    o.q.finish();
    assert!(!device_string(CL_DEVICE_NAME).is_empty());
    assert!(!platform_string(platform(), CL_PLATFORM_NAME).is_empty());
}

#[test]
fn wrong_handle_as_context() {
    if !isolate("wrong_handle_as_context") {
        return;
    }
    let o = objs();
    let mut size = 0;
    let mut err = 0;
    for bad in [
        o.buf.0 as cl_context,
        o.q.0 as cl_context,
        o.ev.0 as cl_context,
        device() as cl_context,
    ] {
        check!(
            clGetContextInfo(bad, CL_CONTEXT_NUM_DEVICES, 0, ptr::null_mut(), &mut size),
            CL_INVALID_CONTEXT
        );
        check!(clRetainContext(bad), CL_INVALID_CONTEXT);
        check!(clReleaseContext(bad), CL_INVALID_CONTEXT);
        let m = unsafe { clCreateBuffer(bad, CL_MEM_READ_WRITE, 16, ptr::null_mut(), &mut err) };
        assert!(m.is_null());
        check_err!(err, CL_INVALID_CONTEXT, "clCreateBuffer");
        let q = unsafe { clCreateCommandQueueWithProperties(bad, device(), ptr::null(), &mut err) };
        assert!(q.is_null());
        check_err!(err, CL_INVALID_CONTEXT, "clCreateCommandQueueWithProperties");
        let e = unsafe { clCreateUserEvent(bad, &mut err) };
        assert!(e.is_null());
        check_err!(err, CL_INVALID_CONTEXT, "clCreateUserEvent");
        check!(
            clSetContextDestructorCallback(bad, Some(noop_ctx_cb), ptr::null_mut()),
            CL_INVALID_CONTEXT
        );
    }
    still_usable(&o);
}

unsafe extern "C" fn noop_ctx_cb(_c: cl_context, _u: *mut c_void) {}
unsafe extern "C" fn noop_mem_cb(_m: cl_mem, _u: *mut c_void) {}
unsafe extern "C" fn noop_ev_cb(_e: cl_event, _s: cl_int, _u: *mut c_void) {}

#[test]
fn wrong_handle_as_queue() {
    if !isolate("wrong_handle_as_queue") {
        return;
    }
    let o = objs();
    let mut size = 0;
    let mut host = [0u8; 16];
    let hp = host.as_mut_ptr() as *mut c_void;
    for bad in [
        o.buf.0 as cl_command_queue,
        o.ctx.0 as cl_command_queue,
        o.ev.0 as cl_command_queue,
    ] {
        check!(
            clGetCommandQueueInfo(bad, CL_QUEUE_CONTEXT, 0, ptr::null_mut(), &mut size),
            CL_INVALID_COMMAND_QUEUE
        );
        check!(clRetainCommandQueue(bad), CL_INVALID_COMMAND_QUEUE);
        check!(clReleaseCommandQueue(bad), CL_INVALID_COMMAND_QUEUE);
        check!(clFlush(bad), CL_INVALID_COMMAND_QUEUE);
        check!(clFinish(bad), CL_INVALID_COMMAND_QUEUE);
        check!(
            clEnqueueReadBuffer(bad, o.buf.0, CL_TRUE, 0, 16, hp, 0, ptr::null(), ptr::null_mut()),
            CL_INVALID_COMMAND_QUEUE
        );
        check!(
            clEnqueueWriteBuffer(bad, o.buf.0, CL_TRUE, 0, 16, hp, 0, ptr::null(), ptr::null_mut()),
            CL_INVALID_COMMAND_QUEUE
        );
        check!(
            clEnqueueCopyBuffer(bad, o.buf.0, o.buf.0, 0, 32, 16, 0, ptr::null(), ptr::null_mut()),
            CL_INVALID_COMMAND_QUEUE
        );
        check!(
            clEnqueueFillBuffer(bad, o.buf.0, hp, 1, 0, 16, 0, ptr::null(), ptr::null_mut()),
            CL_INVALID_COMMAND_QUEUE
        );
        check!(
            clEnqueueMarkerWithWaitList(bad, 0, ptr::null(), ptr::null_mut()),
            CL_INVALID_COMMAND_QUEUE
        );
        check!(
            clEnqueueBarrierWithWaitList(bad, 0, ptr::null(), ptr::null_mut()),
            CL_INVALID_COMMAND_QUEUE
        );
        let mut err = 0;
        let p = unsafe {
            clEnqueueMapBuffer(
                bad,
                o.buf.0,
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
        assert!(p.is_null());
        check_err!(err, CL_INVALID_COMMAND_QUEUE, "clEnqueueMapBuffer");
        check!(
            clEnqueueUnmapMemObject(bad, o.buf.0, hp, 0, ptr::null(), ptr::null_mut()),
            CL_INVALID_COMMAND_QUEUE
        );
        check!(
            clEnqueueMigrateMemObjects(bad, 1, &o.buf.0, 0, 0, ptr::null(), ptr::null_mut()),
            CL_INVALID_COMMAND_QUEUE
        );
    }
    still_usable(&o);
}

#[test]
fn wrong_handle_as_mem() {
    if !isolate("wrong_handle_as_mem") {
        return;
    }
    let o = objs();
    let mut size = 0;
    let mut host = [0u8; 16];
    let hp = host.as_mut_ptr() as *mut c_void;
    for bad in [o.ctx.0 as cl_mem, o.q.0 as cl_mem, o.ev.0 as cl_mem] {
        check!(
            clGetMemObjectInfo(bad, CL_MEM_SIZE, 0, ptr::null_mut(), &mut size),
            CL_INVALID_MEM_OBJECT
        );
        check!(clRetainMemObject(bad), CL_INVALID_MEM_OBJECT);
        check!(clReleaseMemObject(bad), CL_INVALID_MEM_OBJECT);
        check!(
            clSetMemObjectDestructorCallback(bad, Some(noop_mem_cb), ptr::null_mut()),
            CL_INVALID_MEM_OBJECT
        );
        check!(
            clEnqueueReadBuffer(o.q.0, bad, CL_TRUE, 0, 16, hp, 0, ptr::null(), ptr::null_mut()),
            CL_INVALID_MEM_OBJECT
        );
        check!(
            clEnqueueCopyBuffer(o.q.0, o.buf.0, bad, 0, 0, 16, 0, ptr::null(), ptr::null_mut()),
            CL_INVALID_MEM_OBJECT
        );
        check!(
            clEnqueueCopyBuffer(o.q.0, bad, o.buf.0, 0, 0, 16, 0, ptr::null(), ptr::null_mut()),
            CL_INVALID_MEM_OBJECT
        );
        check!(
            clEnqueueFillBuffer(o.q.0, bad, hp, 1, 0, 16, 0, ptr::null(), ptr::null_mut()),
            CL_INVALID_MEM_OBJECT
        );
        check!(
            clEnqueueUnmapMemObject(o.q.0, bad, hp, 0, ptr::null(), ptr::null_mut()),
            CL_INVALID_MEM_OBJECT
        );
        let region = cl_buffer_region { origin: 0, size: 16 };
        let mut err = 0;
        let m = unsafe {
            clCreateSubBuffer(
                bad,
                0,
                CL_BUFFER_CREATE_TYPE_REGION,
                &region as *const _ as *const c_void,
                &mut err,
            )
        };
        assert!(m.is_null());
        check_err!(err, CL_INVALID_MEM_OBJECT, "clCreateSubBuffer");
    }
    still_usable(&o);
}

#[test]
fn wrong_handle_as_event() {
    if !isolate("wrong_handle_as_event") {
        return;
    }
    let o = objs();
    let mut size = 0;
    let mut v: cl_ulong = 0;
    for bad in [o.ctx.0 as cl_event, o.q.0 as cl_event, o.buf.0 as cl_event] {
        check!(
            clGetEventInfo(bad, CL_EVENT_CONTEXT, 0, ptr::null_mut(), &mut size),
            CL_INVALID_EVENT
        );
        check!(clRetainEvent(bad), CL_INVALID_EVENT);
        check!(clReleaseEvent(bad), CL_INVALID_EVENT);
        check!(clSetUserEventStatus(bad, CL_COMPLETE), CL_INVALID_EVENT);
        check!(
            clSetEventCallback(bad, CL_COMPLETE, Some(noop_ev_cb), ptr::null_mut()),
            CL_INVALID_EVENT
        );
        check!(
            clGetEventProfilingInfo(
                bad,
                CL_PROFILING_COMMAND_START,
                8,
                &mut v as *mut _ as *mut c_void,
                ptr::null_mut()
            ),
            CL_INVALID_EVENT
        );
        check!(clWaitForEvents(1, &bad), CL_INVALID_EVENT);
        // In a wait list.
        check!(
            clEnqueueMarkerWithWaitList(o.q.0, 1, &bad, ptr::null_mut()),
            CL_INVALID_EVENT_WAIT_LIST
        );
    }
    still_usable(&o);
}

#[test]
fn wrong_handle_as_device_or_platform() {
    if !isolate("wrong_handle_as_device_or_platform") {
        return;
    }
    let o = objs();
    let mut size = 0;
    let mut t: cl_ulong = 0;
    let mut n: cl_uint = 0;
    let mut err = 0;
    for bad in [
        o.ctx.0 as cl_device_id,
        o.q.0 as cl_device_id,
        o.buf.0 as cl_device_id,
        platform() as cl_device_id,
    ] {
        check!(
            clGetDeviceInfo(bad, CL_DEVICE_NAME, 0, ptr::null_mut(), &mut size),
            CL_INVALID_DEVICE
        );
        check!(clRetainDevice(bad), CL_INVALID_DEVICE);
        check!(clReleaseDevice(bad), CL_INVALID_DEVICE);
        check!(clGetHostTimer(bad, &mut t), CL_INVALID_DEVICE);
        check!(clGetDeviceAndHostTimer(bad, &mut t, &mut t.clone()), CL_INVALID_DEVICE);
        let props = [CL_DEVICE_PARTITION_EQUALLY, 1, 0];
        check!(
            clCreateSubDevices(bad, props.as_ptr(), 0, ptr::null_mut(), &mut n),
            CL_INVALID_DEVICE
        );
        let q = unsafe { clCreateCommandQueueWithProperties(o.ctx.0, bad, ptr::null(), &mut err) };
        assert!(q.is_null());
        check_err!(err, CL_INVALID_DEVICE, "clCreateCommandQueueWithProperties");
        let pp = [
            CL_CONTEXT_PLATFORM as cl_context_properties,
            platform() as cl_context_properties,
            0,
        ];
        let c = unsafe { clCreateContext(pp.as_ptr(), 1, &bad, None, ptr::null_mut(), &mut err) };
        assert!(c.is_null());
        check_err!(err, CL_INVALID_DEVICE, "clCreateContext");
    }
    for bad in [
        o.ctx.0 as cl_platform_id,
        o.buf.0 as cl_platform_id,
        device() as cl_platform_id,
    ] {
        check!(
            clGetPlatformInfo(bad, CL_PLATFORM_NAME, 0, ptr::null_mut(), &mut size),
            CL_INVALID_PLATFORM
        );
        let mut d = ptr::null_mut();
        check!(
            clGetDeviceIDs(bad, CL_DEVICE_TYPE_ALL, 1, &mut d, &mut n),
            CL_INVALID_PLATFORM
        );
    }
    still_usable(&o);
}

/// Entry points of later issues (programs, kernels, samplers, images, SVM) exist and validate
/// their handles instead of crashing.
#[test]
fn later_entry_points_validate_handles() {
    if !isolate("later_entry_points_validate_handles") {
        return;
    }
    let o = objs();
    let mut err = 0;
    let mut size = 0;
    let src = c"kernel void k() {}";
    let sp = src.as_ptr();
    let p = unsafe { clCreateProgramWithSource(o.buf.0 as cl_context, 1, &sp, ptr::null(), &mut err) };
    assert!(p.is_null());
    check_err!(err, CL_INVALID_CONTEXT, "clCreateProgramWithSource");
    check!(
        clBuildProgram(
            o.buf.0 as cl_program,
            0,
            ptr::null(),
            ptr::null(),
            None,
            ptr::null_mut()
        ),
        CL_INVALID_PROGRAM
    );
    check!(
        clGetProgramInfo(
            o.buf.0 as cl_program,
            CL_PROGRAM_NUM_DEVICES,
            0,
            ptr::null_mut(),
            &mut size
        ),
        CL_INVALID_PROGRAM
    );
    check!(clRetainProgram(o.ctx.0 as cl_program), CL_INVALID_PROGRAM);
    let k = unsafe { clCreateKernel(o.buf.0 as cl_program, c"k".as_ptr(), &mut err) };
    assert!(k.is_null());
    check_err!(err, CL_INVALID_PROGRAM, "clCreateKernel");
    check!(clRetainKernel(o.buf.0 as cl_kernel), CL_INVALID_KERNEL);
    check!(
        clSetKernelArg(o.buf.0 as cl_kernel, 0, 4, ptr::null()),
        CL_INVALID_KERNEL
    );
    let gws = [1usize];
    check!(
        clEnqueueNDRangeKernel(
            o.q.0,
            o.buf.0 as cl_kernel,
            1,
            ptr::null(),
            gws.as_ptr(),
            ptr::null(),
            0,
            ptr::null(),
            ptr::null_mut()
        ),
        CL_INVALID_KERNEL
    );
    check!(clRetainSampler(o.buf.0 as cl_sampler), CL_INVALID_SAMPLER);
    check!(
        clGetSamplerInfo(o.buf.0 as cl_sampler, CL_SAMPLER_CONTEXT, 0, ptr::null_mut(), &mut size),
        CL_INVALID_SAMPLER
    );
    let mut n: cl_uint = 0;
    check!(
        clGetSupportedImageFormats(
            o.buf.0 as cl_context,
            CL_MEM_READ_ONLY,
            CL_MEM_OBJECT_IMAGE2D,
            0,
            ptr::null_mut(),
            &mut n
        ),
        CL_INVALID_CONTEXT
    );
    check!(
        clGetImageInfo(o.buf.0, CL_IMAGE_WIDTH, 0, ptr::null_mut(), &mut size),
        CL_INVALID_MEM_OBJECT
    );
    check!(
        clGetPipeInfo(o.buf.0, CL_PIPE_PACKET_SIZE, 0, ptr::null_mut(), &mut size),
        CL_INVALID_MEM_OBJECT
    );
    still_usable(&o);
}
