// Reports which OpenCL C feature macros (__opencl_c_*) and extension macros are defined:
// out[i] = 1 when the name on the i-th `// CHECK i name` line is defined, else 0. The test reads
// the names back from those lines. Lists: the OpenCL C 3.0 feature macros (+ cl_ext_float_atomics
// ones) and the extensions the OpenCL C specification gives a macro. API-only extensions
// (cl_khr_icd, cl_khr_il_program, ...) have no macro.
kernel void features(global int *out) {
    // CHECK 0 __opencl_c_3d_image_writes
#ifdef __opencl_c_3d_image_writes
    out[0] = 1;
#else
    out[0] = 0;
#endif
    // CHECK 1 __opencl_c_atomic_order_acq_rel
#ifdef __opencl_c_atomic_order_acq_rel
    out[1] = 1;
#else
    out[1] = 0;
#endif
    // CHECK 2 __opencl_c_atomic_order_seq_cst
#ifdef __opencl_c_atomic_order_seq_cst
    out[2] = 1;
#else
    out[2] = 0;
#endif
    // CHECK 3 __opencl_c_atomic_scope_device
#ifdef __opencl_c_atomic_scope_device
    out[3] = 1;
#else
    out[3] = 0;
#endif
    // CHECK 4 __opencl_c_atomic_scope_all_devices
#ifdef __opencl_c_atomic_scope_all_devices
    out[4] = 1;
#else
    out[4] = 0;
#endif
    // CHECK 5 __opencl_c_device_enqueue
#ifdef __opencl_c_device_enqueue
    out[5] = 1;
#else
    out[5] = 0;
#endif
    // CHECK 6 __opencl_c_generic_address_space
#ifdef __opencl_c_generic_address_space
    out[6] = 1;
#else
    out[6] = 0;
#endif
    // CHECK 7 __opencl_c_fp64
#ifdef __opencl_c_fp64
    out[7] = 1;
#else
    out[7] = 0;
#endif
    // CHECK 8 __opencl_c_images
#ifdef __opencl_c_images
    out[8] = 1;
#else
    out[8] = 0;
#endif
    // CHECK 9 __opencl_c_int64
#ifdef __opencl_c_int64
    out[9] = 1;
#else
    out[9] = 0;
#endif
    // CHECK 10 __opencl_c_pipes
#ifdef __opencl_c_pipes
    out[10] = 1;
#else
    out[10] = 0;
#endif
    // CHECK 11 __opencl_c_program_scope_global_variables
#ifdef __opencl_c_program_scope_global_variables
    out[11] = 1;
#else
    out[11] = 0;
#endif
    // CHECK 12 __opencl_c_read_write_images
#ifdef __opencl_c_read_write_images
    out[12] = 1;
#else
    out[12] = 0;
#endif
    // CHECK 13 __opencl_c_subgroups
#ifdef __opencl_c_subgroups
    out[13] = 1;
#else
    out[13] = 0;
#endif
    // CHECK 14 __opencl_c_work_group_collective_functions
#ifdef __opencl_c_work_group_collective_functions
    out[14] = 1;
#else
    out[14] = 0;
#endif
    // CHECK 15 __opencl_c_integer_dot_product_input_4x8bit
#ifdef __opencl_c_integer_dot_product_input_4x8bit
    out[15] = 1;
#else
    out[15] = 0;
#endif
    // CHECK 16 __opencl_c_integer_dot_product_input_4x8bit_packed
#ifdef __opencl_c_integer_dot_product_input_4x8bit_packed
    out[16] = 1;
#else
    out[16] = 0;
#endif
    // CHECK 17 __opencl_c_kernel_clock_scope_device
#ifdef __opencl_c_kernel_clock_scope_device
    out[17] = 1;
#else
    out[17] = 0;
#endif
    // CHECK 18 __opencl_c_kernel_clock_scope_work_group
#ifdef __opencl_c_kernel_clock_scope_work_group
    out[18] = 1;
#else
    out[18] = 0;
#endif
    // CHECK 19 __opencl_c_kernel_clock_scope_sub_group
#ifdef __opencl_c_kernel_clock_scope_sub_group
    out[19] = 1;
#else
    out[19] = 0;
#endif
    // CHECK 20 __opencl_c_ext_image_unorm_int_2_101010
#ifdef __opencl_c_ext_image_unorm_int_2_101010
    out[20] = 1;
#else
    out[20] = 0;
#endif
    // CHECK 21 __opencl_c_ext_image_unsigned_10x6_12x4_14x2
#ifdef __opencl_c_ext_image_unsigned_10x6_12x4_14x2
    out[21] = 1;
#else
    out[21] = 0;
#endif
    // CHECK 22 __opencl_c_ext_fp16_global_atomic_add
#ifdef __opencl_c_ext_fp16_global_atomic_add
    out[22] = 1;
#else
    out[22] = 0;
#endif
    // CHECK 23 __opencl_c_ext_fp16_global_atomic_min_max
#ifdef __opencl_c_ext_fp16_global_atomic_min_max
    out[23] = 1;
#else
    out[23] = 0;
#endif
    // CHECK 24 __opencl_c_ext_fp16_local_atomic_add
#ifdef __opencl_c_ext_fp16_local_atomic_add
    out[24] = 1;
#else
    out[24] = 0;
#endif
    // CHECK 25 __opencl_c_ext_fp16_local_atomic_min_max
#ifdef __opencl_c_ext_fp16_local_atomic_min_max
    out[25] = 1;
#else
    out[25] = 0;
#endif
    // CHECK 26 __opencl_c_ext_fp32_global_atomic_add
#ifdef __opencl_c_ext_fp32_global_atomic_add
    out[26] = 1;
#else
    out[26] = 0;
#endif
    // CHECK 27 __opencl_c_ext_fp32_global_atomic_min_max
#ifdef __opencl_c_ext_fp32_global_atomic_min_max
    out[27] = 1;
#else
    out[27] = 0;
#endif
    // CHECK 28 __opencl_c_ext_fp32_local_atomic_add
#ifdef __opencl_c_ext_fp32_local_atomic_add
    out[28] = 1;
#else
    out[28] = 0;
#endif
    // CHECK 29 __opencl_c_ext_fp32_local_atomic_min_max
#ifdef __opencl_c_ext_fp32_local_atomic_min_max
    out[29] = 1;
#else
    out[29] = 0;
#endif
    // CHECK 30 __opencl_c_ext_fp64_global_atomic_add
#ifdef __opencl_c_ext_fp64_global_atomic_add
    out[30] = 1;
#else
    out[30] = 0;
#endif
    // CHECK 31 __opencl_c_ext_fp64_global_atomic_min_max
#ifdef __opencl_c_ext_fp64_global_atomic_min_max
    out[31] = 1;
#else
    out[31] = 0;
#endif
    // CHECK 32 __opencl_c_ext_fp64_local_atomic_add
#ifdef __opencl_c_ext_fp64_local_atomic_add
    out[32] = 1;
#else
    out[32] = 0;
#endif
    // CHECK 33 __opencl_c_ext_fp64_local_atomic_min_max
#ifdef __opencl_c_ext_fp64_local_atomic_min_max
    out[33] = 1;
#else
    out[33] = 0;
#endif
    // CHECK 34 cl_khr_3d_image_writes
#ifdef cl_khr_3d_image_writes
    out[34] = 1;
#else
    out[34] = 0;
#endif
    // CHECK 35 cl_khr_async_work_group_copy_fence
#ifdef cl_khr_async_work_group_copy_fence
    out[35] = 1;
#else
    out[35] = 0;
#endif
    // CHECK 36 cl_khr_byte_addressable_store
#ifdef cl_khr_byte_addressable_store
    out[36] = 1;
#else
    out[36] = 0;
#endif
    // CHECK 37 cl_khr_depth_images
#ifdef cl_khr_depth_images
    out[37] = 1;
#else
    out[37] = 0;
#endif
    // CHECK 38 cl_khr_device_enqueue_local_arg_types
#ifdef cl_khr_device_enqueue_local_arg_types
    out[38] = 1;
#else
    out[38] = 0;
#endif
    // CHECK 39 cl_khr_expect_assume
#ifdef cl_khr_expect_assume
    out[39] = 1;
#else
    out[39] = 0;
#endif
    // CHECK 40 cl_khr_extended_async_copies
#ifdef cl_khr_extended_async_copies
    out[40] = 1;
#else
    out[40] = 0;
#endif
    // CHECK 41 cl_khr_extended_bit_ops
#ifdef cl_khr_extended_bit_ops
    out[41] = 1;
#else
    out[41] = 0;
#endif
    // CHECK 42 cl_khr_fp16
#ifdef cl_khr_fp16
    out[42] = 1;
#else
    out[42] = 0;
#endif
    // CHECK 43 cl_khr_fp64
#ifdef cl_khr_fp64
    out[43] = 1;
#else
    out[43] = 0;
#endif
    // CHECK 44 cl_khr_gl_msaa_sharing
#ifdef cl_khr_gl_msaa_sharing
    out[44] = 1;
#else
    out[44] = 0;
#endif
    // CHECK 45 cl_khr_global_int32_base_atomics
#ifdef cl_khr_global_int32_base_atomics
    out[45] = 1;
#else
    out[45] = 0;
#endif
    // CHECK 46 cl_khr_global_int32_extended_atomics
#ifdef cl_khr_global_int32_extended_atomics
    out[46] = 1;
#else
    out[46] = 0;
#endif
    // CHECK 47 cl_khr_initialize_memory
#ifdef cl_khr_initialize_memory
    out[47] = 1;
#else
    out[47] = 0;
#endif
    // CHECK 48 cl_khr_int64_base_atomics
#ifdef cl_khr_int64_base_atomics
    out[48] = 1;
#else
    out[48] = 0;
#endif
    // CHECK 49 cl_khr_int64_extended_atomics
#ifdef cl_khr_int64_extended_atomics
    out[49] = 1;
#else
    out[49] = 0;
#endif
    // CHECK 50 cl_khr_integer_dot_product
#ifdef cl_khr_integer_dot_product
    out[50] = 1;
#else
    out[50] = 0;
#endif
    // CHECK 51 cl_khr_kernel_clock
#ifdef cl_khr_kernel_clock
    out[51] = 1;
#else
    out[51] = 0;
#endif
    // CHECK 52 cl_khr_local_int32_base_atomics
#ifdef cl_khr_local_int32_base_atomics
    out[52] = 1;
#else
    out[52] = 0;
#endif
    // CHECK 53 cl_khr_local_int32_extended_atomics
#ifdef cl_khr_local_int32_extended_atomics
    out[53] = 1;
#else
    out[53] = 0;
#endif
    // CHECK 54 cl_khr_mipmap_image
#ifdef cl_khr_mipmap_image
    out[54] = 1;
#else
    out[54] = 0;
#endif
    // CHECK 55 cl_khr_mipmap_image_writes
#ifdef cl_khr_mipmap_image_writes
    out[55] = 1;
#else
    out[55] = 0;
#endif
    // CHECK 56 cl_khr_select_fprounding_mode
#ifdef cl_khr_select_fprounding_mode
    out[56] = 1;
#else
    out[56] = 0;
#endif
    // CHECK 57 cl_khr_srgb_image_writes
#ifdef cl_khr_srgb_image_writes
    out[57] = 1;
#else
    out[57] = 0;
#endif
    // CHECK 58 cl_khr_subgroup_ballot
#ifdef cl_khr_subgroup_ballot
    out[58] = 1;
#else
    out[58] = 0;
#endif
    // CHECK 59 cl_khr_subgroup_clustered_reduce
#ifdef cl_khr_subgroup_clustered_reduce
    out[59] = 1;
#else
    out[59] = 0;
#endif
    // CHECK 60 cl_khr_subgroup_extended_types
#ifdef cl_khr_subgroup_extended_types
    out[60] = 1;
#else
    out[60] = 0;
#endif
    // CHECK 61 cl_khr_subgroup_named_barrier
#ifdef cl_khr_subgroup_named_barrier
    out[61] = 1;
#else
    out[61] = 0;
#endif
    // CHECK 62 cl_khr_subgroup_non_uniform_arithmetic
#ifdef cl_khr_subgroup_non_uniform_arithmetic
    out[62] = 1;
#else
    out[62] = 0;
#endif
    // CHECK 63 cl_khr_subgroup_non_uniform_vote
#ifdef cl_khr_subgroup_non_uniform_vote
    out[63] = 1;
#else
    out[63] = 0;
#endif
    // CHECK 64 cl_khr_subgroup_rotate
#ifdef cl_khr_subgroup_rotate
    out[64] = 1;
#else
    out[64] = 0;
#endif
    // CHECK 65 cl_khr_subgroup_shuffle
#ifdef cl_khr_subgroup_shuffle
    out[65] = 1;
#else
    out[65] = 0;
#endif
    // CHECK 66 cl_khr_subgroup_shuffle_relative
#ifdef cl_khr_subgroup_shuffle_relative
    out[66] = 1;
#else
    out[66] = 0;
#endif
    // CHECK 67 cl_khr_subgroups
#ifdef cl_khr_subgroups
    out[67] = 1;
#else
    out[67] = 0;
#endif
    // CHECK 68 cl_khr_work_group_uniform_arithmetic
#ifdef cl_khr_work_group_uniform_arithmetic
    out[68] = 1;
#else
    out[68] = 0;
#endif
    // CHECK 69 cl_ext_float_atomics
#ifdef cl_ext_float_atomics
    out[69] = 1;
#else
    out[69] = 0;
#endif
    // CHECK 70 cl_ext_image_unorm_int_2_101010
#ifdef cl_ext_image_unorm_int_2_101010
    out[70] = 1;
#else
    out[70] = 0;
#endif
    // CHECK 71 cl_ext_image_unsigned_10x6_12x4_14x2
#ifdef cl_ext_image_unsigned_10x6_12x4_14x2
    out[71] = 1;
#else
    out[71] = 0;
#endif
    // CHECK 72 __opencl_c_fp16
#ifdef __opencl_c_fp16
    out[72] = 1;
#else
    out[72] = 0;
#endif
}
