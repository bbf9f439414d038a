//! Kernels that need a lot of private memory (kernels/source/private_mem.cl): a 16 MB array
//! per work-item runs and gives the right values; one too large for the device's threads is
//! refused with CL_OUT_OF_RESOURCES at enqueue, as is a barrier kernel whose per-work-item
//! state for one group would be too large. None may take the host process down.

use cts::*;

fn run_with(kernel: &str, n: usize, global: usize, local: usize) -> Result<Vec<f32>, cl_int> {
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = ctx.built_source("private_mem.cl", &format!("-D N={n}"));
    let k = prog.kernel(kernel);
    let out = ctx.buffer(4 * global);
    k.arg_mem(0, &out);
    let pick: i32 = 7;
    k.arg(1, &pick);
    let err = q.try_nd_range(&k, &[], &[global], &[local]);
    if err != CL_SUCCESS {
        return Err(err);
    }
    q.finish();
    Ok(from_bytes(&q.read(&out, 0, 4 * global)))
}

fn expected(global: usize) -> Vec<f32> {
    (0..global).map(|i| 7.0 + i as f32).collect()
}

#[test]
fn large_private_arrays_run() {
    if !isolate("large_private_arrays_run") {
        return;
    }
    // 4 Mi floats = 16 MiB per work-item, far beyond a default 2 MiB thread stack.
    assert_eq!(run_with("fill", 4 << 20, 4, 1).expect("enqueue"), expected(4));
}

#[test]
fn private_memory_beyond_the_threads_is_refused() {
    if !isolate("private_memory_beyond_the_threads_is_refused") {
        return;
    }
    // 64 Mi floats = 256 MiB per work-item.
    assert_eq!(run_with("fill", 64 << 20, 4, 1).err(), Some(CL_OUT_OF_RESOURCES));
}

#[test]
fn private_arrays_across_barriers() {
    if !isolate("private_arrays_across_barriers") {
        return;
    }
    // 4 KiB per work-item in groups of 64: fine.
    assert_eq!(run_with("fill_sync", 1024, 256, 64).expect("enqueue"), expected(256));
    // 16 MiB per work-item in groups of 128 would need 2 GiB of per-item state per group.
    assert_eq!(
        run_with("fill_sync", 4 << 20, 256, 128).err(),
        Some(CL_OUT_OF_RESOURCES)
    );
}
