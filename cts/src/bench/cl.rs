//! Thin OpenCL wrappers for the benchmark: every handle names its platform's device explicitly
//! (the benchmark drives several platforms in one process), every failure is a `Result` with a
//! message (a kernel that fails on one platform must not stop the others), and every handle is
//! released on drop.

use cts::*;
use std::ffi::CString;
use std::ptr;

pub type R<T> = Result<T, String>;

/// `Ok(())` for `CL_SUCCESS`, else a message naming the call and the code.
pub fn cl(err: cl_int, what: &str) -> R<()> {
    if err == CL_SUCCESS {
        Ok(())
    } else {
        Err(format!("{what}: {}", err_name(err)))
    }
}

/// Reads a variable-sized info value (size query, then value query).
fn info_bytes(mut f: impl FnMut(size_t, *mut c_void, *mut size_t) -> cl_int) -> R<Vec<u8>> {
    let mut size: size_t = 0;
    cl(f(0, ptr::null_mut(), &mut size), "info size")?;
    let mut buf = vec![0u8; size];
    cl(f(size, buf.as_mut_ptr() as *mut c_void, ptr::null_mut()), "info value")?;
    Ok(buf)
}

fn to_string(b: &[u8]) -> String {
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    String::from_utf8_lossy(&b[..end]).trim().to_string()
}

pub fn platform_string(p: cl_platform_id, param: cl_platform_info) -> String {
    info_bytes(|s, v, r| unsafe { clGetPlatformInfo(p, param, s, v, r) })
        .map(|b| to_string(&b))
        .unwrap_or_default()
}

pub fn device_string(d: cl_device_id, param: cl_device_info) -> String {
    info_bytes(|s, v, r| unsafe { clGetDeviceInfo(d, param, s, v, r) })
        .map(|b| to_string(&b))
        .unwrap_or_default()
}

pub fn device_scalar<T: Copy + Default>(d: cl_device_id, param: cl_device_info) -> T {
    let mut v = T::default();
    let err = unsafe {
        clGetDeviceInfo(
            d,
            param,
            std::mem::size_of::<T>(),
            &mut v as *mut T as *mut c_void,
            ptr::null_mut(),
        )
    };
    if err == CL_SUCCESS {
        v
    } else {
        T::default()
    }
}

/// Every platform the ICD loader reports (empty when there is none).
pub fn platforms() -> Vec<cl_platform_id> {
    let mut n: cl_uint = 0;
    let err = unsafe { clGetPlatformIDs(0, ptr::null_mut(), &mut n) };
    if err != CL_SUCCESS || n == 0 {
        return Vec::new();
    }
    let mut v = vec![ptr::null_mut(); n as usize];
    let err = unsafe { clGetPlatformIDs(n, v.as_mut_ptr(), ptr::null_mut()) };
    if err != CL_SUCCESS {
        return Vec::new();
    }
    v
}

/// A platform under benchmark with its first CPU device.
pub struct Platform {
    pub name: String,
    pub version: String,
    pub id: cl_platform_id,
    pub dev: cl_device_id,
    pub device_name: String,
    pub compute_units: cl_uint,
    /// Whether the device ingests SPIR-V (`CL_DEVICE_IL_VERSION` names SPIR-V).
    pub il: bool,
}

impl Platform {
    pub fn new(id: cl_platform_id) -> R<Platform> {
        let name = platform_string(id, CL_PLATFORM_NAME);
        let mut dev: cl_device_id = ptr::null_mut();
        let mut n: cl_uint = 0;
        cl(
            unsafe { clGetDeviceIDs(id, CL_DEVICE_TYPE_CPU, 1, &mut dev, &mut n) },
            &format!("clGetDeviceIDs({name}, CPU)"),
        )?;
        Ok(Platform {
            version: platform_string(id, CL_PLATFORM_VERSION),
            device_name: device_string(dev, CL_DEVICE_NAME),
            compute_units: device_scalar(dev, CL_DEVICE_MAX_COMPUTE_UNITS),
            il: device_string(dev, CL_DEVICE_IL_VERSION).contains("SPIR-V"),
            name,
            id,
            dev,
        })
    }

    /// A short label for tables ("Clift", "PoCL", else the full name).
    pub fn label(&self) -> String {
        if self.name == "Portable Computing Language" {
            "PoCL".to_string()
        } else {
            self.name.clone()
        }
    }

    pub fn is_clift(&self) -> bool {
        self.name == "Clift"
    }
}

/// A context on one device with one in-order queue.
pub struct Ctx {
    pub ctx: cl_context,
    pub queue: cl_command_queue,
    pub dev: cl_device_id,
}

impl Ctx {
    pub fn new(p: &Platform) -> R<Ctx> {
        let props = [
            CL_CONTEXT_PLATFORM as cl_context_properties,
            p.id as cl_context_properties,
            0,
        ];
        let mut err = 0;
        let ctx = unsafe { clCreateContext(props.as_ptr(), 1, &p.dev, None, ptr::null_mut(), &mut err) };
        cl(err, "clCreateContext")?;
        let queue = unsafe { clCreateCommandQueueWithProperties(ctx, p.dev, ptr::null(), &mut err) };
        if err != CL_SUCCESS {
            unsafe { clReleaseContext(ctx) };
            return Err(format!("clCreateCommandQueueWithProperties: {}", err_name(err)));
        }
        Ok(Ctx { ctx, queue, dev: p.dev })
    }

    /// A buffer of `size` bytes, initialised from `init` when given.
    pub fn buffer(&self, size: usize, init: Option<&[u8]>) -> R<Buf> {
        let mut err = 0;
        let (flags, host) = match init {
            Some(d) => {
                assert_eq!(d.len(), size);
                (CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, d.as_ptr() as *mut c_void)
            }
            None => (CL_MEM_READ_WRITE, ptr::null_mut()),
        };
        let m = unsafe { clCreateBuffer(self.ctx, flags, size, host, &mut err) };
        cl(err, &format!("clCreateBuffer({size})"))?;
        Ok(Buf(m))
    }

    /// A 2D image of `format`, `width` x `height`, filled from `data` (tightly packed rows):
    /// read-only, or read-write when the kernel writes it (`out`).
    pub fn image2d(&self, format: cl_image_format, width: usize, height: usize, data: &[u8], out: bool) -> R<Buf> {
        let desc = cl_image_desc {
            image_type: CL_MEM_OBJECT_IMAGE2D,
            image_width: width,
            image_height: height,
            image_depth: 1,
            image_array_size: 1,
            image_row_pitch: 0,
            image_slice_pitch: 0,
            num_mip_levels: 0,
            num_samples: 0,
            buffer: ptr::null_mut(),
        };
        let mut err = 0;
        let flags = if out { CL_MEM_READ_WRITE } else { CL_MEM_READ_ONLY } | CL_MEM_COPY_HOST_PTR;
        let m = unsafe { clCreateImage(self.ctx, flags, &format, &desc, data.as_ptr() as *mut c_void, &mut err) };
        cl(err, &format!("clCreateImage({width}x{height})"))?;
        Ok(Buf(m))
    }

    /// A sampler (`CL_SAMPLER_*` properties).
    pub fn sampler(&self, normalized: bool, addressing: cl_addressing_mode, filter: cl_filter_mode) -> R<Sampler> {
        let props: [cl_sampler_properties; 7] = [
            CL_SAMPLER_NORMALIZED_COORDS as cl_sampler_properties,
            normalized as cl_sampler_properties,
            CL_SAMPLER_ADDRESSING_MODE as cl_sampler_properties,
            addressing as cl_sampler_properties,
            CL_SAMPLER_FILTER_MODE as cl_sampler_properties,
            filter as cl_sampler_properties,
            0,
        ];
        let mut err = 0;
        let s = unsafe { clCreateSamplerWithProperties(self.ctx, props.as_ptr(), &mut err) };
        cl(err, "clCreateSamplerWithProperties")?;
        Ok(Sampler(s))
    }

    /// The `len` bytes of 2D image `b` (`width` x `height`, rows tightly packed).
    pub fn read_image2d(&self, b: &Buf, width: usize, height: usize, len: usize) -> R<Vec<u8>> {
        let mut v = vec![0u8; len];
        let (origin, region) = ([0usize; 3], [width, height, 1]);
        cl(
            unsafe {
                clEnqueueReadImage(
                    self.queue,
                    b.0,
                    CL_TRUE,
                    origin.as_ptr(),
                    region.as_ptr(),
                    0,
                    0,
                    v.as_mut_ptr() as *mut c_void,
                    0,
                    ptr::null(),
                    ptr::null_mut(),
                )
            },
            "clEnqueueReadImage",
        )?;
        Ok(v)
    }

    pub fn read(&self, b: &Buf, len: usize) -> R<Vec<u8>> {
        let mut v = vec![0u8; len];
        cl(
            unsafe {
                clEnqueueReadBuffer(
                    self.queue,
                    b.0,
                    CL_TRUE,
                    0,
                    len,
                    v.as_mut_ptr() as *mut c_void,
                    0,
                    ptr::null(),
                    ptr::null_mut(),
                )
            },
            "clEnqueueReadBuffer",
        )?;
        Ok(v)
    }

    /// clCreateProgramWithSource.
    pub fn program_source(&self, src: &str) -> R<Prog> {
        let mut err = 0;
        let s = src.as_ptr() as *const c_char;
        let len = src.len();
        let p = unsafe { clCreateProgramWithSource(self.ctx, 1, &s, &len, &mut err) };
        cl(err, "clCreateProgramWithSource")?;
        Ok(Prog(p, self.dev))
    }

    /// clCreateProgramWithIL.
    pub fn program_il(&self, il: &[u8]) -> R<Prog> {
        let mut err = 0;
        let p = unsafe { clCreateProgramWithIL(self.ctx, il.as_ptr() as *const c_void, il.len(), &mut err) };
        cl(err, "clCreateProgramWithIL")?;
        Ok(Prog(p, self.dev))
    }

    /// Enqueues an ND-range (`offset`/`local` empty for NULL) and waits for it with clFinish.
    pub fn run(&self, k: &Kern, offset: &[usize], global: &[usize], local: &[usize]) -> R<()> {
        let off = if offset.is_empty() {
            ptr::null()
        } else {
            offset.as_ptr()
        };
        let loc = if local.is_empty() { ptr::null() } else { local.as_ptr() };
        cl(
            unsafe {
                clEnqueueNDRangeKernel(
                    self.queue,
                    k.0,
                    global.len() as cl_uint,
                    off,
                    global.as_ptr(),
                    loc,
                    0,
                    ptr::null(),
                    ptr::null_mut(),
                )
            },
            "clEnqueueNDRangeKernel",
        )?;
        cl(unsafe { clFinish(self.queue) }, "clFinish")
    }
}

impl Drop for Ctx {
    fn drop(&mut self) {
        unsafe {
            clFinish(self.queue);
            clReleaseCommandQueue(self.queue);
            clReleaseContext(self.ctx);
        }
    }
}

pub struct Buf(pub cl_mem);

impl Drop for Buf {
    fn drop(&mut self) {
        unsafe { clReleaseMemObject(self.0) };
    }
}

pub struct Sampler(pub cl_sampler);

impl Drop for Sampler {
    fn drop(&mut self) {
        unsafe { clReleaseSampler(self.0) };
    }
}

/// A program and the device it is built for.
pub struct Prog(pub cl_program, cl_device_id);

impl Prog {
    /// clBuildProgram; on failure the message carries the start of the build log.
    pub fn build(&self, options: &str) -> R<()> {
        let opts = CString::new(options).unwrap();
        let err = unsafe { clBuildProgram(self.0, 1, &self.1, opts.as_ptr(), None, ptr::null_mut()) };
        if err == CL_SUCCESS {
            return Ok(());
        }
        let log: String = self
            .log()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .take(3)
            .collect::<Vec<_>>()
            .join(" / ");
        let log: String = log.chars().take(300).collect();
        Err(format!(
            "clBuildProgram: {}{}",
            err_name(err),
            if log.is_empty() {
                String::new()
            } else {
                format!(": {log}")
            }
        ))
    }

    /// The build log (empty when there is none or it cannot be read).
    pub fn log(&self) -> String {
        info_bytes(|s, v, r| unsafe { clGetProgramBuildInfo(self.0, self.1, CL_PROGRAM_BUILD_LOG, s, v, r) })
            .map(|b| to_string(&b))
            .unwrap_or_default()
    }

    pub fn kernel(&self, name: &str) -> R<Kern> {
        let n = CString::new(name).unwrap();
        let mut err = 0;
        let k = unsafe { clCreateKernel(self.0, n.as_ptr(), &mut err) };
        cl(err, &format!("clCreateKernel({name})"))?;
        Ok(Kern(k))
    }
}

impl Drop for Prog {
    fn drop(&mut self) {
        unsafe { clReleaseProgram(self.0) };
    }
}

pub struct Kern(pub cl_kernel);

impl Kern {
    /// clSetKernelArg with `size` bytes at `value` (NULL `value` for a `__local` size).
    pub fn arg_raw(&self, index: cl_uint, size: usize, value: *const c_void) -> R<()> {
        cl(
            unsafe { clSetKernelArg(self.0, index, size, value) },
            &format!("clSetKernelArg({index})"),
        )
    }
}

impl Drop for Kern {
    fn drop(&mut self) {
        unsafe { clReleaseKernel(self.0) };
    }
}
