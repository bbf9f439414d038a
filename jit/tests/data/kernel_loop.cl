kernel void add(global float *a, global const float *b, int n, local int *tmp) {
  int i = get_global_id(0);
  for (int j = 0; j < n; j++) { a[i] += b[j] * 2.5f; }
  if (i < 0) a[i] = -INFINITY;
  atomic_inc((volatile global int*)a);
  tmp[0] = n;
  barrier(CLK_LOCAL_MEM_FENCE);
  double d = 1.0e300; a[0] = (float)(d * 0.5);
  vstore_half(1.0f, 0, (global half*)a);
}
