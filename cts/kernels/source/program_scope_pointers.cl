// Program-scope constants whose initializers hold pointers (cts/tests/program_scope_pointers.rs):
// arrays of string pointers, pointers to elements of other constant arrays and into structs,
// null pointers, pointers to pointers. OpenCL C 1.2 / 3.0 (constant address space only).

constant char *constant words[] = {"zero", "one", "two", "three", 0, "five"};

constant int table[8] = {10, 11, 12, 13, 14, 15, 16, 17};
constant int *constant tp = &table[5];
constant int *constant tbase = table;
constant int *constant tends[2] = {&table[0], &table[7]};

typedef struct {
    int tag;
    constant int *none;
    constant int *some;
    constant char *name;
} entry_t;

constant entry_t entries[3] = {
    {1, 0, &table[2], "alpha"},
    {2, 0, 0, "beta"},
    {3, 0, table + 6, 0},
};

typedef struct {
    int pad;
    int inner[4];
} nested_t;
constant nested_t nested = {7, {40, 41, 42, 43}};
constant int *constant inner_p = &nested.inner[3];
constant nested_t *constant nested_p = &nested;
constant char *constant *constant word_pp = &words[3];

// out[i]: the i-th character of word i (-1 for a null word, 0 past its end).
kernel void string_table(global int *out) {
    size_t i = get_global_id(0);
    constant char *w = words[i];
    if (w == 0) {
        out[i] = -1;
        return;
    }
    size_t n = 0;
    while (w[n] != 0)
        n++;
    out[i] = i < n ? w[i] : 0;
}

kernel void element_pointers(global long *out) {
    out[0] = *tp;
    out[1] = tp[-2];
    out[2] = tbase[1];
    out[3] = *tends[0];
    out[4] = *tends[1];
    out[5] = tends[1] - tends[0];
    out[6] = *inner_p;
    out[7] = nested_p->inner[0] + nested_p->pad;
    out[8] = (*word_pp)[2];
    out[9] = word_pp[-1][0];
}

kernel void struct_pointers(global int *out) {
    for (int i = 0; i < 3; i++) {
        constant entry_t *e = &entries[i];
        out[4 * i + 0] = e->tag;
        out[4 * i + 1] = e->none == 0;
        out[4 * i + 2] = e->some ? *e->some : -1;
        out[4 * i + 3] = e->name ? e->name[1] : -1;
    }
}
