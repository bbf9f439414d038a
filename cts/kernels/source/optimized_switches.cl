// Switches clang -O2 used to turn into IR llvm-spirv 15 refuses (issue 14), run against host
// arithmetic by cts/tests/source_optimized.rs:
// - `narrow`: a switch over two bits, which LLVM narrows to `switch i2` when the data layout
//   names no native integer width;
// - `shared_case`: several cases yielding constants in one block, a phi that names the switch
//   block once per case (llvm-spirv keeps one (value, parent) pair per edge);
// - `table`: a switch of constants, which simplifycfg turns into a bit-map lookup in an
//   `i24` for three `uchar`s;
// - `quotient_and_rest`: x / y and x % y of the same operands (div-rem-pairs makes `freeze`).
uint pick(uint sel, uint a, uint b, uint c, uint d) {
    switch (sel & 3u) {
    case 0: return a ^ b;
    case 1: return b + c;
    case 2: return c | d;
    default: return d - a;
    }
}

kernel void narrow(global const uint *in, global uint *out) {
    size_t g = get_global_id(0);
    uint x = in[g];
    for (uint r = 0; r < 4; r++)
        x = rotate(x, 5u) + pick(x + r, x, 0x1234u, 0x5678u, 0x9abcu);
    out[g] = x;
}

kernel void shared_case(global const uint *in, global uint *out) {
    size_t g = get_global_id(0);
    uint x = in[g], r;
    switch (x % 11u) {
    case 0: case 3: case 5: case 9: r = 7u; break;
    case 1: case 7: r = 300u; break;
    case 2: r = x * 3u; break;
    default: r = 1u;
    }
    out[g] = r;
}

uchar small_table(uint i) {
    switch (i) {
    case 0: return 7;
    case 1: return 9;
    case 2: return 200;
    default: return 0;
    }
}

kernel void table(global const uint *in, global uint *out) {
    size_t g = get_global_id(0);
    out[g] = small_table(in[g] & 3u) + (uint)small_table((in[g] >> 2) & 3u) * 1000u;
}

kernel void quotient_and_rest(global const uint *in, global uint *out) {
    size_t g = get_global_id(0);
    uint x = in[g], y = (in[g] >> 7) | 1u;
    out[g] = (x / y) * 65536u + x % y;
}
