//! Private variables whose type needs more than 16 bytes of alignment (a `ushort16` or
//! `double4` member: 32 bytes; `long8`: 64) sit at addresses that are multiples of it
//! (OpenCL C 6.3.5), on the one-work-item path and on the four-work-item vector path. The
//! Khronos CTS's vectors/vec_align_struct checks the same; Cranelift itself aligns its frames to
//! 16 bytes only. Kernel: kernels/source/private_alignment.cl.

use cts::*;

#[test]
fn private_members_are_aligned_to_their_vector_size() {
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("private_alignment.cl", "-cl-std=CL1.2");
    let k = p.kernel("private_member_addresses");
    // 1 work-item (the scalar loop) and 64 (work-groups the vector loop runs four at a time).
    for n in [1usize, 64] {
        let out = ctx.buffer(n * 4 * 8);
        k.arg_mem(0, &out);
        k.arg(1, &3i32);
        q.run(&k, &[], &[n], &[]);
        let got = from_bytes::<u64>(&q.read(&out, 0, n * 4 * 8));
        for (i, w) in got.chunks(4).enumerate() {
            assert_eq!(&w[..3], &[0, 0, 0], "work-item {i} of {n}: address remainders");
            assert_eq!(w[3], 9, "work-item {i} of {n}: the stored values");
        }
    }
}
