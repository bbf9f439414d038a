// A struct argument passed by value (llvm-spirv: a Function-storage pointer parameter with
// FuncParamAttr ByVal). Host reference in tests/kernel_control.rs.
typedef struct {
    int a;
    float b;
    long c;
    char d;
    short e[3];
} S;

kernel void struct_arg(S s, global long *o) {
    size_t i = get_global_id(0);
    o[i] = s.a + (long)s.b + s.c + s.d + s.e[0] + s.e[1] * 2 + s.e[2] * 3 + (long)i;
}

