// A hash kernel shaped like a password-recovery application's (issue 14): ITERATIONS
// compressions of ROUNDS rounds each on uint4 lanes (four messages per work-item), with
// rotates, byte selects (bitselect, a bytealign-like funnel), switch-based message scheduling,
// configured with -D options and #include'd headers (cts/kernels/bench/hash/).
#include "hash_ops.h"

kernel void hash(global const uint4 *msg, global uint4 *digest) {
    size_t g = get_global_id(0);
    u32x w[16];
    for (int i = 0; i < 16; i++) w[i] = msg[g * 16 + i];
    u32x a = (u32x)(IV0), b = (u32x)(IV1), c = (u32x)(IV2), d = (u32x)(IV3);
    for (uint it = 0; it < ITERATIONS; it++) {
        u32x a0 = a, b0 = b, c0 = c, d0 = d;
        #pragma unroll
        for (uint r = 0; r < ROUNDS; r++) {
            u32x f = round_f(r, b, c, d);
            u32x x = a + f + (u32x)(round_k(r)) + w[schedule(r)];
            u32x t = d;
            d = c;
            c = b;
            b = b + rotate(x, (u32x)(shift(r)));
            a = t;
        }
        a += a0; b += b0; c += c0; d += d0;
        // The next iteration's message: the old one shifted by a number of bytes that depends
        // on the message (a run-time switch over two bits, as when an application appends at
        // a password length), mixed with the new state.
        u32x mix = mix_word((a.x ^ (uint)it) & 3u, a, b, c, d);
        #pragma unroll
        for (int i = 0; i < 16; i++) w[i] = bytealign(w[(i + 1) & 15], w[i], (uint)i) ^ mix;
    }
    digest[g * 4 + 0] = a;
    digest[g * 4 + 1] = b;
    digest[g * 4 + 2] = c;
    digest[g * 4 + 3] = d;
}
