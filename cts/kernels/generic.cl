// Generic pointers (OpPtrCastToGeneric) to private and global memory passed to a non-inlined
// function. Host reference in tests/kernel_control.rs.
__attribute__((noinline)) void bump(int *p, int by) { *p += by; }

kernel void generic_ptr(global int *g) {
    size_t i = get_global_id(0);
    int priv = (int)i;
    bump(&priv, 100);
    bump(&g[i], priv);
}
