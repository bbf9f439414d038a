#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
constant sampler_t smp = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;
kernel void img(read_only image2d_t in, write_only image2d_t out, read_write image1d_t rw, image2d_array_t arr, image1d_buffer_t buf) {
  int2 p = (int2)(get_global_id(0), get_global_id(1));
  float4 c = read_imagef(in, smp, p);
  write_imagef(out, p, c * 0.5f);
  write_imagei(rw, p.x, read_imagei(rw, p.x));
  float4 d = read_imagef(arr, smp, (int4)(p, 1, 0)) + read_imagef(buf, 0);
  write_imagef(out, p + 1, d + (float4)(get_image_width(in)));
}
kernel void misc(global half *h, global long *l, global uchar16 *v, global int *o, local long *ll) {
  size_t i = get_global_id(0);
  h[i] = h[i] * (half)2.5 + (half)-0.0;
  switch (l[i]) { case 0x100000000L: l[i] = -1; break; case -2: l[i] = 7; break; }
  v[i] = v[i] + (uchar16)(3);
  atom_add(l, 5L);
  atomic_fetch_add_explicit((volatile global atomic_int*)o, 1, memory_order_acq_rel, memory_scope_device);
  atomic_store_explicit((volatile global atomic_int*)o, 2, memory_order_release, memory_scope_work_group);
  generic int *g = (generic int*)o; *g = to_global(g) != 0;
  printf("hello %d \"q\" \\ %f\n", 5, 1.0f);
  event_t e = async_work_group_copy(ll, l, 4, 0); wait_group_events(1, &e);
  o[i] = (int)vload_half(0, h) + (int)(short)h[0];
  vstore_half_rtz(1.0f, 0, h);
  float8 f8 = vload8(0, (global float*)o); vstore8(f8, 1, (global float*)o);
  o[1] = sub_sat(o[2], o[3]) + mad24(o[1], o[2], o[3]) + (o[0] == 1 ? (int)nan(0u) : 0);
  mem_fence(CLK_GLOBAL_MEM_FENCE);
}
