//! `__local` variables belong to the kernel that declares them: in a program whose kernels
//! each declare 40 KB of local arrays (kernels/source/local_per_kernel.cl), every kernel
//! fits the device's local memory on its own and runs, although all of them together would
//! not fit; CL_KERNEL_LOCAL_MEM_SIZE reports each kernel's own bytes; two arrays of one
//! kernel do not overlap.

use cts::*;

const WORDS: usize = 10240;
const GROUPS: usize = 4;

#[test]
fn each_kernel_gets_its_own_local_arrays() {
    let local_mem: cl_ulong = device_info(CL_DEVICE_LOCAL_MEM_SIZE);
    assert!(
        local_mem >= (WORDS * 4) as cl_ulong && local_mem < (2 * WORDS * 4) as cl_ulong,
        "the kernels are sized for a local memory of 40 to 80 KB, not {local_mem} bytes"
    );
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = ctx.built_source("local_per_kernel.cl", "");
    let out = ctx.buffer(4 * WORDS * GROUPS);
    for (name, mul, add) in [("reverse_a", 3u32, 1u32), ("reverse_b", 7, 5)] {
        let k = prog.kernel(name);
        let lm: cl_ulong = k.work_group_info(CL_KERNEL_LOCAL_MEM_SIZE);
        assert!(
            lm >= (4 * WORDS) as cl_ulong && lm <= local_mem,
            "CL_KERNEL_LOCAL_MEM_SIZE of {name} = {lm}"
        );
        k.arg_mem(0, &out);
        let err = q.try_nd_range(&k, &[], &[64 * GROUPS], &[64]);
        assert_eq!(err, CL_SUCCESS, "{name} did not run");
        let got: Vec<u32> = from_bytes(&q.read(&out, 0, 4 * WORDS * GROUPS));
        for g in 0..GROUPS {
            for i in 0..WORDS {
                let want = mul * (WORDS - 1 - i) as u32 + add;
                assert_eq!(got[g * WORDS + i], want, "{name}: group {g}, element {i}");
            }
        }
    }
    let k = prog.kernel("two_arrays");
    let lm: cl_ulong = k.work_group_info(CL_KERNEL_LOCAL_MEM_SIZE);
    assert!(
        lm >= (4 * WORDS) as cl_ulong && lm <= local_mem,
        "CL_KERNEL_LOCAL_MEM_SIZE of two_arrays = {lm}"
    );
    k.arg_mem(0, &out);
    q.run(&k, &[], &[32 * GROUPS], &[32]);
    let half = WORDS / 2;
    let got: Vec<u32> = from_bytes(&q.read(&out, 0, 4 * half * GROUPS));
    for g in 0..GROUPS {
        for i in 0..half {
            let want = (i as u32) ^ !((half - 1 - i) as u32);
            assert_eq!(got[g * half + i], want, "two_arrays: group {g}, element {i}");
        }
    }
}
