/* Build configuration of hash.cl, set by the host with -D options the way a password-recovery
 * application configures its kernels; every value has a default or a check here. */
#ifndef HASH_CONFIG_H
#define HASH_CONFIG_H
#ifndef VECT_SIZE
#error "VECT_SIZE (messages per work-item) must be given with -D"
#endif
#if VECT_SIZE != 4
#error "this kernel is written for uint4 lanes (VECT_SIZE=4)"
#endif
#ifndef ROUNDS
#define ROUNDS 64
#endif
#ifndef ITERATIONS
#define ITERATIONS 16
#endif
#ifndef USE_BITSELECT
#define USE_BITSELECT 1
#endif
#ifndef IV0
#define IV0 0x67452301u
#endif
#ifndef IV1
#define IV1 0xefcdab89u
#endif
#ifndef IV2
#define IV2 0x98badcfeu
#endif
#ifndef IV3
#define IV3 0x10325476u
#endif
#ifndef K_MUL
#define K_MUL 0x9e3779b9u
#endif
#endif
