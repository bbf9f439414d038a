//! Program objects (API section 5.8): creation from SPIR-V or a Clift binary, build, compile,
//! link, specialization constants and queries.

use super::platform::device_list;
use crate::guard::{guard, guard_object, set, slice, write_info, ClResult};
use crate::handles;
use opencl_sys::*;
use runtime::device::Device;
use runtime::info;
use runtime::object::{publish, release, retain, ClObject};
use runtime::program::{Origin, Program};
use std::ffi::{c_char, c_uchar, c_void, CStr};
use std::sync::Arc;

type BuildNotify = Option<unsafe extern "C" fn(cl_program, *mut c_void)>;

/// The devices a build/compile/link applies to: "CL_INVALID_VALUE if device_list is NULL and
/// num_devices is greater than zero, or if device_list is not NULL and num_devices is zero";
/// "CL_INVALID_DEVICE if any device in device_list is not in the list of devices associated
/// with program" (or context, for clLinkProgram).
unsafe fn target_devices(
    all: &[&'static Device],
    num_devices: cl_uint,
    list: *const cl_device_id,
) -> ClResult<Vec<&'static Device>> {
    if list.is_null() != (num_devices == 0) {
        return Err(CL_INVALID_VALUE);
    }
    if list.is_null() {
        return Ok(all.to_vec());
    }
    let devices = device_list(num_devices, list).map_err(|_| CL_INVALID_DEVICE)?;
    if devices.iter().any(|d| !all.iter().any(|a| std::ptr::eq(*a, *d))) {
        return Err(CL_INVALID_DEVICE);
    }
    Ok(devices)
}

/// "CL_INVALID_VALUE if pfn_notify is NULL but user_data is not NULL."
fn check_notify(pfn: BuildNotify, user_data: *mut c_void) -> ClResult {
    if pfn.is_none() && !user_data.is_null() {
        return Err(CL_INVALID_VALUE);
    }
    Ok(())
}

/// Builds run synchronously; the callback reports the end of the build, success or not.
fn notify(pfn: BuildNotify, program: cl_program, user_data: *mut c_void) {
    if let Some(f) = pfn {
        // SAFETY: the application registered this callback for this program.
        unsafe { f(program, user_data) };
    }
}

unsafe fn options_text(options: *const c_char) -> String {
    if options.is_null() {
        String::new()
    } else {
        CStr::from_ptr(options).to_string_lossy().into_owned()
    }
}

fn program(handle: cl_program) -> ClResult<Arc<Program>> {
    runtime::object::lookup::<Program>(handle as _).ok_or(CL_INVALID_PROGRAM)
}

#[no_mangle]
pub unsafe extern "C" fn clCreateProgramWithIL(
    context: cl_context,
    il: *const c_void,
    length: usize,
    errcode_ret: *mut cl_int,
) -> cl_program {
    guard_object(errcode_ret, || {
        let ctx = handles::context(context)?;
        // "CL_INVALID_OPERATION if no devices in context support intermediate language
        // programs."
        if runtime::device::FEATURES.ils.is_empty() {
            return Err(CL_INVALID_OPERATION);
        }
        // "CL_INVALID_VALUE if il is NULL or if length is zero", "... if the length-byte memory
        // pointed to by il does not contain well-formed intermediate language".
        let bytes = slice(il as *const u8, length)
            .filter(|b| !b.is_empty())
            .ok_or(CL_INVALID_VALUE)?;
        let p = Program::from_il(ctx, bytes.to_vec()).map_err(|_| CL_INVALID_VALUE)?;
        Ok(publish(Arc::new(p)) as cl_program)
    })
}

#[no_mangle]
pub unsafe extern "C" fn clCreateProgramWithSource(
    context: cl_context,
    count: cl_uint,
    strings: *mut *const c_char,
    lengths: *const usize,
    errcode_ret: *mut cl_int,
) -> cl_program {
    guard_object(errcode_ret, || {
        let ctx = handles::context(context)?;
        // "CL_INVALID_VALUE if count is zero or if strings or any entry in strings is NULL."
        if count == 0 {
            return Err(CL_INVALID_VALUE);
        }
        let strings = slice(strings as *const *const c_char, count as usize).ok_or(CL_INVALID_VALUE)?;
        if strings.iter().any(|s| s.is_null()) {
            return Err(CL_INVALID_VALUE);
        }
        // Each string is NUL-terminated unless lengths gives it a non-zero length.
        let mut source = String::new();
        for (i, &s) in strings.iter().enumerate() {
            let len = if lengths.is_null() { 0 } else { *lengths.add(i) };
            if len == 0 {
                source.push_str(&CStr::from_ptr(s).to_string_lossy());
            } else {
                source.push_str(&String::from_utf8_lossy(std::slice::from_raw_parts(
                    s as *const u8,
                    len,
                )));
            }
        }
        Ok(publish(Arc::new(Program::from_source(ctx, source))) as cl_program)
    })
}

#[no_mangle]
pub unsafe extern "C" fn clCreateProgramWithBinary(
    context: cl_context,
    num_devices: cl_uint,
    device_list_ptr: *const cl_device_id,
    lengths: *const usize,
    binaries: *mut *const c_uchar,
    binary_status: *mut cl_int,
    errcode_ret: *mut cl_int,
) -> cl_program {
    guard_object(errcode_ret, || {
        let ctx = handles::context(context)?;
        // "CL_INVALID_VALUE if device_list is NULL or num_devices is zero."
        if device_list_ptr.is_null() || num_devices == 0 {
            return Err(CL_INVALID_VALUE);
        }
        let devices = target_devices(&ctx.devices, num_devices, device_list_ptr)?;
        let n = num_devices as usize;
        // "CL_INVALID_VALUE if lengths or binaries is NULL or if any entry in lengths[i] is
        // zero or binaries[i] is NULL."
        let lengths = slice(lengths, n).ok_or(CL_INVALID_VALUE)?;
        let binaries = slice(binaries as *const *const c_uchar, n).ok_or(CL_INVALID_VALUE)?;
        let mut statuses = vec![CL_SUCCESS; n];
        let mut result: ClResult<Program> = Err(CL_INVALID_BINARY);
        for i in 0..n {
            if lengths[i] == 0 || binaries[i].is_null() {
                statuses[i] = CL_INVALID_VALUE;
                continue;
            }
            let bytes = std::slice::from_raw_parts(binaries[i], lengths[i]);
            match Program::from_binary(ctx.clone(), devices.clone(), bytes) {
                Ok(p) if result.is_err() => result = Ok(p),
                Ok(_) => {}
                Err(_) => statuses[i] = CL_INVALID_BINARY,
            }
        }
        if !binary_status.is_null() {
            std::ptr::copy_nonoverlapping(statuses.as_ptr(), binary_status, n);
        }
        if statuses.contains(&CL_INVALID_VALUE) {
            return Err(CL_INVALID_VALUE);
        }
        // "CL_INVALID_BINARY if an invalid program binary was encountered for any device."
        if statuses.contains(&CL_INVALID_BINARY) {
            return Err(CL_INVALID_BINARY);
        }
        Ok(publish(Arc::new(result?)) as cl_program)
    })
}

#[no_mangle]
pub unsafe extern "C" fn clRetainProgram(p: cl_program) -> cl_int {
    guard(|| retain::<Program>(p as _).ok_or(CL_INVALID_PROGRAM))
}

#[no_mangle]
pub unsafe extern "C" fn clReleaseProgram(p: cl_program) -> cl_int {
    guard(|| release::<Program>(p as _).ok_or(CL_INVALID_PROGRAM))
}

#[no_mangle]
pub unsafe extern "C" fn clSetProgramReleaseCallback(
    p: cl_program,
    pfn_notify: Option<unsafe extern "C" fn(program: cl_program, user_data: *mut c_void)>,
    user_data: *mut c_void,
) -> cl_int {
    guard(|| {
        let prog = program(p)?;
        let func = pfn_notify.ok_or(CL_INVALID_VALUE)?;
        // "CL_INVALID_OPERATION if no devices in the context associated with program support
        // destructors for program scope global variables" (CL_PROGRAM_SCOPE_GLOBAL_DTORS_PRESENT
        // is always false: Clift has no program-scope globals with destructors).
        let _ = (prog, func, user_data);
        Err(CL_INVALID_OPERATION)
    })
}

#[no_mangle]
pub unsafe extern "C" fn clSetProgramSpecializationConstant(
    p: cl_program,
    spec_id: cl_uint,
    spec_size: usize,
    spec_value: *const c_void,
) -> cl_int {
    guard(|| {
        let prog = program(p)?;
        // "CL_INVALID_PROGRAM if program is not a valid program object created from an
        // intermediate language (e.g. SPIR-V)."
        if prog.origin != Origin::Il {
            return Err(CL_INVALID_PROGRAM);
        }
        // "CL_INVALID_SPEC_ID if spec_id is not a valid specialization constant identifier."
        let size = *prog.spec_sizes.get(&spec_id).ok_or(CL_INVALID_SPEC_ID)?;
        // "CL_INVALID_VALUE if spec_size does not match the size of the specialization
        // constant in the module, or if spec_value is NULL."
        if spec_size != size || spec_value.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let mut bytes = [0u8; 8];
        std::ptr::copy_nonoverlapping(spec_value as *const u8, bytes.as_mut_ptr(), size.min(8));
        prog.set_spec_constant(spec_id, u64::from_le_bytes(bytes));
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn clBuildProgram(
    p: cl_program,
    num_devices: cl_uint,
    device_list_ptr: *const cl_device_id,
    options: *const c_char,
    pfn_notify: BuildNotify,
    user_data: *mut c_void,
) -> cl_int {
    guard(|| {
        let prog = program(p)?;
        target_devices(&prog.devices, num_devices, device_list_ptr)?;
        check_notify(pfn_notify, user_data)?;
        // "CL_INVALID_OPERATION if program was not created with clCreateProgramWithSource,
        // clCreateProgramWithIL or clCreateProgramWithBinary"; "... if there are kernel objects
        // attached to program".
        if prog.origin == Origin::Linked || prog.kernels_attached.load(std::sync::atomic::Ordering::Acquire) > 0 {
            return Err(CL_INVALID_OPERATION);
        }
        let result = prog.build(&options_text(options));
        notify(pfn_notify, p, user_data);
        result
    })
}

#[no_mangle]
pub unsafe extern "C" fn clCompileProgram(
    p: cl_program,
    num_devices: cl_uint,
    device_list_ptr: *const cl_device_id,
    options: *const c_char,
    num_input_headers: cl_uint,
    input_headers: *const cl_program,
    header_include_names: *mut *const c_char,
    pfn_notify: BuildNotify,
    user_data: *mut c_void,
) -> cl_int {
    guard(|| {
        let prog = program(p)?;
        target_devices(&prog.devices, num_devices, device_list_ptr)?;
        check_notify(pfn_notify, user_data)?;
        // "CL_INVALID_VALUE if num_input_headers is zero and header_include_names or
        // input_headers are not NULL or if num_input_headers is not zero and
        // header_include_names or input_headers are NULL."
        let headers_given = !input_headers.is_null() || !header_include_names.is_null();
        if (num_input_headers == 0 && headers_given)
            || (num_input_headers != 0 && (input_headers.is_null() || header_include_names.is_null()))
        {
            return Err(CL_INVALID_VALUE);
        }
        // "CL_INVALID_OPERATION if program has no source or IL available" and with kernels
        // attached.
        if !matches!(prog.origin, Origin::Il | Origin::Source)
            || prog.kernels_attached.load(std::sync::atomic::Ordering::Acquire) > 0
        {
            return Err(CL_INVALID_OPERATION);
        }
        // Embedded headers: programs created from source, named for #include. (Ignored for
        // IL programs.)
        let n = num_input_headers as usize;
        let mut headers = Vec::with_capacity(n);
        if n > 0 {
            let programs = slice(input_headers, n).ok_or(CL_INVALID_VALUE)?;
            let names = slice(header_include_names as *const *const c_char, n).ok_or(CL_INVALID_VALUE)?;
            for (&h, &name) in programs.iter().zip(names) {
                let header = program(h)?;
                if name.is_null() {
                    return Err(CL_INVALID_VALUE);
                }
                headers.push((
                    CStr::from_ptr(name).to_string_lossy().into_owned(),
                    header.source.clone(),
                ));
            }
        }
        let result = prog.compile(&options_text(options), &headers);
        notify(pfn_notify, p, user_data);
        result
    })
}

#[no_mangle]
pub unsafe extern "C" fn clLinkProgram(
    context: cl_context,
    num_devices: cl_uint,
    device_list_ptr: *const cl_device_id,
    options: *const c_char,
    num_input_programs: cl_uint,
    input_programs: *const cl_program,
    pfn_notify: BuildNotify,
    user_data: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_program {
    let mut failed = false;
    let handle = guard_object(errcode_ret, || {
        let ctx = handles::context(context)?;
        let devices = target_devices(&ctx.devices, num_devices, device_list_ptr)?;
        check_notify(pfn_notify, user_data)?;
        // "CL_INVALID_VALUE if num_input_programs is zero and input_programs is NULL or if
        // num_input_programs is zero and input_programs is not NULL or if num_input_programs is
        // not zero and input_programs is NULL."
        if num_input_programs == 0 || input_programs.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let handles = slice(input_programs, num_input_programs as usize).ok_or(CL_INVALID_VALUE)?;
        let inputs = handles.iter().map(|&h| program(h)).collect::<ClResult<Vec<_>>>()?;
        if inputs.iter().any(|i| !Arc::ptr_eq(&i.context, &ctx)) {
            return Err(CL_INVALID_PROGRAM);
        }
        let (linked, ok) = Program::link(ctx, devices, &inputs, &options_text(options))?;
        failed = !ok;
        let handle = publish(Arc::new(linked)) as cl_program;
        notify(pfn_notify, handle, user_data);
        Ok(handle)
    });
    // A failed link still returns the program, so that its build log can be read.
    if failed {
        set(errcode_ret, CL_LINK_PROGRAM_FAILURE);
    }
    handle
}

fn build_ready(prog: &Program) -> ClResult<Arc<jit::codegen::Program>> {
    // "CL_INVALID_PROGRAM_EXECUTABLE if ... a successful program executable has not been built
    // for at least one device in the list of devices associated with program."
    prog.executable().ok_or(CL_INVALID_PROGRAM_EXECUTABLE)
}

#[no_mangle]
pub unsafe extern "C" fn clGetProgramInfo(
    p: cl_program,
    param_name: cl_program_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    guard(|| {
        let prog = program(p)?;
        let answer = match param_name {
            CL_PROGRAM_REFERENCE_COUNT => info::uint(prog.header().ref_count()),
            CL_PROGRAM_CONTEXT => info::ptr(Arc::as_ptr(&prog.context) as *const c_void),
            CL_PROGRAM_NUM_DEVICES => info::uint(prog.devices.len() as cl_uint),
            CL_PROGRAM_DEVICES => info::array(&prog.devices.iter().map(|d| d.handle()).collect::<Vec<_>>()),
            // Only source programs have source; the others answer an empty string.
            CL_PROGRAM_SOURCE => info::string(&prog.source),
            CL_PROGRAM_IL => Ok(if prog.origin == Origin::Il {
                prog.il.clone()
            } else {
                Vec::new()
            }),
            CL_PROGRAM_BINARY_SIZES => info::array(&vec![prog.binary().len(); prog.devices.len()]),
            CL_PROGRAM_BINARIES => return write_binaries(&prog, param_value_size, param_value, param_value_size_ret),
            CL_PROGRAM_NUM_KERNELS => info::size(build_ready(&prog)?.kernels().len()),
            CL_PROGRAM_KERNEL_NAMES => {
                let names: Vec<String> = build_ready(&prog)?.kernels().iter().map(|k| k.name.clone()).collect();
                info::string(&names.join(";"))
            }
            CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT | CL_PROGRAM_SCOPE_GLOBAL_DTORS_PRESENT => info::boolean(false),
            _ => Err(CL_INVALID_VALUE),
        };
        write_info(answer, param_value_size, param_value, param_value_size_ret)
    })
}

/// CL_PROGRAM_BINARIES: param_value is an array of pointers, one per device, each to memory of
/// CL_PROGRAM_BINARY_SIZES bytes (a NULL entry skips that device).
unsafe fn write_binaries(prog: &Program, size: usize, value: *mut c_void, size_ret: *mut usize) -> ClResult {
    let n = prog.devices.len();
    let needed = n * std::mem::size_of::<*mut u8>();
    if !value.is_null() {
        if size < needed {
            return Err(CL_INVALID_VALUE);
        }
        let bytes = prog.binary();
        let targets = std::slice::from_raw_parts(value as *const *mut u8, n);
        for &t in targets {
            if !t.is_null() {
                std::ptr::copy_nonoverlapping(bytes.as_ptr(), t, bytes.len());
            }
        }
    }
    set(size_ret, needed);
    Ok(())
}

#[no_mangle]
pub unsafe extern "C" fn clGetProgramBuildInfo(
    p: cl_program,
    device_id: cl_device_id,
    param_name: cl_program_build_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    guard(|| {
        let prog = program(p)?;
        let device = handles::device(device_id)?;
        // "CL_INVALID_DEVICE if device is not in the list of devices associated with program."
        if !prog.devices.iter().any(|d| std::ptr::eq(*d, device)) {
            return Err(CL_INVALID_DEVICE);
        }
        let b = prog.lock();
        let answer = match param_name {
            CL_PROGRAM_BUILD_STATUS => info::int(b.status),
            CL_PROGRAM_BUILD_OPTIONS => info::string(&b.options),
            CL_PROGRAM_BUILD_LOG => info::string(&b.log),
            CL_PROGRAM_BINARY_TYPE => info::uint(b.binary_type),
            // Bytes of program-scope global variables of the executable (0 without one).
            CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE => info::size(if b.executable.is_some() {
                b.modules.iter().map(|m| runtime::globals::total_size(m)).sum()
            } else {
                0
            }),
            _ => Err(CL_INVALID_VALUE),
        };
        drop(b);
        write_info(answer, param_value_size, param_value, param_value_size_ret)
    })
}
