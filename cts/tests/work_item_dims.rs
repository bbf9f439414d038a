//! The work-item functions with a dimension index the kernel reads from an argument: inside
//! the range they answer the launch's sizes, ids and offsets; past the launch's dimensions and
//! past the third (Khronos CTS basic/work_item_functions_out_of_range), 1 for sizes and 0 for
//! ids and offsets (OpenCL C 6.15.1), not another dimension's value.
//! Kernel: kernels/source/work_item_dims.cl.

use cts::*;

#[test]
fn dimension_index_at_run_time() {
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("work_item_dims.cl", "-cl-std=CL3.0");
    let k = p.kernel("dims_at_run_time");
    let global = [6usize, 4, 2];
    let local = [3usize, 2, 1];
    let offset = [5usize, 7, 9];
    for work_dim in 1..=3usize {
        let items: usize = global[..work_dim].iter().product();
        for d in 0..6u32 {
            let out = ctx.buffer(items * 9 * 8);
            k.arg_mem(0, &out);
            k.arg(1, &d);
            q.run(&k, &offset[..work_dim], &global[..work_dim], &local[..work_dim]);
            let got = from_bytes::<u64>(&q.read(&out, 0, items * 9 * 8));
            for (n, w) in got.chunks(9).enumerate() {
                let inside = (d as usize) < work_dim;
                // Work-item n's coordinates, dimension 0 fastest.
                let mut rest = n;
                let mut coord = [0usize; 3];
                for (k, c) in coord.iter_mut().enumerate().take(work_dim) {
                    *c = rest % global[k];
                    rest /= global[k];
                }
                let di = d as usize;
                let want: [u64; 9] = if inside {
                    [
                        work_dim as u64,
                        global[di] as u64,
                        (offset[di] + coord[di]) as u64,
                        local[di] as u64,
                        (coord[di] % local[di]) as u64,
                        (global[di] / local[di]) as u64,
                        (coord[di] / local[di]) as u64,
                        offset[di] as u64,
                        local[di] as u64,
                    ]
                } else {
                    [work_dim as u64, 1, 0, 1, 0, 1, 0, 0, 1]
                };
                assert_eq!(w, want, "work_dim {work_dim}, d {d}, work-item {n}");
            }
        }
    }
}
