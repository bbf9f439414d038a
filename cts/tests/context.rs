//! clCreateContext, clCreateContextFromType, retain/release, clGetContextInfo,
//! clSetContextDestructorCallback.

use cts::*;
use std::ptr;
use std::sync::Mutex;

fn platform_props() -> [cl_context_properties; 3] {
    [
        CL_CONTEXT_PLATFORM as cl_context_properties,
        platform() as cl_context_properties,
        0,
    ]
}

fn create(props: *const cl_context_properties, devs: &[cl_device_id]) -> Result<Context, cl_int> {
    let mut err = 0;
    let c = unsafe {
        clCreateContext(
            props,
            devs.len() as cl_uint,
            if devs.is_empty() { ptr::null() } else { devs.as_ptr() },
            None,
            ptr::null_mut(),
            &mut err,
        )
    };
    if err == CL_SUCCESS {
        assert!(!c.is_null());
        Ok(Context(c))
    } else {
        assert!(c.is_null(), "failed clCreateContext returned a handle");
        Err(err)
    }
}

fn from_type(props: *const cl_context_properties, ty: cl_device_type) -> Result<Context, cl_int> {
    let mut err = 0;
    let c = unsafe { clCreateContextFromType(props, ty, None, ptr::null_mut(), &mut err) };
    if err == CL_SUCCESS {
        assert!(!c.is_null());
        Ok(Context(c))
    } else {
        assert!(c.is_null(), "failed clCreateContextFromType returned a handle");
        Err(err)
    }
}

fn context_devices(c: &Context) -> Vec<cl_device_id> {
    bytes_to_vec(&context_bytes(c.0, CL_CONTEXT_DEVICES).unwrap())
}

fn context_props(c: &Context) -> Vec<cl_context_properties> {
    bytes_to_vec(&context_bytes(c.0, CL_CONTEXT_PROPERTIES).unwrap())
}

#[test]
fn create_context_with_and_without_properties() {
    let d = device();
    let props = platform_props();
    let c = create(props.as_ptr(), &[d]).unwrap();
    assert_eq!(context_info::<cl_uint>(c.0, CL_CONTEXT_NUM_DEVICES), 1);
    assert_eq!(context_devices(&c), vec![d]);
    assert_eq!(
        context_props(&c),
        props.to_vec(),
        "CL_CONTEXT_PROPERTIES returns the list given"
    );
    assert_eq!(c.reference_count(), 1);

    let c2 = create(ptr::null(), &[d]).unwrap();
    let mut size: size_t = 99;
    ok!(clGetContextInfo(
        c2.0,
        CL_CONTEXT_PROPERTIES,
        0,
        ptr::null_mut(),
        &mut size
    ));
    assert_eq!(
        size, 0,
        "CL_CONTEXT_PROPERTIES is empty when created with NULL properties"
    );
    assert_eq!(context_devices(&c2), vec![d]);

    // Empty property list (just the terminator).
    let empty: [cl_context_properties; 1] = [0];
    let c3 = create(empty.as_ptr(), &[d]).unwrap();
    assert_eq!(context_devices(&c3), vec![d]);

    // The same device listed twice is allowed ("duplicate devices are ignored").
    let c4 = create(props.as_ptr(), &[d, d]).unwrap();
    assert!(context_info::<cl_uint>(c4.0, CL_CONTEXT_NUM_DEVICES) >= 1);

    // CL_CONTEXT_INTEROP_USER_SYNC with a boolean value.
    let sync = [
        CL_CONTEXT_PLATFORM as cl_context_properties,
        platform() as cl_context_properties,
        CL_CONTEXT_INTEROP_USER_SYNC as cl_context_properties,
        CL_TRUE as cl_context_properties,
        0,
    ];
    let c5 = create(sync.as_ptr(), &[d]).unwrap();
    assert_eq!(context_props(&c5), sync.to_vec());
}

#[test]
fn create_context_from_type() {
    let props = platform_props();
    for ty in [CL_DEVICE_TYPE_CPU, CL_DEVICE_TYPE_ALL, CL_DEVICE_TYPE_DEFAULT] {
        let c = from_type(props.as_ptr(), ty).unwrap_or_else(|e| panic!("type {ty:#x}: {}", err_name(e)));
        assert_eq!(context_devices(&c), vec![device()]);
        assert_eq!(context_props(&c), props.to_vec());
    }
    // "Otherwise, it returns a NULL value" (PoCL 3.1 deviates: it returns a non-NULL context
    // together with CL_DEVICE_NOT_FOUND, and CL_DEVICE_NOT_FOUND for an invalid type).
    for ty in [CL_DEVICE_TYPE_GPU, CL_DEVICE_TYPE_ACCELERATOR, CL_DEVICE_TYPE_CUSTOM] {
        assert_eq!(
            from_type(props.as_ptr(), ty).err(),
            Some(CL_DEVICE_NOT_FOUND),
            "type {ty:#x}"
        );
    }
    assert_eq!(from_type(props.as_ptr(), 1 << 20).err(), Some(CL_INVALID_DEVICE_TYPE));
}

#[test]
fn create_context_property_errors() {
    let d = device();
    let bad_name = [0x0BAD as cl_context_properties, 0, 0];
    assert_eq!(create(bad_name.as_ptr(), &[d]).err(), Some(CL_INVALID_PROPERTY));
    let twice = [
        CL_CONTEXT_PLATFORM as cl_context_properties,
        platform() as cl_context_properties,
        CL_CONTEXT_PLATFORM as cl_context_properties,
        platform() as cl_context_properties,
        0,
    ];
    assert_eq!(create(twice.as_ptr(), &[d]).err(), Some(CL_INVALID_PROPERTY));
    // "if the value specified for a supported property name is not valid": a cl_bool is
    // CL_TRUE or CL_FALSE. (PoCL 3.1 deviates: it accepts 7.)
    let bad_bool = [
        CL_CONTEXT_PLATFORM as cl_context_properties,
        platform() as cl_context_properties,
        CL_CONTEXT_INTEROP_USER_SYNC as cl_context_properties,
        7,
        0,
    ];
    assert_eq!(create(bad_bool.as_ptr(), &[d]).err(), Some(CL_INVALID_PROPERTY));
    let bad_name_ft = [
        CL_CONTEXT_PLATFORM as cl_context_properties,
        platform() as cl_context_properties,
        0x0BAD as cl_context_properties,
        0,
        0,
    ];
    assert_eq!(
        from_type(bad_name_ft.as_ptr(), CL_DEVICE_TYPE_CPU).err(),
        Some(CL_INVALID_PROPERTY)
    );
}

#[test]
fn create_context_argument_errors() {
    let d = device();
    let props = platform_props();
    // devices NULL.
    let mut err = 0;
    let c = unsafe { clCreateContext(props.as_ptr(), 1, ptr::null(), None, ptr::null_mut(), &mut err) };
    assert!(c.is_null());
    check_err!(err, CL_INVALID_VALUE, "devices NULL");
    // num_devices 0.
    let c = unsafe { clCreateContext(props.as_ptr(), 0, &d, None, ptr::null_mut(), &mut err) };
    assert!(c.is_null());
    check_err!(err, CL_INVALID_VALUE, "num_devices 0");
    // pfn_notify NULL with user_data non-NULL.
    let mut dummy = 0u8;
    let c = unsafe {
        clCreateContext(
            props.as_ptr(),
            1,
            &d,
            None,
            &mut dummy as *mut u8 as *mut c_void,
            &mut err,
        )
    };
    assert!(c.is_null());
    check_err!(err, CL_INVALID_VALUE, "pfn_notify NULL, user_data non-NULL");
    let c = unsafe {
        clCreateContextFromType(
            props.as_ptr(),
            CL_DEVICE_TYPE_CPU,
            None,
            &mut dummy as *mut u8 as *mut c_void,
            &mut err,
        )
    };
    assert!(c.is_null());
    check_err!(err, CL_INVALID_VALUE, "FromType: pfn_notify NULL, user_data non-NULL");
    // A NULL device in the list.
    let devs = [d, ptr::null_mut()];
    let c = unsafe { clCreateContext(props.as_ptr(), 2, devs.as_ptr(), None, ptr::null_mut(), &mut err) };
    assert!(c.is_null());
    check_err!(err, CL_INVALID_DEVICE, "NULL device in devices");
    // errcode_ret may be NULL.
    let c = unsafe { clCreateContext(props.as_ptr(), 0, &d, None, ptr::null_mut(), ptr::null_mut()) };
    assert!(c.is_null());
}

unsafe extern "C" fn notify(_e: *const c_char, _p: *const c_void, _cb: size_t, _u: *mut c_void) {}

#[test]
fn create_context_with_notify() {
    let d = device();
    let props = platform_props();
    let mut err = 0;
    let mut data = 5u32;
    let c = unsafe {
        clCreateContext(
            props.as_ptr(),
            1,
            &d,
            Some(notify),
            &mut data as *mut u32 as *mut c_void,
            &mut err,
        )
    };
    check_err!(err, CL_SUCCESS, "clCreateContext with pfn_notify");
    let c = Context(c);
    // With pfn_notify and NULL user_data too.
    let c2 = unsafe { clCreateContext(props.as_ptr(), 1, &d, Some(notify), ptr::null_mut(), &mut err) };
    check_err!(err, CL_SUCCESS, "clCreateContext with pfn_notify, NULL user_data");
    let _c2 = Context(c2);
    assert_eq!(context_devices(&c), vec![d]);
}

#[test]
fn retain_release_counts() {
    let c = Context::new();
    assert_eq!(c.reference_count(), 1);
    ok!(clRetainContext(c.0));
    ok!(clRetainContext(c.0));
    assert_eq!(c.reference_count(), 3);
    ok!(clReleaseContext(c.0));
    assert_eq!(c.reference_count(), 2);
    ok!(clReleaseContext(c.0));
    assert_eq!(c.reference_count(), 1);
    check!(clRetainContext(ptr::null_mut()), CL_INVALID_CONTEXT);
    check!(clReleaseContext(ptr::null_mut()), CL_INVALID_CONTEXT);
}

#[test]
fn context_info_queries_and_errors() {
    let c = Context::new();
    let mut size: size_t = 0;
    for p in [CL_CONTEXT_REFERENCE_COUNT, CL_CONTEXT_NUM_DEVICES] {
        ok!(clGetContextInfo(c.0, p, 0, ptr::null_mut(), &mut size));
        assert_eq!(size, 4);
    }
    ok!(clGetContextInfo(c.0, CL_CONTEXT_DEVICES, 0, ptr::null_mut(), &mut size));
    assert_eq!(size, std::mem::size_of::<cl_device_id>());
    check!(
        clGetContextInfo(c.0, 0x0BAD, 0, ptr::null_mut(), &mut size),
        CL_INVALID_VALUE
    );
    let mut v: cl_uint = 0;
    check!(
        clGetContextInfo(
            c.0,
            CL_CONTEXT_NUM_DEVICES,
            2,
            &mut v as *mut cl_uint as *mut c_void,
            ptr::null_mut()
        ),
        CL_INVALID_VALUE
    );
    let mut dev: cl_device_id = ptr::null_mut();
    check!(
        clGetContextInfo(
            c.0,
            CL_CONTEXT_DEVICES,
            4,
            &mut dev as *mut cl_device_id as *mut c_void,
            ptr::null_mut()
        ),
        CL_INVALID_VALUE
    );
    let props_size = context_bytes(c.0, CL_CONTEXT_PROPERTIES).unwrap().len();
    let mut buf = vec![0u8; props_size];
    check!(
        clGetContextInfo(
            c.0,
            CL_CONTEXT_PROPERTIES,
            props_size - 1,
            buf.as_mut_ptr() as *mut c_void,
            ptr::null_mut()
        ),
        CL_INVALID_VALUE
    );
    check!(
        clGetContextInfo(ptr::null_mut(), CL_CONTEXT_NUM_DEVICES, 0, ptr::null_mut(), &mut size),
        CL_INVALID_CONTEXT
    );
    // Still fine afterwards.
    assert_eq!(context_info::<cl_uint>(c.0, CL_CONTEXT_NUM_DEVICES), 1);
}

static ORDER: Mutex<Vec<usize>> = Mutex::new(Vec::new());

unsafe extern "C" fn destructor(ctx: cl_context, user: *mut c_void) {
    assert!(!ctx.is_null());
    ORDER.lock().unwrap().push(user as usize);
}

#[test]
fn destructor_callbacks_lifo_at_final_release() {
    let c = Context::new();
    let tag = 0x1000usize;
    for i in 1..=3 {
        ok!(clSetContextDestructorCallback(
            c.0,
            Some(destructor),
            (tag + i) as *mut c_void
        ));
    }
    check!(
        clSetContextDestructorCallback(c.0, None, ptr::null_mut()),
        CL_INVALID_VALUE
    );
    check!(
        clSetContextDestructorCallback(ptr::null_mut(), Some(destructor), ptr::null_mut()),
        CL_INVALID_CONTEXT
    );
    let mine = |v: &Vec<usize>| {
        v.iter()
            .copied()
            .filter(|&x| x > tag && x <= tag + 3)
            .collect::<Vec<_>>()
    };
    // A buffer keeps the context alive after the application's last release.
    let buf = c.buffer(64);
    ok!(clRetainContext(c.0));
    ok!(clReleaseContext(c.0));
    assert!(
        mine(&ORDER.lock().unwrap()).is_empty(),
        "destructor ran while the context is referenced"
    );
    let raw = c.0;
    std::mem::forget(c);
    ok!(clReleaseContext(raw));
    assert!(
        mine(&ORDER.lock().unwrap()).is_empty(),
        "destructor ran while a buffer still references the context"
    );
    drop(buf);
    assert!(
        wait_until(EVENTUALLY, || mine(&ORDER.lock().unwrap()).len() == 3),
        "destructor callbacks did not all run after the last release"
    );
    assert_eq!(
        mine(&ORDER.lock().unwrap()),
        vec![tag + 3, tag + 2, tag + 1],
        "callbacks must run LIFO"
    );
}
