//! clCreateCommandQueue(WithProperties), queue info, flush/finish, markers and barriers.

use cts::*;
use std::ptr;

fn create_with(ctx: &Context, props: &[cl_queue_properties]) -> Result<Queue, cl_int> {
    let mut err = 0;
    let p = if props.is_empty() { ptr::null() } else { props.as_ptr() };
    let q = unsafe { clCreateCommandQueueWithProperties(ctx.0, device(), p, &mut err) };
    if err == CL_SUCCESS {
        assert!(!q.is_null());
        Ok(Queue(q))
    } else {
        assert!(q.is_null(), "failed create returned a handle");
        Err(err)
    }
}

#[allow(deprecated)]
fn create_legacy(ctx: &Context, props: cl_command_queue_properties) -> Result<Queue, cl_int> {
    let mut err = 0;
    let q = unsafe { clCreateCommandQueue(ctx.0, device(), props, &mut err) };
    if err == CL_SUCCESS {
        assert!(!q.is_null());
        Ok(Queue(q))
    } else {
        assert!(q.is_null(), "failed create returned a handle");
        Err(err)
    }
}

#[test]
fn create_queues_each_mode() {
    let ctx = Context::new();
    let supported: cl_command_queue_properties = device_info(CL_DEVICE_QUEUE_ON_HOST_PROPERTIES);
    for props in [
        0,
        CL_QUEUE_PROFILING_ENABLE,
        CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
        CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE,
    ] {
        if props & !supported != 0 {
            assert_eq!(ctx.try_queue_with(props).err(), Some(CL_INVALID_QUEUE_PROPERTIES));
            continue;
        }
        let q = ctx.queue_with(props);
        assert_eq!(
            queue_info::<cl_command_queue_properties>(q.0, CL_QUEUE_PROPERTIES),
            props
        );
        assert_eq!(queue_info::<cl_context>(q.0, CL_QUEUE_CONTEXT), ctx.0);
        assert_eq!(queue_info::<cl_device_id>(q.0, CL_QUEUE_DEVICE), device());
        assert_eq!(q.reference_count(), 1);
        let arr: Vec<cl_queue_properties> = bytes_to_vec(&queue_bytes(q.0, CL_QUEUE_PROPERTIES_ARRAY).unwrap());
        assert_eq!(
            arr,
            vec![CL_QUEUE_PROPERTIES as cl_queue_properties, props, 0],
            "PROPERTIES_ARRAY returns the list given"
        );
        let l = create_legacy(&ctx, props).unwrap();
        assert_eq!(
            queue_info::<cl_command_queue_properties>(l.0, CL_QUEUE_PROPERTIES),
            props
        );
        let mut size: size_t = 99;
        ok!(clGetCommandQueueInfo(
            l.0,
            CL_QUEUE_PROPERTIES_ARRAY,
            0,
            ptr::null_mut(),
            &mut size
        ));
        assert_eq!(size, 0, "PROPERTIES_ARRAY of a clCreateCommandQueue queue is empty");
    }
    // NULL properties: an in-order host queue, PROPERTIES_ARRAY empty.
    let q = create_with(&ctx, &[]).unwrap();
    assert_eq!(queue_info::<cl_command_queue_properties>(q.0, CL_QUEUE_PROPERTIES), 0);
    let mut size: size_t = 99;
    ok!(clGetCommandQueueInfo(
        q.0,
        CL_QUEUE_PROPERTIES_ARRAY,
        0,
        ptr::null_mut(),
        &mut size
    ));
    assert_eq!(size, 0);
    // Empty list (just the terminator).
    let q = create_with(&ctx, &[0]).unwrap();
    assert_eq!(queue_info::<cl_command_queue_properties>(q.0, CL_QUEUE_PROPERTIES), 0);
    // Out-of-order is advertised (issue 7 requires real out-of-order execution).
    assert_ne!(supported & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0);
}

#[test]
fn create_queue_property_errors() {
    let ctx = Context::new();
    // Unknown property name.
    assert_eq!(create_with(&ctx, &[0x0BAD, 0, 0]).err(), Some(CL_INVALID_VALUE));
    // Unknown bit in CL_QUEUE_PROPERTIES.
    assert_eq!(
        create_with(&ctx, &[CL_QUEUE_PROPERTIES as cl_queue_properties, 1 << 10, 0]).err(),
        Some(CL_INVALID_VALUE)
    );
    // ON_DEVICE without OUT_OF_ORDER: not valid ("If CL_QUEUE_ON_DEVICE is set,
    // CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE must also be set"). (PoCL 3.1 deviates: it creates
    // the queue.)
    assert_eq!(
        create_with(
            &ctx,
            &[CL_QUEUE_PROPERTIES as cl_queue_properties, CL_QUEUE_ON_DEVICE, 0]
        )
        .err(),
        Some(CL_INVALID_VALUE)
    );
    // ON_DEVICE_DEFAULT without ON_DEVICE: not valid.
    assert_eq!(
        create_with(
            &ctx,
            &[
                CL_QUEUE_PROPERTIES as cl_queue_properties,
                CL_QUEUE_ON_DEVICE_DEFAULT | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
                0
            ]
        )
        .err(),
        Some(CL_INVALID_VALUE)
    );
    // QUEUE_SIZE without ON_DEVICE: not valid.
    assert_eq!(
        create_with(&ctx, &[CL_QUEUE_SIZE as cl_queue_properties, 1024, 0]).err(),
        Some(CL_INVALID_VALUE)
    );
    // Valid device-queue properties that the device does not support.
    let dq: cl_command_queue_properties = device_info(CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES);
    if dq == 0 {
        for props in [
            CL_QUEUE_ON_DEVICE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
            CL_QUEUE_ON_DEVICE | CL_QUEUE_ON_DEVICE_DEFAULT | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
        ] {
            assert_eq!(
                create_with(&ctx, &[CL_QUEUE_PROPERTIES as cl_queue_properties, props, 0]).err(),
                Some(CL_INVALID_QUEUE_PROPERTIES),
                "device queue properties {props:#x}"
            );
        }
    }
    // The legacy entry point only knows OUT_OF_ORDER and PROFILING.
    assert_eq!(create_legacy(&ctx, 1 << 10).err(), Some(CL_INVALID_VALUE));
    // NULL context.
    let mut err = 0;
    let q = unsafe { clCreateCommandQueueWithProperties(ptr::null_mut(), device(), ptr::null(), &mut err) };
    assert!(q.is_null());
    check_err!(err, CL_INVALID_CONTEXT, "NULL context");
    // NULL device.
    let q = unsafe { clCreateCommandQueueWithProperties(ctx.0, ptr::null_mut(), ptr::null(), &mut err) };
    assert!(q.is_null());
    check_err!(err, CL_INVALID_DEVICE, "NULL device");
    #[allow(deprecated)]
    let q = unsafe { clCreateCommandQueue(ctx.0, ptr::null_mut(), 0, &mut err) };
    assert!(q.is_null());
    check_err!(err, CL_INVALID_DEVICE, "clCreateCommandQueue NULL device");
    // The context is still usable.
    let q = ctx.queue();
    q.finish();
}

#[test]
fn queue_info_queries_and_errors() {
    let ctx = Context::new();
    let q = ctx.queue();
    let mut size: size_t = 0;
    // CL_QUEUE_SIZE is only valid for a device queue.
    check!(
        clGetCommandQueueInfo(q.0, CL_QUEUE_SIZE, 0, ptr::null_mut(), &mut size),
        CL_INVALID_COMMAND_QUEUE
    );
    // No default device queue exists: NULL.
    let dflt: cl_command_queue = queue_info(q.0, CL_QUEUE_DEVICE_DEFAULT);
    assert!(
        dflt.is_null(),
        "CL_QUEUE_DEVICE_DEFAULT of a device without device queues"
    );
    check!(
        clGetCommandQueueInfo(q.0, 0x0BAD, 0, ptr::null_mut(), &mut size),
        CL_INVALID_VALUE
    );
    let mut v: cl_uint = 0;
    check!(
        clGetCommandQueueInfo(
            q.0,
            CL_QUEUE_REFERENCE_COUNT,
            2,
            &mut v as *mut cl_uint as *mut c_void,
            ptr::null_mut()
        ),
        CL_INVALID_VALUE
    );
    let mut p: cl_command_queue_properties = 0;
    check!(
        clGetCommandQueueInfo(
            q.0,
            CL_QUEUE_PROPERTIES,
            4,
            &mut p as *mut _ as *mut c_void,
            ptr::null_mut()
        ),
        CL_INVALID_VALUE
    );
    check!(
        clGetCommandQueueInfo(ptr::null_mut(), CL_QUEUE_CONTEXT, 0, ptr::null_mut(), &mut size),
        CL_INVALID_COMMAND_QUEUE
    );
    for (param, want) in [
        (CL_QUEUE_CONTEXT, std::mem::size_of::<cl_context>()),
        (CL_QUEUE_DEVICE, std::mem::size_of::<cl_device_id>()),
        (CL_QUEUE_REFERENCE_COUNT, 4),
        (CL_QUEUE_PROPERTIES, 8),
        (CL_QUEUE_DEVICE_DEFAULT, std::mem::size_of::<cl_command_queue>()),
    ] {
        ok!(clGetCommandQueueInfo(q.0, param, 0, ptr::null_mut(), &mut size));
        assert_eq!(size, want, "param {param:#x}");
    }
    assert_eq!(q.reference_count(), 1);
}

#[test]
fn retain_release_and_context_count() {
    let ctx = Context::new();
    let before = ctx.reference_count();
    let q = ctx.queue();
    ok!(clRetainCommandQueue(q.0));
    assert_eq!(q.reference_count(), 2);
    ok!(clReleaseCommandQueue(q.0));
    assert_eq!(q.reference_count(), 1);
    // (Whether the queue's implicit reference shows in CL_CONTEXT_REFERENCE_COUNT is not
    // specified; the count only has to stay valid.)
    assert!(ctx.reference_count() >= before);
    check!(clRetainCommandQueue(ptr::null_mut()), CL_INVALID_COMMAND_QUEUE);
    check!(clReleaseCommandQueue(ptr::null_mut()), CL_INVALID_COMMAND_QUEUE);
}

#[test]
fn set_default_device_queue_is_invalid_operation() {
    let ctx = Context::new();
    let q = ctx.queue();
    // Read as bytes: PoCL 3.1 writes this 64-bit bitfield as 4 bytes (checked in device.rs).
    let b = device_bytes(device(), CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES).unwrap();
    let caps = b.iter().rev().fold(0u64, |a, &x| (a << 8) | x as u64);
    if caps & CL_DEVICE_QUEUE_REPLACEABLE_DEFAULT == 0 {
        check!(
            clSetDefaultDeviceCommandQueue(ctx.0, device(), q.0),
            CL_INVALID_OPERATION
        );
    }
    check!(
        clSetDefaultDeviceCommandQueue(ptr::null_mut(), device(), q.0),
        CL_INVALID_CONTEXT
    );
}

#[test]
fn flush_finish() {
    let ctx = Context::new();
    let q = ctx.queue();
    q.flush();
    q.finish();
    let b = ctx.buffer(256);
    let data = pattern(256, 1);
    let e = q.write_async(&b, 0, &data, &[]);
    q.flush();
    q.finish();
    assert_eq!(
        e.status(),
        CL_COMPLETE,
        "clFinish returns after every command completed"
    );
    check!(clFlush(ptr::null_mut()), CL_INVALID_COMMAND_QUEUE);
    check!(clFinish(ptr::null_mut()), CL_INVALID_COMMAND_QUEUE);
    assert_eq!(q.read(&b, 0, 256), data);
}

#[test]
fn marker_without_wait_list_waits_for_previous_commands() {
    for props in [0, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE] {
        let ctx = Context::new();
        let q = ctx.queue_with(props);
        let gate = ctx.user_event();
        let b = ctx.buffer(64);
        let data = pattern(64, 2);
        let w = q.write_async(&b, 0, &data, &[gate.0]);
        let m = q.marker(&[]);
        assert_eq!(m.command_type(), CL_COMMAND_MARKER);
        q.flush();
        // The marker cannot complete while the gated write has not run.
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert_ne!(m.status(), CL_COMPLETE, "marker completed before a previous command");
        assert_ne!(w.status(), CL_COMPLETE);
        gate.set_status(CL_COMPLETE);
        m.wait();
        assert_eq!(w.status(), CL_COMPLETE);
        assert_eq!(q.read(&b, 0, 64), data);
    }
}

#[test]
fn marker_and_barrier_with_wait_list() {
    let ctx = Context::new();
    let q = ctx.queue_with(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    let gate = ctx.user_event();
    let m = q.marker(&[gate.0]);
    let b = q.barrier(&[gate.0]);
    assert_eq!(b.command_type(), CL_COMMAND_BARRIER);
    let buf = ctx.buffer(16);
    let data = pattern(16, 3);
    // A command after the barrier waits for it.
    let w = q.write_async(&buf, 0, &data, &[]);
    q.flush();
    std::thread::sleep(std::time::Duration::from_millis(50));
    assert_ne!(m.status(), CL_COMPLETE);
    assert_ne!(b.status(), CL_COMPLETE);
    assert_ne!(w.status(), CL_COMPLETE, "command after a barrier ran before it");
    gate.set_status(CL_COMPLETE);
    w.wait();
    // The barrier waits for its list only, not for the marker: the marker may finish after `w`.
    m.wait();
    assert_eq!(m.status(), CL_COMPLETE);
    assert_eq!(b.status(), CL_COMPLETE);
    // Marker/barrier without an event pointer are fine.
    ok!(clEnqueueMarkerWithWaitList(q.0, 0, ptr::null(), ptr::null_mut()));
    ok!(clEnqueueBarrierWithWaitList(q.0, 0, ptr::null(), ptr::null_mut()));
    // Wait-list errors.
    let mut e = ptr::null_mut();
    check!(
        clEnqueueMarkerWithWaitList(q.0, 1, ptr::null(), &mut e),
        CL_INVALID_EVENT_WAIT_LIST
    );
    check!(
        clEnqueueBarrierWithWaitList(q.0, 0, &gate.0, &mut e),
        CL_INVALID_EVENT_WAIT_LIST
    );
    let nul: cl_event = ptr::null_mut();
    check!(
        clEnqueueMarkerWithWaitList(q.0, 1, &nul, &mut e),
        CL_INVALID_EVENT_WAIT_LIST
    );
    check!(
        clEnqueueMarkerWithWaitList(ptr::null_mut(), 0, ptr::null(), &mut e),
        CL_INVALID_COMMAND_QUEUE
    );
    // Event from another context.
    let other = Context::new();
    let foreign = other.user_event();
    check!(
        clEnqueueMarkerWithWaitList(q.0, 1, &foreign.0, &mut e),
        CL_INVALID_CONTEXT
    );
    check!(
        clEnqueueBarrierWithWaitList(q.0, 1, &foreign.0, &mut e),
        CL_INVALID_CONTEXT
    );
    foreign.set_status(CL_COMPLETE);
    q.finish();
}

#[test]
#[allow(deprecated)]
fn legacy_marker_and_barrier() {
    let ctx = Context::new();
    let q = ctx.queue();
    let gate = ctx.user_event();
    let buf = ctx.buffer(32);
    let data = pattern(32, 4);
    let w = q.write_async(&buf, 0, &data, &[gate.0]);
    let mut m = ptr::null_mut();
    ok!(clEnqueueMarker(q.0, &mut m));
    let m = Event(m);
    assert_eq!(m.command_type(), CL_COMMAND_MARKER);
    ok!(clEnqueueBarrier(q.0));
    q.flush();
    std::thread::sleep(std::time::Duration::from_millis(50));
    assert_ne!(w.status(), CL_COMPLETE);
    assert_ne!(m.status(), CL_COMPLETE, "marker completed before a previous command");
    gate.set_status(CL_COMPLETE);
    q.finish();
    assert_eq!(m.status(), CL_COMPLETE);
    assert_eq!(q.read(&buf, 0, 32), data);
    check!(clEnqueueMarker(q.0, ptr::null_mut()), CL_INVALID_VALUE);
    check!(
        clEnqueueMarker(ptr::null_mut(), &mut ptr::null_mut()),
        CL_INVALID_COMMAND_QUEUE
    );
    check!(clEnqueueBarrier(ptr::null_mut()), CL_INVALID_COMMAND_QUEUE);
}

// Isolated: PoCL 3.1 aborts the process here ("The entire clEnqueueWaitForEvents call is
// unimplemented").
#[test]
#[allow(deprecated)]
fn legacy_wait_for_events() {
    if !isolate("legacy_wait_for_events") {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let gate = ctx.user_event();
    let buf = ctx.buffer(32);
    let data = pattern(32, 5);
    let list = [gate.0];
    ok!(clEnqueueWaitForEvents(q.0, 1, list.as_ptr() as *mut cl_event));
    let w = q.write_async(&buf, 0, &data, &[]);
    q.flush();
    std::thread::sleep(std::time::Duration::from_millis(50));
    assert_ne!(
        w.status(),
        CL_COMPLETE,
        "write ran before clEnqueueWaitForEvents' event completed"
    );
    gate.set_status(CL_COMPLETE);
    q.finish();
    assert_eq!(q.read(&buf, 0, 32), data);
    check!(
        clEnqueueWaitForEvents(q.0, 0, list.as_ptr() as *mut cl_event),
        CL_INVALID_VALUE
    );
    check!(clEnqueueWaitForEvents(q.0, 1, ptr::null_mut()), CL_INVALID_VALUE);
    let other = Context::new();
    let foreign = [other.user_event()];
    check!(
        clEnqueueWaitForEvents(q.0, 1, &foreign[0].0 as *const cl_event as *mut cl_event),
        CL_INVALID_CONTEXT
    );
    foreign[0].set_status(CL_COMPLETE);
    q.finish();
}
