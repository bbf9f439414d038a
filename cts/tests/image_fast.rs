//! Image reads through the ICD, bit for bit against Clift's reference image engine
//! (`jit::image`, section 7 of the OpenCL SPIR-V environment): a few formats, each with every
//! sampler (nearest and linear, every addressing mode, normalized or not) and sampler-less
//! reads, at random, edge and out-of-range coordinates. Kernels read through the image's
//! specialised reads (`jit::image::fast`); the reference is the engine's generic entry point
//! on a descriptor of the same texels. NaN components may be any NaN (see the unit test
//! `jit::image::fast_tests`); there are none here, the texels being finite.
//!
//! Kernels: kernels/image_read.cl (-> .spvasm), read_{f,ui,i}_2d, read_f_1da, load_*_2d.

use cts::*;

mod image_engine;
mod spirv_asm;
use image_engine::{same, words, Rng};
use jit::abi::ImageDesc;
use spirv_asm::spirv;
use std::ptr;

/// Coordinates near and outside an image of `size` texels per axis: texel centres and edges,
/// random fractions, and far outside; divided by the size for a normalized sampler.
fn coords(rng: &mut Rng, size: [usize; 2], layers: usize, normalized: bool, n: usize) -> Vec<[f32; 4]> {
    (0..n)
        .map(|_| {
            let mut c = [0f32; 4];
            for (a, &sz) in size.iter().enumerate() {
                let s = sz as f32;
                let v = match rng.next() % 5 {
                    0 => (rng.next() % (2 * sz as u64 + 5)) as f32 * 0.5 - 1.0,
                    1 => rng.unit() * 8.0 * s - 4.0 * s,
                    _ => rng.unit() * (s + 2.0) - 1.0,
                };
                c[a] = if normalized { v / s } else { v };
            }
            if layers > 1 {
                c[1] = (rng.next() % (layers as u64 + 2)) as f32 - 1.0 + rng.unit() * 0.9;
            }
            c
        })
        .collect()
}

struct Case {
    order: cl_channel_order,
    data_type: cl_channel_type,
    /// Bytes per texel.
    elem: usize,
    /// read_imagef (`f`), read_imageui (`ui`) or read_imagei (`i`).
    kind: &'static str,
}

const CASES: [Case; 5] = [
    Case {
        order: CL_RGBA,
        data_type: CL_UNORM_INT8,
        elem: 4,
        kind: "f",
    },
    Case {
        order: CL_BGRA,
        data_type: CL_UNORM_INT8,
        elem: 4,
        kind: "f",
    },
    Case {
        order: CL_R,
        data_type: CL_FLOAT,
        elem: 4,
        kind: "f",
    },
    Case {
        order: CL_RG,
        data_type: CL_HALF_FLOAT,
        elem: 4,
        kind: "f",
    },
    Case {
        order: CL_RGBA,
        data_type: CL_UNSIGNED_INT16,
        elem: 8,
        kind: "ui",
    },
];

/// Random texel bytes; float and half channels finite.
fn texels(rng: &mut Rng, c: &Case, n: usize) -> Vec<u8> {
    let mut v = Vec::with_capacity(n * c.elem);
    for _ in 0..n {
        match c.data_type {
            CL_FLOAT => v.extend_from_slice(&(rng.unit() * 4.0 - 2.0).to_ne_bytes()),
            CL_HALF_FLOAT => {
                for _ in 0..2 {
                    // Exponent below 31: finite halves.
                    let h = (rng.next() as u16 & 0x83ff) | (((rng.next() % 31) as u16) << 10);
                    v.extend_from_slice(&h.to_ne_bytes());
                }
            }
            _ => v.extend((0..c.elem).map(|_| rng.next() as u8)),
        }
    }
    v
}

/// The reference engine's descriptor for the same texels (tightly packed).
fn reference_desc(c: &Case, ty: cl_mem_object_type, size: [usize; 2], layers: usize, data: &mut [u8]) -> ImageDesc {
    let row = (size[0] * c.elem) as u64;
    ImageDesc {
        data: data.as_mut_ptr(),
        image_type: ty,
        channel_order: c.order,
        channel_data_type: c.data_type,
        element_size: c.elem as u32,
        width: size[0] as u64,
        height: if ty == CL_MEM_OBJECT_IMAGE2D { size[1] as u64 } else { 1 },
        depth: 1,
        array_size: layers as u64,
        row_pitch: row,
        slice_pitch: if ty == CL_MEM_OBJECT_IMAGE2D {
            row * size[1] as u64
        } else {
            row
        },
        // The generic entry points: the reference itself.
        reads: &jit::image::GENERIC_READS,
    }
}

/// Every sampler on a 2D image and a 1D array of each case, and sampler-less reads of the 2D
/// image: the kernel's results have the reference engine's bits.
#[test]
fn kernel_reads_match_the_reference_engine() {
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = ctx.built_program("image_read", &spirv("image_read"));
    let mut rng = Rng(0x5eed_1234_5678_9abc);
    const N: usize = 256;
    let mut combos = 0;
    for c in &CASES {
        let float = c.kind == "f";
        for (ty, tname, size, layers) in [
            (CL_MEM_OBJECT_IMAGE2D, "2d", [13usize, 7], 1usize),
            (CL_MEM_OBJECT_IMAGE1D_ARRAY, "1da", [11, 1], 4),
        ] {
            let n = size[0] * size[1] * layers;
            let mut data = texels(&mut rng, c, n);
            let fmt = cl_image_format {
                image_channel_order: c.order,
                image_channel_data_type: c.data_type,
            };
            let dims = [size[0], size[1], 1, layers];
            let desc = image_desc(ty, dims, 0, 0, ptr::null_mut());
            let img = ctx.image(CL_MEM_READ_ONLY, &fmt, &desc, ptr::null_mut());
            q.write_image(&img, [0; 3], image_region(ty, dims), 0, 0, &data);
            let rdesc = reference_desc(c, ty, size, layers, &mut data);
            let k = prog.kernel(&format!("read_{}_{tname}", c.kind));
            for normalized in [false, true] {
                for addressing in [
                    CL_ADDRESS_NONE,
                    CL_ADDRESS_CLAMP_TO_EDGE,
                    CL_ADDRESS_CLAMP,
                    CL_ADDRESS_REPEAT,
                    CL_ADDRESS_MIRRORED_REPEAT,
                ] {
                    // Repeat modes need normalized coordinates (a sampler error otherwise).
                    if !normalized && matches!(addressing, CL_ADDRESS_REPEAT | CL_ADDRESS_MIRRORED_REPEAT) {
                        continue;
                    }
                    for filter in [CL_FILTER_NEAREST, CL_FILTER_LINEAR] {
                        let smp = ctx.sampler(normalized, addressing, filter);
                        let bits = (jit::abi::sampler_bits::NORMALIZED * normalized as u32)
                            | match addressing {
                                CL_ADDRESS_NONE => jit::abi::sampler_bits::ADDRESS_NONE,
                                CL_ADDRESS_CLAMP_TO_EDGE => jit::abi::sampler_bits::ADDRESS_CLAMP_TO_EDGE,
                                CL_ADDRESS_CLAMP => jit::abi::sampler_bits::ADDRESS_CLAMP,
                                CL_ADDRESS_REPEAT => jit::abi::sampler_bits::ADDRESS_REPEAT,
                                _ => jit::abi::sampler_bits::ADDRESS_MIRRORED_REPEAT,
                            }
                            | if filter == CL_FILTER_LINEAR {
                                jit::abi::sampler_bits::FILTER_LINEAR
                            } else {
                                jit::abi::sampler_bits::FILTER_NEAREST
                            };
                        let cs = coords(&mut rng, size, layers, normalized, N);
                        let cb = ctx.buffer_from(as_bytes(&cs));
                        let ob = ctx.buffer(N * 16);
                        k.arg_mem(0, &img);
                        k.arg_sampler(1, &smp);
                        k.arg_mem(2, &cb);
                        k.arg_mem(3, &ob);
                        q.run(&k, &[], &[N], &[]);
                        let got = words(&q.read(&ob, 0, N * 16));
                        for (i, co) in cs.iter().enumerate() {
                            let xyz = [co[0], co[1], co[2]];
                            // SAFETY: `rdesc` describes `data`, alive here.
                            let want = unsafe { image_engine::reference(&rdesc, bits, xyz, float) };
                            assert!(
                                same(got[i], want, float),
                                "{:#x}/{:#x} {tname} sampler {bits:#x} at {co:?}: got {:x?}, reference {want:x?}",
                                c.order,
                                c.data_type,
                                got[i]
                            );
                        }
                        combos += 1;
                    }
                }
            }
            // Sampler-less reads, in and out of range (the border colour outside).
            if ty == CL_MEM_OBJECT_IMAGE2D {
                let ic: Vec<[i32; 4]> = (0..N)
                    .map(|_| std::array::from_fn(|_| (rng.next() % 20) as i32 - 4))
                    .collect();
                let cb = ctx.buffer_from(as_bytes(&ic));
                let ob = ctx.buffer(N * 16);
                let k = prog.kernel(&format!("load_{}_2d", c.kind));
                k.arg_mem(0, &img);
                k.arg_mem(1, &cb);
                k.arg_mem(2, &ob);
                q.run(&k, &[], &[N], &[]);
                let got = words(&q.read(&ob, 0, N * 16));
                for (i, co) in ic.iter().enumerate() {
                    let xyz = [co[0], co[1], 0];
                    let want = unsafe {
                        if float {
                            jit::image::read_texel_float(&rdesc, xyz).map(f32::to_bits)
                        } else {
                            jit::image::read_texel_int(&rdesc, xyz).map(|v| v as u32)
                        }
                    };
                    assert!(
                        same(got[i], want, float),
                        "load {:#x}/{:#x} at {co:?}",
                        c.order,
                        c.data_type
                    );
                }
            }
        }
    }
    assert_eq!(combos, CASES.len() * 2 * 16);
}
