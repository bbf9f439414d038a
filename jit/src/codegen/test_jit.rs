//! Test support: small functions of generated code, compiled for the host and called from
//! Rust, to check a code generator module's output value by value.

use cranelift_codegen::ir::{types, AbiParam, InstBuilder, MemFlagsData, Type, Value};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{Linkage, Module};

/// `fn(src, dst)` of the host ABI: loads one value of its type from `src`, stores one to `dst`.
pub type Unary = extern "C" fn(*const u8, *mut u8);

/// `count` functions optimized for speed, function `i` loading a value of type `t` and storing
/// `body(i, module, builder, value)`; `symbols` are the Rust functions the bodies may import.
/// The module must outlive the calls.
pub fn unary_functions(
    t: Type,
    symbols: &[(&str, *const u8)],
    count: usize,
    mut body: impl FnMut(usize, &mut JITModule, &mut FunctionBuilder, Value) -> Value,
) -> (JITModule, Vec<Unary>) {
    functions(symbols, count, |i, jit, b, src| {
        let x = b.ins().load(t, MemFlagsData::new(), src, 0);
        body(i, jit, b, x)
    })
}

/// As [`unary_functions`], but `body(i, module, builder, src)` loads what it needs from `src`.
pub fn functions(
    symbols: &[(&str, *const u8)],
    count: usize,
    mut body: impl FnMut(usize, &mut JITModule, &mut FunctionBuilder, Value) -> Value,
) -> (JITModule, Vec<Unary>) {
    let mut flags = settings::builder();
    flags.set("opt_level", "speed").unwrap();
    let isa = cranelift_native::builder()
        .unwrap()
        .finish(settings::Flags::new(flags))
        .unwrap();
    let mut jb = JITBuilder::with_isa(isa, cranelift_module::default_libcall_names());
    for (name, f) in symbols {
        jb.symbol(*name, *f);
    }
    let mut jit = JITModule::new(jb);
    let mut sig = jit.make_signature();
    sig.params.push(AbiParam::new(types::I64));
    sig.params.push(AbiParam::new(types::I64));
    let mut ids = Vec::new();
    for i in 0..count {
        let id = jit.declare_function(&format!("f{i}"), Linkage::Local, &sig).unwrap();
        let mut ctx = jit.make_context();
        ctx.func.signature = sig.clone();
        let mut fbc = FunctionBuilderContext::new();
        let cfg = jit.target_config();
        let mut b = FunctionBuilder::new(&mut ctx.func, &mut fbc);
        let block = b.create_block();
        b.append_block_params_for_function_params(block);
        b.switch_to_block(block);
        let [src, dst] = b.block_params(block).try_into().unwrap();
        let y = body(i, &mut jit, &mut b, src);
        b.ins().store(MemFlagsData::new(), y, dst, 0);
        b.ins().return_(&[]);
        b.seal_all_blocks();
        b.finalize(cfg);
        jit.define_function(id, &mut ctx).unwrap();
        ids.push(id);
    }
    jit.finalize_definitions().unwrap();
    let fs = ids
        .iter()
        // SAFETY: each function has the signature (i64, i64) -> () of the system ABI.
        .map(|id| unsafe { std::mem::transmute::<*const u8, Unary>(jit.get_finalized_function(*id)) })
        .collect();
    (jit, fs)
}

/// |got - want| in ulps of the double `want` (the ulp of a subnormal is 2^-1074); 0 for
/// NaN against NaN and for equal infinities, infinity for any other special value.
pub fn ulps_f64(got: f64, want: f64) -> f64 {
    if want.is_nan() || got.is_nan() || want.is_infinite() || got.is_infinite() {
        let same = got == want || (got.is_nan() && want.is_nan());
        return if same { 0.0 } else { f64::INFINITY };
    }
    let e = (want.abs().log2().floor() as i64).max(-1022) - 52;
    // 2^e (powi's reciprocal of 2^-e would overflow below 2^-1023).
    let ulp = if e >= -1022 {
        f64::from_bits(((e + 1023) as u64) << 52)
    } else {
        f64::from_bits(1 << (e + 1074))
    };
    ((got - want) / ulp).abs()
}

/// `extremes`, then `random` 32-bit values of every magnitude (xorshift from `seed`, each
/// shifted right by a varying amount).
pub fn u32_values(extremes: &[u32], random: usize, seed: u64) -> Vec<u32> {
    let mut vs = extremes.to_vec();
    let mut s = seed;
    for _ in 0..random {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        vs.push((s >> (s % 29)) as u32);
    }
    vs
}

/// Every pair `(x, y)` of `vs` through `f`, four pairs a call (the four `x` lanes at `src`, the
/// four `y` lanes 16 bytes on, four 32-bit results), and `check(x, y, result)` for each.
pub fn each_pair_in_four_lanes(f: Unary, vs: &[u32], mut check: impl FnMut(u32, u32, u32)) {
    let pairs: Vec<(u32, u32)> = vs.iter().flat_map(|x| vs.iter().map(move |y| (*x, *y))).collect();
    for chunk in pairs.chunks(4) {
        let mut src = [0u32; 8];
        for (l, (x, y)) in chunk.iter().enumerate() {
            (src[l], src[4 + l]) = (*x, *y);
        }
        let mut got = [0u32; 4];
        f(src.as_ptr() as *const u8, got.as_mut_ptr() as *mut u8);
        for (l, (x, y)) in chunk.iter().enumerate() {
            check(*x, *y, got[l]);
        }
    }
}
