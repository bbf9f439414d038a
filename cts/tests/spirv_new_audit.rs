//! Regressions found by auditing Clift against the Khronos CTS `spirv_new` suite. Every kernel
//! is hand-written SPIR-V under kernels/ and every result is checked against a host reference.
//!
//! - kernels/nonsemantic.spvasm: SPV_KHR_non_semantic_info, "NonSemantic." instruction sets
//!   whose OpExtInst appear among the module's globals and inside a function (the CTS test
//!   extinstimport_nonsemantic builds such a module and runs it).

use cts::*;

fn spirv(name: &str) -> Vec<u8> {
    let text = kernel_text(&format!("{name}.spvasm"));
    let opts = jit::spirv::AsmOptions {
        version: spvasm_version(&text),
        ..Default::default()
    };
    let words = jit::spirv::assemble(&text, opts).unwrap_or_else(|e| panic!("assemble {name}.spvasm: {e:?}"));
    jit::spirv::words_to_bytes(&words)
}

#[test]
fn non_semantic_instructions_are_ignored() {
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = ctx.built_program("nonsemantic", &spirv("nonsemantic"));
    let input: Vec<u32> = from_bytes::<u32>(&pattern(4 * 257, 11));
    let n = input.len();
    let bi = ctx.buffer_from(as_bytes(&input));
    let bo = ctx.buffer(4 * n);
    let k = prog.kernel("scale_add");
    k.arg_mem(0, &bi);
    k.arg_mem(1, &bo);
    q.run(&k, &[], &[n], &[]);
    let got: Vec<u32> = from_bytes(&q.read(&bo, 0, 4 * n));
    for (i, (&x, &g)) in input.iter().zip(&got).enumerate() {
        assert_eq!(g, x.wrapping_mul(3).wrapping_add(7), "item {i} (input {x:#x})");
    }
}
