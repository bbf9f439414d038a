//! Control flow, composites, memory and work-item built-ins: OpSwitch, loops with OpPhi,
//! break/continue, non-inlined calls, private arrays, program-scope constant data, swizzles
//! (OpVectorShuffle), construct/insert/extract, OpAny/OpAll, structs by value, generic pointers,
//! OpPtrDiff/OpPtrEqual/OpPtrNotEqual/OpCopyMemorySized (kernels/ptrs.spvasm), and every
//! work-item built-in over 1-3 dimensional ND-ranges with offsets and non-uniform work-groups.
//! Kernels: kernels/control.cl, kernels/struct_arg.cl, kernels/generic.cl,
//! kernels/workitem.cl (-> .spvasm), kernels/ptrs.spvasm.

use cts::*;

mod spirv_asm;
use spirv_asm::spirv;

const TABLE: [i32; 8] = [3, -1, 4, 1, -5, 9, 2, -6];

fn classify(v: i32) -> i32 {
    match v {
        0 => 10,
        1 => 2, // case 1 falls through into case 2: r = v * 2
        2 => 4,
        5 => -5,
        -6 | 70 => TABLE[(v & 7) as usize],
        1000 => 3,
        _ => 99,
    }
}

fn collatz(mut v: u32) -> i32 {
    let mut n = 0;
    while v > 1 && n < 1000 {
        v = if v & 1 == 1 { 3 * v + 1 } else { v / 2 };
        n += 1;
    }
    n
}

#[test]
fn control_flow_matches_host() {
    if !isolate("control_flow_matches_host") {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = ctx.built_program("control", &spirv("control"));
    let mut a: Vec<i32> = vec![0, 1, 2, 3, 4, 5, -6, 70, 1000, -1, 31, 27, 100, -100, 7, 1 << 20];
    a.extend(from_bytes::<i32>(&pattern(4 * 40, 3)).iter().map(|v| v % 5000));
    let n = a.len();
    let ba = ctx.buffer_from(as_bytes(&a));
    let bo = ctx.buffer(n * 16);
    let k = prog.kernel("flow");
    k.arg_mem(0, &ba);
    k.arg_mem(1, &bo);
    q.run(&k, &[], &[n], &[]);
    let o: Vec<i32> = from_bytes(&q.read(&bo, 0, n * 16));
    for (i, &v) in a.iter().enumerate() {
        let mut acc = 0i32;
        for j in 0..(v & 31) {
            if j % 3 == 2 {
                continue;
            }
            if j * j > 200 {
                break;
            }
            acc += j * TABLE[(j & 7) as usize];
        }
        let arr: Vec<i32> = (0..16)
            .map(|k| v.wrapping_mul(k).wrapping_add(TABLE[(k & 7) as usize]))
            .collect();
        let want = [
            classify(v),
            acc,
            collatz(v as u32 & 1023),
            arr[(v & 15) as usize].wrapping_add(arr[((v >> 4) & 15) as usize]),
        ];
        assert_eq!(&o[i * 4..i * 4 + 4], &want, "flow(a = {v})");
    }
}

#[test]
fn composites_and_swizzles_match_host() {
    if !isolate("composites_and_swizzles_match_host") {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = ctx.built_program("control", &spirv("control"));
    let a: Vec<[f32; 4]> = (0..23)
        .map(|i| {
            let f = i as f32;
            [f - 5.0, 2.5 * f - 20.0, 30.0 - f * 1.5, f * f - 100.0]
        })
        .collect();
    let n = a.len();
    let ba = ctx.buffer_from(as_bytes(&a));
    let bo = ctx.buffer(n * 32);
    let bp = ctx.buffer(n * 16);
    let k = prog.kernel("swizzle");
    k.arg_mem(0, &ba);
    k.arg_mem(1, &bo);
    k.arg_mem(2, &bp);
    q.run(&k, &[], &[n], &[]);
    let o: Vec<[f32; 8]> = from_bytes(&q.read(&bo, 0, n * 32));
    let p: Vec<[i32; 4]> = from_bytes(&q.read(&bp, 0, n * 16));
    for (i, v) in a.iter().enumerate() {
        let w = [v[3] + v[0], 7.0, v[1] + v[1], v[0] + v[1]];
        let e = [w[0], w[1], w[2], w[3], v[1], v[0], v[2], v[0] * 2.0];
        assert_eq!(o[i], e, "swizzle float8 for {v:?}");
        let any = v.iter().any(|&x| x < 0.0) as i32;
        let all = v.iter().all(|&x| x < 100.0) as i32;
        assert_eq!(
            p[i],
            [any, all, (v[0] < v[1]) as i32, (v[2] < 0.0) as i32],
            "any/all/compare for {v:?}"
        );
    }
}

#[repr(C)]
#[derive(Clone, Copy)]
struct S {
    a: i32,
    b: f32,
    c: i64,
    d: i8,
    e: [i16; 3],
}

#[test]
fn struct_argument_by_value() {
    if !isolate("struct_argument_by_value") {
        return;
    }
    assert_eq!(std::mem::size_of::<S>(), 24);
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = ctx.built_program("struct_arg", &spirv("struct_arg"));
    let s = S {
        a: -7,
        b: 12.75,
        c: 1 << 40,
        d: -3,
        e: [100, -200, 300],
    };
    let bo = ctx.buffer(8 * 8);
    let k = prog.kernel("struct_arg");
    k.arg(0, &s);
    k.arg_mem(1, &bo);
    q.run(&k, &[], &[8], &[]);
    let o: Vec<i64> = from_bytes(&q.read(&bo, 0, 64));
    for (i, &got) in o.iter().enumerate() {
        let want = -7 + 12 + (1i64 << 40) - 3 + 100 - 400 + 900 + i as i64;
        assert_eq!(got, want, "struct_arg item {i}");
    }
}

#[test]
fn generic_pointers_to_private_and_global() {
    if !isolate("generic_pointers_to_private_and_global") {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = ctx.built_program("generic", &spirv("generic"));
    let g: Vec<i32> = (0..50).map(|i| i * 1000).collect();
    let bg = ctx.buffer_from(as_bytes(&g));
    let k = prog.kernel("generic_ptr");
    k.arg_mem(0, &bg);
    q.run(&k, &[], &[50], &[]);
    let o: Vec<i32> = from_bytes(&q.read(&bg, 0, 200));
    for (i, &v) in o.iter().enumerate() {
        assert_eq!(v, i as i32 * 1000 + i as i32 + 100, "generic_ptr item {i}");
    }
}

#[test]
fn pointer_difference_equality_and_copy() {
    if !isolate("pointer_difference_equality_and_copy") {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = ctx.built_program("ptrs", &spirv("ptrs"));
    let n = 6;
    let a: Vec<u32> = (0..n as u32 * 3 + 8).map(|i| 0x1000_0000 + i * 0x01010101).collect();
    let ba = ctx.buffer_from(as_bytes(&a));
    let bo = ctx.buffer(n * 32);
    let k = prog.kernel("ptrs");
    k.arg_mem(0, &ba);
    k.arg_mem(1, &bo);
    q.run(&k, &[], &[n], &[]);
    let o: Vec<i64> = from_bytes(&q.read(&bo, 0, n * 32));
    for i in 0..n {
        let p = 3 * i as i64;
        let copied = a[i] as u64 | (a[i + 1] as u64) << 32;
        assert_eq!(
            &o[i * 4..i * 4 + 4],
            &[p - 5, (p == 5) as i64, (p != 5) as i64, copied as i64],
            "ptrs item {i}"
        );
    }
}

/// Runs workitem.cl's `ids` over an ND-range and checks all 24 values of every work-item.
fn check_ids(ctx: &Context, q: &Queue, prog: &Program, offset: &[usize], global: &[usize], local: &[usize]) {
    let dims = global.len();
    let g3: Vec<usize> = (0..3).map(|d| *global.get(d).unwrap_or(&1)).collect();
    let o3: Vec<usize> = (0..3).map(|d| *offset.get(d).unwrap_or(&0)).collect();
    let total: usize = g3.iter().product();
    let bo = ctx.buffer(total * 24 * 8);
    let k = prog.kernel("ids");
    k.arg_mem(0, &bo);
    q.run(&k, offset, global, local);
    let o: Vec<u64> = from_bytes(&q.read(&bo, 0, total * 24 * 8));
    // The local size used: the given one, or whatever the implementation chose (read back from
    // the first work-item and checked for consistency).
    let l3: Vec<usize> = if local.is_empty() {
        (0..3).map(|d| o[12 + d] as usize).collect()
    } else {
        (0..3).map(|d| *local.get(d).unwrap_or(&1)).collect()
    };
    for d in 0..3 {
        assert!(
            l3[d] >= 1 && l3[d] <= g3[d].max(1),
            "enqueued local size {l3:?} for global {g3:?}"
        );
    }
    for z in 0..g3[2] {
        for y in 0..g3[1] {
            for x in 0..g3[0] {
                let lin = (z * g3[1] + y) * g3[0] + x;
                let r = &o[lin * 24..lin * 24 + 24];
                let rel = [x, y, z];
                let mut want = [0u64; 24];
                for d in 0..3 {
                    let grp = rel[d] / l3[d];
                    let groups = g3[d].div_ceil(l3[d]);
                    let this_local = if grp == groups - 1 && !g3[d].is_multiple_of(l3[d]) {
                        g3[d] % l3[d]
                    } else {
                        l3[d]
                    };
                    want[d] = (rel[d] + o3[d]) as u64;
                    want[3 + d] = (rel[d] % l3[d]) as u64;
                    want[6 + d] = grp as u64;
                    want[9 + d] = this_local as u64;
                    want[12 + d] = l3[d] as u64;
                    want[15 + d] = groups as u64;
                    want[18 + d] = o3[d] as u64;
                }
                want[21] = dims as u64;
                want[22] = lin as u64;
                want[23] = (want[5] * want[10] + want[4]) * want[9] + want[3];
                assert_eq!(
                    r, &want,
                    "work-item ({x},{y},{z}) of global {global:?} local {local:?} offset {offset:?}\n\
                     (gid, lid, group, local size, enqueued, groups, offset, dim, glin, llin)"
                );
            }
        }
    }
}

#[test]
fn work_item_builtins_uniform_ranges() {
    if !isolate("work_item_builtins_uniform_ranges") {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = ctx.built_program("workitem", &spirv("workitem"));
    check_ids(&ctx, &q, &prog, &[], &[64], &[16]);
    check_ids(&ctx, &q, &prog, &[], &[64], &[]);
    check_ids(&ctx, &q, &prog, &[], &[12, 8], &[4, 2]);
    check_ids(&ctx, &q, &prog, &[], &[6, 4, 4], &[3, 2, 2]);
    check_ids(&ctx, &q, &prog, &[], &[5, 3, 2], &[]);
    check_ids(&ctx, &q, &prog, &[], &[1], &[1]);
}

#[test]
fn work_item_builtins_with_global_offset() {
    if !isolate("work_item_builtins_with_global_offset") {
        return;
    }
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = ctx.built_program("workitem", &spirv("workitem"));
    check_ids(&ctx, &q, &prog, &[1000], &[32], &[8]);
    check_ids(&ctx, &q, &prog, &[3, 7], &[8, 6], &[2, 3]);
    check_ids(&ctx, &q, &prog, &[1, 2, 3], &[4, 4, 2], &[2, 2, 2]);
    check_ids(&ctx, &q, &prog, &[5, 0, 9], &[4, 3, 2], &[]);
}

#[test]
fn work_item_builtins_non_uniform_groups() {
    if !isolate("work_item_builtins_non_uniform_groups") {
        return;
    }
    // Issue 3 requires non-uniform work-groups (a smaller last group in each dimension). (PoCL
    // 3.1 does not support them.)
    let nu: cl_bool = device_info(CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT);
    assert_eq!(nu, CL_TRUE, "CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT");
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = ctx.built_program("workitem", &spirv("workitem"));
    check_ids(&ctx, &q, &prog, &[], &[37], &[8]);
    check_ids(&ctx, &q, &prog, &[10], &[37], &[16]);
    check_ids(&ctx, &q, &prog, &[], &[10, 7], &[4, 3]);
    check_ids(&ctx, &q, &prog, &[2, 1, 1], &[5, 7, 3], &[2, 3, 2]);
}
