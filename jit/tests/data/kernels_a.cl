typedef struct { int a; float b; long c; } S;
constant int tbl[4] = {1,2,3,4};
int helper(int x) { return x * tbl[x & 3]; }
kernel void k1(global S *s, global int *o, float f, global double *d, global char *c, global short *sh, global ulong *ul) {
  size_t i = get_global_id(0);
  o[i] = helper(s[i].a) + (int)s[i].c;
  d[i] = sqrt(d[i]) + 0.1;
  c[i] = (char)-3; sh[i] = (short)-300;
  ul[i] = 0xffffffffffffffffUL / (ul[i] | 1);
  switch (o[i]) { case 1: o[i] = 5; break; case -7: o[i] = 3; break; default: o[i] = 0; }
  float4 v = vload4(i, (global float*)d); vstore4(v * f, i, (global float*)d);
  o[i] += atomic_add(o, 1) + atomic_cmpxchg(o, 1, 2);
  work_group_barrier(CLK_GLOBAL_MEM_FENCE);
  s[i].b = NAN + INFINITY + 1e-40f;
  o[i] = popcount(o[i]) + clz(o[i]) + rotate(o[i], 3) + (i > 3 ? 1 : 0);
}
kernel void k2(global float *a, local float *l) { l[get_local_id(0)] = a[0]; barrier(CLK_LOCAL_MEM_FENCE); a[get_group_id(0)] = l[0] * 0.1f; }
