//! OpenCL vectors in SPIR-V (issue 15): a small float4 kernel runs with the expected results,
//! and broken variants (a swizzle or shuffle component out of range, a component index out of
//! range, a vector of an unsupported width) are validation errors naming the instruction,
//! never a crash in the code generator.

use jit::abi::{ArgKind, WorkGroupContext};
use jit::spirv::{self, AsmOptions, DeviceFeatures};
use jit::{compile, CompileOptions};

const TEXT: &str = include_str!("kernels/vector_ops.spvasm");

fn module(text: &str) -> jit::spirv::Module {
    let w = spirv::assemble(
        text,
        AsmOptions {
            version: (1, 4),
            preserve_numeric_ids: false,
        },
    )
    .expect("assemble");
    spirv::parse(&spirv::words_to_bytes(&w)).expect("parse")
}

fn variant(from: &str, to: &str) -> String {
    assert!(TEXT.contains(from), "template lacks {from:?}");
    TEXT.replacen(from, to, 1)
}

fn rejects(text: &str, fragments: &[&str]) {
    let m = module(text);
    let e = spirv::validate(&m, &DeviceFeatures::default()).expect_err("module should be rejected");
    let s = e.to_string();
    for f in fragments {
        assert!(s.contains(f), "message {s:?} lacks {f:?}");
    }
}

#[test]
fn float4_kernel_runs() {
    let m = module(TEXT);
    spirv::validate(&m, &DeviceFeatures::default()).expect("valid");
    let p = compile(&m, &CompileOptions::default()).expect("compile");
    let k = p.kernel("k").expect("kernel");
    let mut a: Vec<[f32; 4]> = (0..4)
        .map(|i| [i as f32, 1.5 + i as f32, -2.0, 0.25 * i as f32])
        .collect();
    let mut o = vec![[0f32; 4]; 4];
    let mut block = vec![0u64; k.args_size.div_ceil(8).max(1)];
    let ptrs = [a.as_mut_ptr() as u64, o.as_mut_ptr() as u64];
    for (ka, p) in k.args.iter().zip(ptrs) {
        assert_eq!(ka.kind, ArgKind::Global);
        block[ka.offset / 8] = p;
    }
    let mut arena = vec![0u128; jit::abi::LOCAL_ARENA_BYTES.div_ceil(16) + 1];
    let ctx = WorkGroupContext {
        work_dim: 1,
        host_shared: 0,
        global_offset: [0; 3],
        global_size: [1, 1, 1],
        local_size: [1, 1, 1],
        enqueued_local_size: [1, 1, 1],
        num_groups: [1, 1, 1],
        group_id: [0; 3],
        local_mem: arena.as_mut_ptr() as *mut u8,
        printf: std::ptr::null_mut(),
    };
    // SAFETY: the kernel reads a[0] and writes o[0] (one work-item), both 16 bytes.
    unsafe { k.run_group(block.as_ptr() as *const u8, &ctx) };
    // Host reference, in the kernel's order.
    let x = a[0];
    let y = x.map(|v| v * v);
    let z = [x[3], x[2], y[1], y[0]];
    let mut w = z;
    w[0] = z[1] + 2.0;
    let s: Vec<f32> = (0..4).map(|i| w[i] + y[i]).collect();
    let want: Vec<u32> = (0..4).map(|i| s[i].mul_add(x[i], y[i]).to_bits()).collect();
    let got: Vec<u32> = o[0].iter().map(|v| v.to_bits()).collect();
    assert_eq!(got, want);
}

#[test]
fn shuffle_component_out_of_range() {
    rejects(
        &variant("%x %y 3 2 5 4", "%x %y 3 2 5 8"),
        &["OpVectorShuffle", "Component 3 is 8"],
    );
}

#[test]
fn shuffle_with_too_few_components() {
    rejects(
        &variant("%x %y 3 2 5 4", "%x %y 3 2 5"),
        &["OpVectorShuffle", "3 Components"],
    );
}

#[test]
fn extract_component_out_of_range() {
    rejects(
        &variant("OpCompositeExtract %float %z 1", "OpCompositeExtract %float %z 4"),
        &["OpCompositeExtract", "index"],
    );
}

#[test]
fn insert_component_out_of_range() {
    rejects(
        &variant("OpCompositeInsert %float4 %f %z 0", "OpCompositeInsert %float4 %f %z 7"),
        &["OpCompositeInsert", "index"],
    );
}

#[test]
fn unsupported_vector_widths() {
    for n in [0u32, 1, 5, 6, 7, 9, 12, 32] {
        rejects(
            &variant(
                "%float4 = OpTypeVector %float 4",
                &format!("%float4 = OpTypeVector %float {n}"),
            ),
            &["OpTypeVector", &format!("vector of {n} components")],
        );
    }
}

#[test]
fn vector_of_vectors() {
    rejects(
        &variant(
            "%float4 = OpTypeVector %float 4",
            "%f2 = OpTypeVector %float 2\n%float4 = OpTypeVector %f2 4",
        ),
        &["OpTypeVector", "not a scalar type"],
    );
}
