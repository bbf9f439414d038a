// OpenCL C built-ins of cl_khr_integer_dot_product and cl_khr_extended_bit_ops through the front end (cts/tests/clc_extensions.rs).
#if !defined(cl_khr_integer_dot_product) || !defined(cl_khr_extended_bit_ops)
#error "extension macros missing"
#endif
#if !defined(__opencl_c_integer_dot_product_input_4x8bit) || !defined(__opencl_c_integer_dot_product_input_4x8bit_packed)
#error "dot product feature macros missing"
#endif

kernel void dots(global const uint *a, global const uint *b, global int *out) {
    size_t i = get_global_id(0);
    uint x = a[i], y = b[i];
    global int *o = out + 8 * i;
    o[0] = (int)dot_4x8packed_uu_uint(x, y);
    o[1] = dot_4x8packed_ss_int(x, y);
    o[2] = dot_4x8packed_us_int(x, y);
    o[3] = dot_4x8packed_su_int(x, y);
    o[4] = (int)dot(as_uchar4(x), as_uchar4(y));
    o[5] = dot(as_char4(x), as_uchar4(y));
    o[6] = dot_acc_sat_4x8packed_ss_int(x, y, 2147483600);
    o[7] = (int)dot_acc_sat(as_uchar4(x), as_uchar4(y), 4294967200u);
}

// p = offset | count << 8 (offset + count <= 32).
kernel void bits(global const uint *a, global const uint *b, global const uint *p, global uint *out) {
    size_t i = get_global_id(0);
    uint x = a[i], y = b[i];
    uint off = p[i] & 0xff, cnt = p[i] >> 8;
    global uint *o = out + 4 * i;
    o[0] = bitfield_insert(x, y, off, cnt);
    o[1] = (uint)bitfield_extract_signed(x, off, cnt);
    o[2] = bitfield_extract_unsigned(x, off, cnt);
    o[3] = bit_reverse(x);
}
