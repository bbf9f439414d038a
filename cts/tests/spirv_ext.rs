//! SPIR-V 1.6 and the SPIR-V extensions behind cl_khr_extended_bit_ops (SPV_KHR_bit_instructions),
//! cl_khr_integer_dot_product (SPV_KHR_integer_dot_product, core in 1.6), cl_khr_expect_assume
//! (SPV_KHR_expect_assume), cl_khr_kernel_clock (SPV_KHR_shader_clock) and cl_ext_float_atomics
//! (SPV_EXT_shader_atomic_float_add / _min_max), from kernels/spirv_ext.spvasm (a SPIR-V 1.6
//! module). Every result is checked against a host reference written from the instruction's
//! definition; bad modules (an extension the device does not take, an instruction without its
//! capability) fail to build with a log that names what is missing.

use cts::*;

fn assemble(text: &str) -> Vec<u8> {
    let opts = jit::spirv::AsmOptions {
        version: spvasm_version(text),
        ..Default::default()
    };
    let words = jit::spirv::assemble(text, opts).unwrap_or_else(|e| panic!("assemble: {e:?}"));
    jit::spirv::words_to_bytes(&words)
}

fn program(ctx: &Context) -> Program {
    ctx.built_program("spirv_ext", &assemble(&kernel_text("spirv_ext.spvasm")))
}

/// A reproducible stream of 32-bit values (xorshift), with the edge bytes mixed in.
fn values(n: usize, seed: u32) -> Vec<u32> {
    let mut s = seed | 1;
    let edges = [0u32, 0xffff_ffff, 0x8080_8080, 0x7f7f_7f7f, 0x80ff_7f01, 0x0000_0080];
    (0..n)
        .map(|i| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            if i % 7 == 0 {
                edges[(i / 7) % edges.len()]
            } else {
                s
            }
        })
        .collect()
}

#[test]
fn device_reports_spirv_1_6_and_the_extensions() {
    let il = device_string(CL_DEVICE_IL_VERSION);
    assert!(il.split(' ').any(|v| v == "SPIR-V_1.6"), "CL_DEVICE_IL_VERSION: {il}");
    let ext = device_string(CL_DEVICE_EXTENSIONS);
    for e in [
        "cl_khr_expect_assume",
        "cl_khr_spirv_no_integer_wrap_decoration",
        "cl_khr_spirv_linkonce_odr",
    ] {
        assert!(
            ext.split(' ').any(|x| x == e),
            "{e} missing from CL_DEVICE_EXTENSIONS: {ext}"
        );
    }
}

#[test]
fn bit_field_insert_extract_reverse() {
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = program(&ctx);
    let n = 256; // offsets 0..15 with counts 0..15
    let a = values(n, 0x1234_5678);
    let b = values(n, 0x9abc_def1);
    let ba = ctx.buffer_from(as_bytes(&a));
    let bb = ctx.buffer_from(as_bytes(&b));
    let bout = ctx.buffer(n * 16);
    let k = prog.kernel("bitfield");
    k.arg_mem(0, &bout);
    k.arg_mem(1, &ba);
    k.arg_mem(2, &bb);
    q.run(&k, &[], &[n], &[]);
    let out: Vec<u32> = from_bytes(&q.read(&bout, 0, n * 16));
    for i in 0..n {
        let (off, cnt) = ((i & 15) as u32, ((i >> 4) & 15) as u32);
        let low = ((1u64 << cnt) - 1) as u32;
        let mask = low << off;
        let insert = (a[i] & !mask) | ((b[i] << off) & mask);
        let field = (a[i] >> off) & low;
        let negative = cnt > 0 && (field >> (cnt - 1)) & 1 == 1;
        let sext = if negative { field | !low } else { field };
        let want = [insert, sext, field, a[i].reverse_bits()];
        assert_eq!(
            &out[4 * i..4 * i + 4],
            &want,
            "a {:#x} b {:#x} offset {off} count {cnt}: insert, sextract, uextract, reverse",
            a[i],
            b[i]
        );
    }
}

#[test]
fn integer_dot_products_packed_and_vector_with_saturation() {
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = program(&ctx);
    let n = 512;
    let a = values(n, 0x0bad_cafe);
    let b = values(n, 0x5eed_1234);
    // Accumulators near both ends of the signed and unsigned ranges, and random ones.
    let edges = [0x7fff_ff00u32, 0x8000_0100, 0xffff_ff00, 0x7fff_ffff, 0x8000_0000, 5];
    let acc: Vec<u32> = values(n, 0x4242_4242)
        .iter()
        .enumerate()
        .map(|(i, v)| if i % 3 == 0 { edges[(i / 3) % edges.len()] } else { *v })
        .collect();
    let (ba, bb, bc) = (
        ctx.buffer_from(as_bytes(&a)),
        ctx.buffer_from(as_bytes(&b)),
        ctx.buffer_from(as_bytes(&acc)),
    );
    let bout = ctx.buffer(n * 24);
    let k = prog.kernel("dot");
    k.arg_mem(0, &bout);
    k.arg_mem(1, &ba);
    k.arg_mem(2, &bb);
    k.arg_mem(3, &bc);
    q.run(&k, &[], &[n], &[]);
    let out: Vec<u32> = from_bytes(&q.read(&bout, 0, n * 24));
    for i in 0..n {
        let (x, y) = (a[i].to_le_bytes(), b[i].to_le_bytes());
        let sdot: i64 = (0..4).map(|j| x[j] as i8 as i64 * y[j] as i8 as i64).sum();
        let udot: i64 = (0..4).map(|j| x[j] as i64 * y[j] as i64).sum();
        let sudot: i64 = (0..4).map(|j| x[j] as i8 as i64 * y[j] as i64).sum();
        let sat_s = |d: i64| (d + acc[i] as i32 as i64).clamp(i32::MIN as i64, i32::MAX as i64) as i32 as u32;
        let sat_u = (udot + acc[i] as i64).min(u32::MAX as i64) as u32;
        let want = [sdot as u32, udot as u32, sudot as u32, sat_s(sdot), sat_u, sat_s(sudot)];
        assert_eq!(
            &out[6 * i..6 * i + 6],
            &want,
            "a {:#010x} b {:#010x} acc {:#010x}: sdot, udot, sudot, sdot_acc_sat, udot_acc_sat, sudot_acc_sat",
            a[i],
            b[i],
            acc[i]
        );
    }
}

#[test]
fn expect_and_assume_leave_values_alone() {
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = program(&ctx);
    let n = 100;
    let a: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(0x0101_0101)).collect();
    let ba = ctx.buffer_from(as_bytes(&a));
    let bout = ctx.buffer(n * 4);
    let k = prog.kernel("expect");
    k.arg_mem(0, &bout);
    k.arg_mem(1, &ba);
    q.run(&k, &[], &[n], &[]);
    let out: Vec<u32> = from_bytes(&q.read(&bout, 0, n * 4));
    let want: Vec<u32> = a.iter().map(|v| v.wrapping_add(1)).collect();
    assert_eq!(out, want);
}

#[test]
fn clock_reads_never_go_backwards() {
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = program(&ctx);
    let n = 64;
    let bout = ctx.buffer(n * 32);
    let k = prog.kernel("clock");
    k.arg_mem(0, &bout);
    q.run(&k, &[], &[n], &[16]);
    let first: Vec<u64> = from_bytes(&q.read(&bout, 0, n * 32));
    for (i, t) in first.chunks(4).enumerate() {
        assert!(
            t[0] <= t[1] && t[1] <= t[2] && t[2] <= t[3],
            "work-item {i}: device, work-group, sub-group, device (uint2) reads {t:?}"
        );
    }
    // A later launch reads later times (the device clock is one counter).
    q.run(&k, &[], &[n], &[16]);
    let second: Vec<u64> = from_bytes(&q.read(&bout, 0, n * 32));
    let last_first = first.iter().max().copied().unwrap_or(0);
    assert!(
        second.iter().all(|t| *t >= last_first),
        "second launch read earlier times"
    );
}

/// v: small integers (exact sums) of both signs.
fn float_values(n: usize) -> Vec<f32> {
    (0..n).map(|i| ((i * 37) % 101) as f32 - 50.0).collect()
}

#[test]
fn float_atomic_add_min_max_global() {
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = program(&ctx);
    let n = 4096;
    let v = float_values(n);
    for local in [64usize, 4096] {
        let acc = ctx.buffer_from(as_bytes(&[0.0f32, f32::INFINITY, f32::NEG_INFINITY]));
        let bv = ctx.buffer_from(as_bytes(&v));
        let k = prog.kernel("fatomic_global");
        k.arg_mem(0, &acc);
        k.arg_mem(1, &bv);
        q.run(&k, &[], &[n], &[local]);
        let got: Vec<f32> = from_bytes(&q.read(&acc, 0, 12));
        let sum: f32 = v.iter().sum();
        let min = v.iter().copied().fold(f32::INFINITY, f32::min);
        let max = v.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        assert_eq!(got, vec![sum, min, max], "local size {local}: sum, min, max");
    }
}

#[test]
fn float_atomic_add_min_max_local() {
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = program(&ctx);
    let (groups, local) = (8usize, 64usize);
    let n = groups * local;
    let v = float_values(n);
    let bv = ctx.buffer_from(as_bytes(&v));
    let bout = ctx.buffer(groups * 12);
    let k = prog.kernel("fatomic_local");
    k.arg_mem(0, &bout);
    k.arg_mem(1, &bv);
    k.arg_local(2, 12);
    q.run(&k, &[], &[n], &[local]);
    let got: Vec<f32> = from_bytes(&q.read(&bout, 0, groups * 12));
    for (g, chunk) in v.chunks(local).enumerate() {
        let sum: f32 = chunk.iter().sum();
        let min = chunk.iter().copied().fold(f32::INFINITY, f32::min);
        let max = chunk.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        assert_eq!(&got[3 * g..3 * g + 3], &[sum, min, max], "group {g}: sum, min, max");
    }
}

#[test]
fn double_atomic_add_returns_a_chain_of_old_values() {
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = program(&ctx);
    let n = 2048;
    let v: Vec<f64> = (0..n).map(|i| (i + 1) as f64).collect();
    let acc = ctx.buffer_from(as_bytes(&[0.0f64, f64::INFINITY, f64::NEG_INFINITY]));
    let bv = ctx.buffer_from(as_bytes(&v));
    let k = prog.kernel("datomic_global");
    k.arg_mem(0, &acc);
    k.arg_mem(1, &bv);
    q.run(&k, &[], &[n], &[32]);
    let got: Vec<f64> = from_bytes(&q.read(&acc, 0, 24));
    let total: f64 = v.iter().sum();
    assert_eq!(got, vec![total, 1.0, n as f64], "sum, min, max");
    // Every old value is the sum of the values added before it: sorted, they step by the
    // added values, and together with the final sum they account for each value once.
    let mut old: Vec<f64> = from_bytes(&q.read(&bv, 0, n * 8));
    old.sort_by(f64::total_cmp);
    assert_eq!(old[0], 0.0);
    old.push(total);
    let mut steps: Vec<f64> = old.windows(2).map(|w| w[1] - w[0]).collect();
    steps.sort_by(f64::total_cmp);
    assert_eq!(steps, v, "steps between old values");
}

/// A module that declares `extension` and, optionally, uses an instruction.
fn module_with(capabilities: &str, extension: &str, body: &str) -> String {
    format!(
        "; Version: 1.6
               OpCapability Addresses
               OpCapability Kernel
{capabilities}
               OpExtension \"{extension}\"
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %k \"k\"
       %void = OpTypeVoid
       %uint = OpTypeInt 32 0
     %u_1 = OpConstant %uint 1
         %fn = OpTypeFunction %void
          %k = OpFunction %void None %fn
          %l = OpLabel
{body}
               OpReturn
               OpFunctionEnd
"
    )
}

fn build_log_of_failure(ctx: &Context, text: &str) -> String {
    let p = ctx.program_il(&assemble(text));
    let err = p.build("");
    assert_eq!(err, CL_BUILD_PROGRAM_FAILURE, "the module built: {text}");
    p.build_log()
}

#[test]
fn unknown_extension_is_rejected_by_name() {
    let ctx = Context::new();
    let log = build_log_of_failure(&ctx, &module_with("", "SPV_KHR_not_a_real_extension", ""));
    assert!(log.contains("SPV_KHR_not_a_real_extension"), "log: {log}");
    // An extension Clift knows but does not take (no cl_khr_fp16 atomics).
    let log = build_log_of_failure(&ctx, &module_with("", "SPV_EXT_shader_atomic_float16_add", ""));
    assert!(log.contains("SPV_EXT_shader_atomic_float16_add"), "log: {log}");
}

#[test]
fn extension_instructions_need_their_capability() {
    let ctx = Context::new();
    let text = module_with(
        "",
        "SPV_KHR_bit_instructions",
        "          %r = OpBitFieldUExtract %uint %u_1 %u_1 %u_1",
    );
    let log = build_log_of_failure(&ctx, &text);
    assert!(log.contains("BitInstructions"), "log: {log}");
    let text = module_with(
        "               OpCapability ShaderClockKHR",
        "SPV_KHR_shader_clock",
        "          %r = OpReadClockKHR %uint %u_1",
    );
    // A 32-bit scalar clock is neither a 64-bit scalar nor a two-component vector.
    let p = ctx.program_il(&assemble(&text));
    assert_ne!(p.build(""), CL_SUCCESS, "OpReadClockKHR with a uint result built");
}

#[test]
fn kernel_clock_from_opencl_c() {
    let ext = device_string(CL_DEVICE_EXTENSIONS);
    assert!(ext.split(' ').any(|x| x == "cl_khr_kernel_clock"), "{ext}");
    let caps: cl_ulong = device_info(CL_DEVICE_KERNEL_CLOCK_CAPABILITIES_KHR);
    assert_eq!(
        caps,
        CL_DEVICE_KERNEL_CLOCK_SCOPE_DEVICE_KHR | CL_DEVICE_KERNEL_CLOCK_SCOPE_WORK_GROUP_KHR
    );
    let ctx = Context::new();
    let q = ctx.queue();
    let src = ctx.program_source(&kernel_text("kernel_clock.cl"));
    let err = src.build("-cl-std=CL3.0");
    assert_eq!(
        err,
        CL_SUCCESS,
        "kernel_clock.cl: {}\n{}",
        err_name(err),
        src.build_log()
    );
    let n = 32;
    let bout = ctx.buffer(n * 32);
    let k = src.kernel("clocks");
    k.arg_mem(0, &bout);
    q.run(&k, &[], &[n], &[8]);
    let t: Vec<u64> = from_bytes(&q.read(&bout, 0, n * 32));
    for (i, r) in t.chunks(4).enumerate() {
        assert!(r.windows(2).all(|w| w[0] <= w[1]), "work-item {i}: {r:?}");
    }
}
