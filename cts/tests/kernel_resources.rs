//! Kernels that need a lot of private memory (kernels/source/private_mem.cl): a 16 MB array
//! per work-item runs and gives the right values; one too large for the device's threads is
//! refused with CL_OUT_OF_RESOURCES at enqueue. Neither may take the host process down.

use cts::*;

fn run_with(n: usize) -> Result<Vec<f32>, cl_int> {
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = ctx.built_source("private_mem.cl", &format!("-D N={n}"));
    let k = prog.kernel("fill");
    let out = ctx.buffer(4 * 4);
    k.arg_mem(0, &out);
    let pick: i32 = 7;
    k.arg(1, &pick);
    let err = q.try_nd_range(&k, &[], &[4], &[1]);
    if err != CL_SUCCESS {
        return Err(err);
    }
    q.finish();
    Ok(from_bytes(&q.read(&out, 0, 16)))
}

#[test]
fn large_private_arrays_run() {
    if !isolate("large_private_arrays_run") {
        return;
    }
    // 4 Mi floats = 16 MiB per work-item, far beyond a default 2 MiB thread stack.
    let got = run_with(4 << 20).expect("enqueue");
    assert_eq!(got, vec![7.0, 8.0, 9.0, 10.0]);
}

#[test]
fn private_memory_beyond_the_threads_is_refused() {
    if !isolate("private_memory_beyond_the_threads_is_refused") {
        return;
    }
    // 64 Mi floats = 256 MiB per work-item.
    assert_eq!(run_with(64 << 20).err(), Some(CL_OUT_OF_RESOURCES));
}
