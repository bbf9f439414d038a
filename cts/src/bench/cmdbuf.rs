//! `clift-bench --command-buffer`: host time of 100 small ND-ranges enqueued one by one against
//! the same 100 recorded once into a command-buffer (cl_khr_command_buffer) and replayed, on
//! every platform whose device reports the extension. Both sides end with clFinish; the table
//! gives the time the enqueue calls take (what the application's thread spends) and the time
//! to completion, medians over the runs, and checks the buffer against the count of launches.

use crate::cl::{cl, device_string, Ctx, Platform, R};
use cts::command_buffer::{CreateFn, EnqueueFn, HandleFn, NDRangeFn};
use cts::*;
use std::ptr;
use std::time::{Duration, Instant};

/// Launches per batch.
pub const COMMANDS: usize = 100;
/// Work-items per launch.
const ITEMS: usize = 1024;

pub struct Row {
    pub platform: String,
    pub one_by_one: (Duration, Duration),
    pub replay: (Duration, Duration),
    pub record: Duration,
}

struct Fns {
    create: CreateFn,
    release: HandleFn,
    finalize: HandleFn,
    enqueue: EnqueueFn,
    nd_range: NDRangeFn,
}

fn fns(p: &Platform) -> R<Fns> {
    let get = |name: &str| {
        cts::command_buffer::address(p.id, name).ok_or_else(|| format!("{name} does not resolve on {}", p.label()))
    };
    // SAFETY: each name has the signature of the field's type in the extension's header.
    unsafe {
        Ok(Fns {
            create: std::mem::transmute::<*mut c_void, CreateFn>(get("clCreateCommandBufferKHR")?),
            release: std::mem::transmute::<*mut c_void, HandleFn>(get("clReleaseCommandBufferKHR")?),
            finalize: std::mem::transmute::<*mut c_void, HandleFn>(get("clFinalizeCommandBufferKHR")?),
            enqueue: std::mem::transmute::<*mut c_void, EnqueueFn>(get("clEnqueueCommandBufferKHR")?),
            nd_range: std::mem::transmute::<*mut c_void, NDRangeFn>(get("clCommandNDRangeKernelKHR")?),
        })
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Runs the comparison on `p` (`runs` timed batches of each kind after warm-ups).
pub fn measure(p: &Platform, runs: usize) -> R<Row> {
    if !device_string(p.dev, CL_DEVICE_EXTENSIONS)
        .split_whitespace()
        .any(|e| e == "cl_khr_command_buffer")
    {
        return Err(format!("{} does not report cl_khr_command_buffer", p.label()));
    }
    let f = fns(p)?;
    let ctx = Ctx::new(p)?;
    let data = ctx.buffer(ITEMS * 4, Some(&vec![0u8; ITEMS * 4]))?;
    let prog = ctx.program_source(include_str!("../../kernels/bench/cmdbuf_add.cl"))?;
    prog.build("")?;
    let k = prog.kernel("cmdbuf_add")?;
    k.arg_raw(
        0,
        std::mem::size_of::<cl_mem>(),
        &data.0 as *const cl_mem as *const c_void,
    )?;
    k.arg_raw(1, 4, &1i32 as *const i32 as *const c_void)?;
    let global = ITEMS;

    let one_by_one = || -> R<(Duration, Duration)> {
        let t0 = Instant::now();
        for _ in 0..COMMANDS {
            cl(
                unsafe {
                    clEnqueueNDRangeKernel(
                        ctx.queue,
                        k.0,
                        1,
                        ptr::null(),
                        &global,
                        ptr::null(),
                        0,
                        ptr::null(),
                        ptr::null_mut(),
                    )
                },
                "clEnqueueNDRangeKernel",
            )?;
        }
        let t1 = Instant::now();
        cl(unsafe { clFinish(ctx.queue) }, "clFinish")?;
        Ok((t1 - t0, t0.elapsed()))
    };

    let t_record = Instant::now();
    let mut err = 0;
    let cb = unsafe { (f.create)(1, &ctx.queue, ptr::null(), &mut err) };
    cl(err, "clCreateCommandBufferKHR")?;
    struct Release(cts::command_buffer::CommandBuffer, HandleFn);
    impl Drop for Release {
        fn drop(&mut self) {
            unsafe { (self.1)(self.0) };
        }
    }
    let _guard = Release(cb, f.release);
    for _ in 0..COMMANDS {
        cl(
            unsafe {
                (f.nd_range)(
                    cb,
                    ptr::null_mut(),
                    ptr::null(),
                    k.0,
                    1,
                    ptr::null(),
                    &global,
                    ptr::null(),
                    0,
                    ptr::null(),
                    ptr::null_mut(),
                    ptr::null_mut(),
                )
            },
            "clCommandNDRangeKernelKHR",
        )?;
    }
    cl(unsafe { (f.finalize)(cb) }, "clFinalizeCommandBufferKHR")?;
    let record = t_record.elapsed();
    let replay = || -> R<(Duration, Duration)> {
        let t0 = Instant::now();
        cl(
            unsafe { (f.enqueue)(0, ptr::null_mut(), cb, 0, ptr::null(), ptr::null_mut()) },
            "clEnqueueCommandBufferKHR",
        )?;
        let t1 = Instant::now();
        cl(unsafe { clFinish(ctx.queue) }, "clFinish")?;
        Ok((t1 - t0, t0.elapsed()))
    };

    // Warm-ups, then alternate the two kinds so both see the same machine.
    let warm = 3;
    for _ in 0..warm {
        one_by_one()?;
        replay()?;
    }
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        a.push(one_by_one()?);
        b.push(replay()?);
    }
    // Every batch added 1 per launch to every element.
    let got = ctx.read(&data, ITEMS * 4)?;
    let want = (COMMANDS * 2 * (warm + runs)) as i32;
    let ints: Vec<i32> = got
        .chunks_exact(4)
        .map(|c| i32::from_ne_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    if let Some(i) = ints.iter().position(|&x| x != want) {
        return Err(format!("data[{i}] = {} after the batches, expected {want}", ints[i]));
    }
    let split = |v: &[(Duration, Duration)]| {
        (
            median(v.iter().map(|x| x.0).collect()),
            median(v.iter().map(|x| x.1).collect()),
        )
    };
    Ok(Row {
        platform: p.label(),
        one_by_one: split(&a),
        replay: split(&b),
        record,
    })
}

/// The markdown table of the rows.
pub fn table(rows: &[Row], runs: usize, fmt: impl Fn(Duration) -> String) -> String {
    let mut s = format!(
        "{COMMANDS} launches of a {ITEMS}-work-item kernel (`cmdbuf_add.cl`, in-order queue, local size left to the implementation), then clFinish; medians of {runs} batches of each kind, alternated.\n\n"
    );
    s += "| platform | enqueue calls: one by one | command-buffer | host-time ratio | to completion: one by one | command-buffer | ratio | record + finalize once |\n";
    s += "|---|---|---|---|---|---|---|---|\n";
    for r in rows {
        let ratio = |x: Duration, y: Duration| format!("{:.1}x", x.as_secs_f64() / y.as_secs_f64().max(1e-12));
        s += &format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} |\n",
            r.platform,
            fmt(r.one_by_one.0),
            fmt(r.replay.0),
            ratio(r.one_by_one.0, r.replay.0),
            fmt(r.one_by_one.1),
            fmt(r.replay.1),
            ratio(r.one_by_one.1, r.replay.1),
            fmt(r.record)
        );
    }
    s
}
