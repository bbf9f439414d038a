/* The operations of hash.cl's compression function on uint4 lanes. */
#ifndef HASH_OPS_H
#define HASH_OPS_H
#include "hash_config.h"

typedef uint4 u32x;

/* The four round functions; the choice functions are byte selects (bitselect) when
 * USE_BITSELECT is set, the and/or forms otherwise (the same values). */
#if USE_BITSELECT
#define F_CH(x, y, z) bitselect((z), (y), (x))
#define F_MAJ(x, y, z) bitselect((x), (y), ((x) ^ (z)))
#else
#define F_CH(x, y, z) (((x) & (y)) | (~(x) & (z)))
#define F_MAJ(x, y, z) (((x) & (y)) | ((x) & (z)) | ((y) & (z)))
#endif
#define F_XOR(x, y, z) ((x) ^ (y) ^ (z))
#define F_ODD(x, y, z) ((y) ^ ((x) | ~(z)))

/* amd_bytealign-like: the 32 bits starting s bytes into the 64-bit value hi:lo. */
inline u32x bytealign(u32x hi, u32x lo, uint s) {
    uint sh = (s & 3u) * 8u;
    return sh == 0u ? lo : (lo >> sh) | (hi << (32u - sh));
}

/* The round function of round r: a switch over the round's quarter. */
inline u32x round_f(uint r, u32x b, u32x c, u32x d) {
    switch ((r >> 4) & 3u) {
    case 0: return F_CH(b, c, d);
    case 1: return F_MAJ(b, c, d);
    case 2: return F_XOR(b, c, d);
    default: return F_ODD(b, c, d);
    }
}

/* Message scheduling: which word round r reads. */
inline uint schedule(uint r) {
    switch ((r >> 4) & 3u) {
    case 0: return r & 15u;
    case 1: return (5u * r + 1u) & 15u;
    case 2: return (3u * r + 5u) & 15u;
    default: return (7u * r) & 15u;
    }
}

/* Rotation amount of round r: four per quarter. */
inline uint shift(uint r) {
    switch (((r >> 4) & 3u) * 4u + (r & 3u)) {
    case 0: return 7; case 1: return 12; case 2: return 17; case 3: return 22;
    case 4: return 5; case 5: return 9; case 6: return 14; case 7: return 20;
    case 8: return 4; case 9: return 11; case 10: return 16; case 11: return 23;
    case 12: return 6; case 13: return 10; case 14: return 15; default: return 21;
    }
}

/* The word mixed into the next message: chosen at run time. */
inline u32x mix_word(uint sel, u32x a, u32x b, u32x c, u32x d) {
    switch (sel) {
    case 0: return b ^ c;
    case 1: return bytealign(c, d, 1u);
    case 2: return rotate(a, (u32x)(13u));
    default: return d + a;
    }
}

/* The round constant of round r. */
inline uint round_k(uint r) { return (r + 1u) * K_MUL ^ (r << 24); }
#endif
