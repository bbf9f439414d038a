//! Image instructions compiled by the JIT: sampled reads with a literal sampler and a sampler
//! argument, sampler-less reads, writes and the size/order/format queries, on descriptors
//! built here (the runtime builds the same `ImageDesc` for image objects).

use jit::abi::{sampler_bits, ImageDesc, WorkGroupContext};
use jit::CompileOptions;
use opencl_sys::*;

const KERNELS: &str = r#"
               OpCapability Addresses
               OpCapability Kernel
               OpCapability Int64
               OpCapability ImageBasic
               OpCapability LiteralSampler
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %copy "copy" %gid
               OpEntryPoint Kernel %query "query"
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %gid Constant
      %ulong = OpTypeInt 64 0
       %uint = OpTypeInt 32 0
      %float = OpTypeFloat 32
     %v2uint = OpTypeVector %uint 2
    %v2float = OpTypeVector %float 2
    %v4float = OpTypeVector %float 4
     %v4uint = OpTypeVector %uint 4
    %v3ulong = OpTypeVector %ulong 3
     %ptr_in = OpTypePointer Input %v3ulong
        %gid = OpVariable %ptr_in Input
       %void = OpTypeVoid
        %img = OpTypeImage %void 2D 0 0 0 0 Unknown ReadOnly
       %wimg = OpTypeImage %void 2D 0 0 0 0 Unknown WriteOnly
    %sampler = OpTypeSampler
    %sampled = OpTypeSampledImage %img
      %p_out = OpTypePointer CrossWorkgroup %float
     %p_uint = OpTypePointer CrossWorkgroup %uint
     %copy_t = OpTypeFunction %void %img %sampler %wimg %p_out
    %query_t = OpTypeFunction %void %img %p_uint
    %float_0 = OpConstant %float 0
  %float_0_5 = OpConstant %float 0.5
     %uint_0 = OpConstant %uint 0
    %ulong_1 = OpConstant %ulong 1
    %ulong_2 = OpConstant %ulong 2
    %ulong_3 = OpConstant %ulong 3
    %ulong_4 = OpConstant %ulong 4
     %halves = OpConstantComposite %v2float %float_0_5 %float_0_5
    %literal = OpConstantSampler %sampler Clamp 0 Nearest
       %copy = OpFunction %void None %copy_t
        %src = OpFunctionParameter %img
        %smp = OpFunctionParameter %sampler
        %dst = OpFunctionParameter %wimg
        %out = OpFunctionParameter %p_out
          %1 = OpLabel
          %2 = OpLoad %v3ulong %gid
          %3 = OpCompositeExtract %ulong %2 0
          %4 = OpCompositeExtract %ulong %2 1
          %5 = OpUConvert %uint %3
          %6 = OpUConvert %uint %4
          %7 = OpCompositeConstruct %v2uint %5 %6
          ; a sampler argument with float coordinates at the texel centre
          %8 = OpConvertUToF %v2float %7
          %9 = OpFAdd %v2float %8 %halves
         %10 = OpSampledImage %sampled %src %smp
         %11 = OpImageSampleExplicitLod %v4float %10 %9 Lod %float_0
          ; the literal sampler with integer coordinates
         %12 = OpSampledImage %sampled %src %literal
         %13 = OpImageSampleExplicitLod %v4float %12 %7 Lod %float_0
          ; a sampler-less read
         %14 = OpImageRead %v4float %src %7
         %15 = OpFAdd %v4float %11 %13
         %16 = OpFAdd %v4float %15 %14
               OpImageWrite %dst %7 %16
         %17 = OpCompositeExtract %float %11 0
         %18 = OpCompositeExtract %float %13 1
         %19 = OpFAdd %float %17 %18
               OpStore %out %19
               OpReturn
               OpFunctionEnd
      %query = OpFunction %void None %query_t
         %qi = OpFunctionParameter %img
         %qo = OpFunctionParameter %p_uint
         %20 = OpLabel
         %21 = OpImageQuerySizeLod %v2uint %qi %uint_0
         %22 = OpCompositeExtract %uint %21 0
         %23 = OpCompositeExtract %uint %21 1
         %24 = OpImageQueryOrder %uint %qi
         %25 = OpImageQueryFormat %uint %qi
               OpStore %qo %22
         %26 = OpInBoundsPtrAccessChain %p_uint %qo %ulong_1
               OpStore %26 %23
         %27 = OpInBoundsPtrAccessChain %p_uint %qo %ulong_2
               OpStore %27 %24
         %28 = OpInBoundsPtrAccessChain %p_uint %qo %ulong_3
               OpStore %28 %25
               OpReturn
               OpFunctionEnd
"#;

fn desc(data: &mut [u8], order: u32, ty: u32, elem: u32, w: u64, h: u64) -> ImageDesc {
    let mut d = ImageDesc {
        data: data.as_mut_ptr(),
        image_type: CL_MEM_OBJECT_IMAGE2D,
        channel_order: order,
        channel_data_type: ty,
        element_size: elem,
        width: w,
        height: h,
        depth: 1,
        array_size: 1,
        row_pitch: w * elem as u64,
        slice_pitch: w * h * elem as u64,
        reads: &jit::image::GENERIC_READS,
    };
    d.reads = jit::image::reads_for(&d);
    d
}

fn run_single(k: &jit::Kernel, block: &[u64]) {
    let ctx = WorkGroupContext {
        work_dim: 2,
        host_shared: 0,
        global_offset: [0; 3],
        global_size: [1, 1, 1],
        local_size: [1, 1, 1],
        enqueued_local_size: [1, 1, 1],
        num_groups: [1, 1, 1],
        group_id: [0; 3],
        local_mem: std::ptr::null_mut(),
        printf: std::ptr::null_mut(),
    };
    unsafe { k.run_group(block.as_ptr() as *const u8, &ctx) };
}

#[test]
fn sample_read_write_and_query() {
    let opts = jit::spirv::AsmOptions {
        version: (1, 0),
        ..Default::default()
    };
    let words = jit::spirv::assemble(KERNELS, opts).expect("assemble");
    let module = jit::spirv::parse_words(&words).expect("parse");
    jit::spirv::validate(&module, &Default::default()).expect("valid");
    let p = jit::compile(&module, &CompileOptions::default()).expect("compile");

    // A 2x2 RGBA UNORM_INT8 source; texel (0,0) = (51, 102, 153, 204) = (0.2, 0.4, 0.6, 0.8).
    let mut src = vec![51u8, 102, 153, 204, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 255, 255];
    let mut dst = vec![0f32; 16];
    let src_desc = desc(&mut src, CL_RGBA, CL_UNORM_INT8, 4, 2, 2);
    let dst_desc = desc(
        unsafe { std::slice::from_raw_parts_mut(dst.as_mut_ptr() as *mut u8, 64) },
        CL_RGBA,
        CL_FLOAT,
        16,
        2,
        2,
    );
    let mut out = [0f32; 1];
    let sampler = (sampler_bits::ADDRESS_CLAMP_TO_EDGE | sampler_bits::FILTER_NEAREST) as u64;
    let copy = p.kernel("copy").expect("copy");
    let block = [
        &src_desc as *const ImageDesc as u64,
        sampler,
        &dst_desc as *const ImageDesc as u64,
        out.as_mut_ptr() as u64,
    ];
    run_single(&copy, &block);
    // Three reads of texel (0,0) summed, written as floats.
    let expect = [0.2f32, 0.4, 0.6, 0.8].map(|c| 3.0 * c);
    for (c, e) in expect.iter().enumerate() {
        assert!((dst[c] - e).abs() < 1e-6, "channel {c}: {} vs {e}", dst[c]);
    }
    assert!((out[0] - 0.6).abs() < 1e-6, "{}", out[0]);

    let query = p.kernel("query").expect("query");
    let mut q = [0u32; 4];
    run_single(&query, &[&src_desc as *const ImageDesc as u64, q.as_mut_ptr() as u64]);
    // The SPIR-V Image Channel Order / Data Type numbers count from CL_R / CL_SNORM_INT8.
    assert_eq!(q, [2, 2, CL_RGBA - CL_R, CL_UNORM_INT8 - CL_SNORM_INT8]);
}
