//! Clift's vector loop against its scalar loop on random straight-line kernels (and on kernels
//! whose barrier regions are straight-line code): float and int
//! expressions (arithmetic, bit operations, shifts, min/max, fmin/fmax, rounding functions, rsqrt,
//! mad/fma, comparisons, selects, ifs whose arms only compute, conversions and bit casts, loops
//! with trip counts the same for all work-items or their own, switches whose arms compute,
//! `float4` and `uint4` values with built-ins (the geometric functions among them), swizzles and
//! vector stores, vectors of 8- and 16-bit integers, comparisons of vectors, vector data loads and stores (vloadn, vstoren, halves), doubles, longs,
//! atomics on each work-item's word and on a shared one, also under a condition, 64-bit
//! compare-and-swap retry loops that work-items leave at different rounds) over
//! consecutive and offset loads and stores, on inputs with zeros, infinities, NaN, denormals and
//! the integer extremes. Three child processes build and run the same kernels, two with
//! `CLIFT_SIMD=check` (vector code that fails to build is an error; a kernel the planner
//! declines runs scalar, as random kernels may), one of them with `CLIFT_SIMD_QUADS=2` (eight
//! work-items per vector iteration, two quads, wherever the vector body allows; the global
//! size 103 leaves each row a rest for the four-lane and the scalar loop), and one with
//! `CLIFT_SIMD=0`; every output must be bit-identical (NaNs compare as a class: their payloads
//! are not specified). Clift only.

use cts::image_ref::Rng;
use cts::*;

const KERNELS: usize = 48;
const REGION_KERNELS: usize = 24;
const BYTE_KERNELS: usize = 16;
const N: usize = 103;
const SEEDS: [u64; 2] = [11, 12];

struct Gen(Rng);

impl Gen {
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.0.below(xs.len() as u64) as usize]
    }
    fn chance(&mut self, p: f64) -> bool {
        self.0.range_f64(0.0, 1.0) < p
    }
    fn f(&mut self, d: u32) -> String {
        if d == 0 || self.chance(0.25) {
            return self
                .pick(&["x", "y", "fx", "(float)k", "1.5f", "(-0.0f)", "s", "(float)ix"])
                .into();
        }
        let (a, b) = (self.f(d - 1), self.f(d - 1));
        match self.0.below(30) {
            // Common functions and exponent functions (inline, four lanes at a time).
            25 => format!("step({a}, {b})"),
            26 => format!("smoothstep(-0.5f, {a}, {b})"),
            27 => format!("{}({a})", self.pick(&["sign", "round", "degrees", "radians", "logb"])),
            28 => format!("ldexp({a}, ({}) % 300)", self.i(d - 1)),
            29 => format!("(float)ilogb({a})"),
            // Built-in calls: lane by lane through the scalar builtins, or inline.
            21 => format!(
                "{}({a})",
                self.pick(&[
                    "sin",
                    "exp",
                    "log",
                    "cbrt",
                    "native_cos",
                    "tanh",
                    "native_recip",
                    "half_recip"
                ])
            ),
            22 if self.chance(0.3) => format!("native_divide({a}, {b})"),
            22 if self.chance(0.4) => format!("hypot({a}, {b})"),
            22 => format!("pow(fabs({a}), {b})"),
            23 if self.chance(0.5) => format!("select({a}, {b}, {})", self.i(d - 1)),
            23 => format!("clamp({a}, -1.0f, 2.0f)"),
            24 => format!("mix({a}, {b}, 0.25f)"),
            20 => format!("a[(i * 7) % 50 + ((size_t)({}) & 15)]", self.i(d - 1)),
            0 => format!("({a} + {b})"),
            1 => format!("({a} - {b})"),
            2 => format!("({a} * {b})"),
            3 => format!("({a} / {b})"),
            4 => format!("(-({a}))"),
            5 => format!("fmin({a}, {b})"),
            6 => format!("fmax({a}, {b})"),
            7 => format!("fabs({a})"),
            8 => format!("sqrt({a})"),
            9 => format!("floor({a})"),
            10 => format!("ceil({a})"),
            11 => format!("trunc({a})"),
            12 => format!("rint({a})"),
            13 => format!("copysign({a}, {b})"),
            14 => format!("mad({a}, {b}, {})", self.f(d.saturating_sub(2))),
            15 => format!("fma({a}, {b}, {})", self.f(d.saturating_sub(2))),
            16 => format!("({} ? {a} : {b})", self.cond(d - 1)),
            17 => format!("(float)({})", self.i(d - 1)),
            18 => format!("rsqrt({a})"),
            _ => format!("as_float(({}) & 0x7f7fffff)", self.i(d - 1)),
        }
    }
    fn i(&mut self, d: u32) -> String {
        if d == 0 || self.chance(0.25) {
            return self
                .pick(&[
                    "ix",
                    "iy",
                    "k",
                    "(int)i",
                    "3",
                    "(-7)",
                    "(int)get_local_id(0)",
                    "(int)get_group_id(0)",
                ])
                .into();
        }
        let (a, b) = (self.i(d - 1), self.i(d - 1));
        match self.0.below(30) {
            // 8- and 16-bit integers (32-bit lanes, low bits valid, in the vector loop).
            29 => {
                let f = self.f(d - 1);
                self.pick(&[
                    "(int)(uchar)((A) + (B))",
                    "(int)(short)((A) * 3)",
                    "(int)((uchar)(A) >> 2)",
                    "(int)((char)(A) >> 1)",
                    "(int)((ushort)(A) > (ushort)(B))",
                    "(int)((char)(A) < (char)(B))",
                    "(int)add_sat((uchar)(A), (uchar)(B))",
                    "(int)sub_sat((short)(A), (short)(B))",
                    "(int)abs_diff((short)(A), (short)(B))",
                    "(int)hadd((char)(A), (char)(B)) + (int)rhadd((ushort)(A), (ushort)(B))",
                    "(int)clamp((uchar)(A), (uchar)10, (uchar)(B)) + (int)abs((char)(A))",
                    "(int)max((char)(A), (char)(B)) - (int)min((ushort)(A), (ushort)(B))",
                    "(int)((short)(A) / (short)7)",
                    "(int)convert_uchar_sat(F)",
                    "(int)(ushort)((ushort)(A) * (ushort)(B))",
                    "(int)((uchar)(A) == (uchar)(B) ? (char)(A) : (char)(B))",
                    "(int)(float)(short)(A)",
                    "(int)convert_short_sat(A) + (int)convert_uchar_sat(B)",
                ])
                .replace('A', &a)
                .replace('B', &b)
                .replace('F', &f)
            }
            // Division by constants (four lanes by a reciprocal in the vector loop) and by
            // values (through doubles; never zero, which clang may fold as undefined).
            28 => self
                .pick(&[
                    "(A / 7)",
                    "(A % -13)",
                    "(int)((uint)(A) / 10u)",
                    "(int)((uint)(A) % 6u)",
                    "(A / -1)",
                    "(A / 4)",
                    "(A / (B | 1))",
                    "(A % (B | 1))",
                    "(int)((uint)(A) / ((uint)(B) | 1u))",
                    "(int)((uint)(A) % ((uint)(B) | 3u))",
                ])
                .replace('A', &a)
                .replace('B', &b),
            // Float to integer conversions (toward zero; saturating in Clift, so the same
            // bits everywhere even out of range).
            26 if self.chance(0.5) => {
                let c = self.pick(&[
                    "convert_int_rtn",
                    "convert_int_sat_rte",
                    "(int)convert_uchar_sat",
                    "(int)convert_short_rtp",
                    "(int)convert_uint_sat_rtz",
                    "(int)convert_char_sat_rte",
                    "(int)convert_ushort",
                ]);
                format!("{c}({})", self.f(d - 1))
            }
            26 => format!("(int)({})", self.f(d - 1)),
            27 => format!("(int)(uint)({})", self.f(d - 1)),
            23 if self.chance(0.5) => format!("select({a}, {b}, {} & 3)", self.i(d - 1)),
            23 => format!("clamp({a}, -5, {b})"),
            24 if self.chance(0.6) => {
                let f = self.pick(&["add_sat", "sub_sat", "abs_diff", "hadd", "rhadd"]);
                if self.chance(0.5) {
                    format!("(int){f}({a}, {b})")
                } else {
                    format!("(int){f}((uint)({a}), (uint)({b}))")
                }
            }
            24 => format!("(int)abs({a}) + popcount({b})"),
            25 => format!("rotate({a}, {b}) ^ mul_hi({a}, {b})"),
            // 64-bit values: size_t arithmetic, long products, 64-bit comparisons, gathers
            // through a computed index.
            17 => format!("(int)(i % {})", self.pick(&["5", "(size_t)(k + 10)", "3ul"])),
            18 => format!("(int)(i / 3 + (size_t)({a} & 7))"),
            19 => format!("(int)(((long)({a}) * (long)({b})) >> 20)"),
            20 => format!("(int)(i * 3 == (size_t)(k + 60) || (long)({a}) < (long)i - 40)"),
            21 => format!("ia[((size_t)({a}) & 63) + (i % 3)]"),
            22 => format!("(int)((ulong)(uint)({a}) % 13ul)"),
            0 => format!("({a} + {b})"),
            1 => format!("({a} - {b})"),
            2 => format!("({a} * {b})"),
            3 => format!("({a} & {b})"),
            4 => format!("({a} | {b})"),
            5 => format!("({a} ^ {b})"),
            6 => format!("(~{a})"),
            7 => format!("({a} << ({b} & 31))"),
            8 => format!("({a} >> 3)"),
            9 => format!("(int)((uint){a} >> 5)"),
            10 => format!("max({a}, {b})"),
            11 => format!("min({a}, {b})"),
            12 => format!("(int)max((uint){a}, (uint){b})"),
            13 => format!("(int)min((uint){a}, (uint){b})"),
            14 => format!("({} ? {a} : {b})", self.cond(d - 1)),
            15 => format!("as_int({})", self.f(d - 1)),
            _ => format!("(int)({a} == {b})"),
        }
    }
    fn cond(&mut self, d: u32) -> String {
        let (a, b) = if self.chance(0.5) {
            (self.f(d), self.f(d))
        } else {
            (self.i(d), self.i(d))
        };
        let c = format!("({a} {} {b})", self.pick(&["<", ">", "<=", ">=", "==", "!="]));
        if self.chance(0.2) {
            let z = self.f(0);
            let test = self.pick(&["isnan", "isinf", "isfinite", "isnormal", "signbit"]);
            format!("({c} {} {test}({z}))", self.pick(&["&&", "||"]))
        } else {
            c
        }
    }
    fn kernel(&mut self, n: usize) -> String {
        let mut body = String::new();
        for _ in 0..1 + self.0.below(3) {
            if self.chance(0.3) {
                let (c, e) = (self.cond(1), self.f(2));
                body.push_str(&format!("    if ({c}) fx = {e};\n"));
            } else if self.chance(0.25) {
                // A loop: the same trip count for all work-items or one of their own.
                let bound = self.pick(&[
                    "(k & 3) + 5",
                    "(int)(i & 3)",
                    "(int)(i % 5) + 1",
                    "((int)i < 50 ? 3 : 2)",
                    "(ix & 3)",
                ]);
                let (e, ie) = (self.f(1), self.i(1));
                body.push_str(&format!(
                    "    for (int j = 0; j < {bound}; j++) {{\n        fx = fx * 0.5f + {e} + a[i + j];\n        ix = ix * 3 + ({ie}) + ia[i + j];\n    }}\n"
                ));
            } else if self.chance(0.2) {
                // A loop with two exits, each work-item leaving at its own round (Mandelbrot's
                // shape), or one that stores each round and breaks out on a data-dependent test.
                let bound = self.pick(&["(k & 3) + 5", "(int)(i % 7) + 1", "(ix & 15)", "20"]);
                if self.chance(0.5) {
                    let (cr, ci) = (self.f(1), self.f(1));
                    body.push_str(&format!(
                        "    {{\n        int it = 0; float zr = 0.0f, zi = 0.0f, cr = ({cr}) * 0.25f, ci = ({ci}) * 0.25f;\n        while (it < {bound} && zr * zr + zi * zi <= 4.0f) {{\n            float t = zr * zr - zi * zi + cr;\n            zi = 2.0f * zr * zi + ci;\n            zr = t;\n            it++;\n        }}\n        fx = fx + (float)it + zr;\n    }}\n"
                    ));
                } else {
                    let thr = self.pick(&["3.0f", "y", "s * 2.0f"]);
                    body.push_str(&format!(
                        "    for (int j = 0; j < {bound}; j++) {{\n        fx = fx * 0.5f + a[i + j];\n        if (fx > {thr}) break;\n        o[300 + i] = fx + (float)j;\n    }}\n"
                    ));
                }
            } else if self.chance(0.35) {
                match self.0.below(9) {
                    0 => {
                        // float4 values (one vector per component in the vector loop): loads
                        // through a computed index, built-ins, swizzles, a float4 store.
                        let (e, f) = (self.f(1), self.f(1));
                        let op = self.pick(&[
                            "fmin(v, w)",
                            "fabs(v) * w",
                            "v - w.wzyx",
                            "mad(v, w, (float4)(s))",
                            "floor(v) + w.yyxx",
                            "fmax(v, w)",
                            "clamp(v, -1.0f, 2.0f)",
                            "clamp(v, w.zzzz, (float4)(3.0f))",
                            "select(v, w, as_int4(w - v))",
                            "convert_float4(convert_int4_sat_rte(v * 3.0f)) + convert_float4(convert_uint4_rtp(w))",
                            "convert_float4(convert_int4_rtn(v)) - convert_float4(convert_int4(w))",
                            "hypot(v, w) - normalize(v) + w",
                            "cross(v, w) * dot(v, w)",
                            "v * length(w) - distance(v, w)",
                            "fast_normalize(w) - (float4)(fast_length(v), fast_distance(v, w), 0.5f, 0.0f)",
                            "(float4)(normalize(v.xyz), length(v.xy))",
                            "(float4)(cross(v.xyz, w.xyz), dot(v.zw, w.xy) + distance(v.y, w.x))",
                        ]);
                        body.push_str(&format!(
                            "    {{\n        float4 v = (float4)(x, y, fx, {e});\n        float4 w = ((global const float4 *)a)[(i * 3) % 20] + (float4)({f}, 1.5f, -2.0f, s);\n        v = {op};\n        v.xy = v.yx;\n        fx = v.x + v.y * v.z - v.w;\n        ((global float4 *)o)[128 + i] = v;\n    }}\n"
                        ));
                    }
                    1 => {
                        // uint4 values: rotates, bit selects, shifts, a uint4 store.
                        let ie = self.i(1);
                        body.push_str(&format!(
                            "    {{\n        uint4 u = (uint4)((uint)ix, (uint)iy, (uint)k, (uint)({ie}));\n        u = rotate(u, (uint4)(3u, 7u, 11u, 0u)) ^ (bitselect(u, u.wzyx, (uint4)(0xff00ff00u)) + (uint4)((uint)i));\n        u = (u >> (uint4)(1u, 2u, 3u, 4u)) | (u << 5u);\n        u = select(u, clamp(u.wzyx, (uint4)(3u), (uint4)(0x7fffffffu)), as_int4(u ^ (uint4)((uint)i)));\n        ix = (int)(u.x + (u.y ^ u.z) - u.w);\n        ((global uint4 *)io)[128 + i] = u;\n    }}\n"
                        ));
                    }
                    6 => {
                        // Vector data loads and stores: groups of four and three, halves one
                        // and four a lane, stores of three, four and a rounded half.
                        let i3 = self.pick(&["i", "(uint)i", "i + 1"]);
                        let ih = self.pick(&["i", "2 * i", "(int)i"]);
                        let mode = self.pick(&["", "_rtz", "_rtn", "_rte", "_rtp"]);
                        body.push_str(&format!(
                            "    {{\n        float4 v = vload4(i, a) * (float4)(fx);\n        float3 t = vload3({i3}, b);\n        float hx = vload_half({ih}, (global const half *)ia);\n        float4 hv = vload_half4(i, (global const half *)ia);\n        vstore3(t * fx + v.xyz, i, o + 1200);\n        vstore_half{mode}(hx * fx + t.z, i, (global half *)(io + 1600));\n        vstore4(hv + v, i, o + 1520);\n        fx = v.w + t.y + hx + hv.z;\n    }}\n"
                        ));
                    }
                    7 => {
                        // Vectors of 8- and 16-bit integers (32-bit lanes, low bits valid, in
                        // the vector loop): consecutive and gathered loads, wrapping
                        // arithmetic, conversions to and from floats (saturating, rounded),
                        // widening and narrowing, a right shift and built-ins (lane by lane),
                        // a vector data load, stores of each shape.
                        let mode = self.pick(&["", "_rte", "_rtn", "_rtp", "_rtz"]);
                        let e = self.f(1);
                        let ie = self.i(1);
                        body.push_str(&format!(
                            "    {{\n        global const uchar4 *pa = (global const uchar4 *)ia;\n        uchar4 c = pa[i] ^ pa[(i * 5) % 64];\n        short2 h = ((global const short2 *)ia)[i + 1] + (short2)((short)ix, (short)k);\n        char8 z = ((global const char8 *)ia)[i];\n        float4 f = convert_float4(c) * 0.25f + (float4)(convert_float2(h), convert_float2(z.s01)) + (float4)({e});\n        c = convert_uchar4_sat{mode}(f * (float4)(s, 2.0f, -1.0f, 0.5f)) + c.wzyx * (uchar)3;\n        h = h * (short2)(3, -5) - convert_short2(z.s23) + (short2)((short)({ie}));\n        z = (z ^ (char8)((char)ix)) + as_char8(convert_uchar8((ushort8)(convert_ushort4(c), convert_ushort4(vload4(i, (global const uchar *)ia + 1)))));\n        ushort4 u = convert_ushort4(c) * (ushort)257 + convert_ushort4(z.s4567) - (convert_ushort4(h.xyxy) >> (ushort)3) + abs_diff(h.xyyx, h.yxxy) + convert_ushort4(add_sat(c, c.wzyx) ^ hadd(c.yxwz, (uchar4)(200)));\n        int4 w = convert_int4(z.lo) + convert_int4(u) - convert_int4(clamp(h.yxyy, (short)-300, (short)300));\n        c = c << (uchar)1 | convert_uchar4(convert_short4(w) & (short)0x7f);\n        ((global uchar4 *)(io + 1700))[i] = c;\n        ((global short2 *)(io + 1810))[i] = h;\n        ((global char8 *)(io + 1920))[i] = z;\n        ((global ushort4 *)(io + 2130))[i] = u;\n        uchar bb = ((global const uchar *)ia)[i];\n        ((global uchar *)(io + 2340))[i] = bb * (uchar)3 + (uchar)ix;\n        short ss = ((global const short *)ia)[i + 1];\n        ((global short *)(io + 2370))[i] = (ss >> 1) ^ (short)bb;\n        ix += w.x ^ (w.y + w.z - w.w);\n        fx = fx + (float)c.x - (float)h.y * 0.5f;\n    }}\n"
                        ));
                    }
                    8 => {
                        // Comparisons of vectors (vectors of booleans, component masks in the
                        // vector loop): float, int and 8-bit ones, isnan (four lanes) and isinf
                        // (lane by lane), any and all, selects and conditional expressions by
                        // component, logical operations.
                        let e = self.f(1);
                        let cmp = self.pick(&["<", ">", "<=", ">=", "==", "!="]);
                        body.push_str(&format!(
                            "    {{\n        float4 v = (float4)(x, y, fx, {e});\n        float4 w = ((global const float4 *)a)[(i * 3) % 20] + (float4)(s);\n        int4 m = v {cmp} w;\n        int4 u = ((global const int4 *)ia)[i % 50];\n        int4 n2 = (u > (int4)(k)) | isnan(v) | (isinf(w) & (v >= w.wzyx)) | (as_int4(u) < u.yxwz) | (isfinite(v) & isnormal(w)) ^ signbit(v) ^ islessgreater(v, w.yxwz) ^ isunordered(w, v) ^ isordered(v, (float4)(s));\n        uchar4 c = ((global const uchar4 *)ia)[i];\n        int4 nm = convert_int4(c > (uchar4)(100)) + convert_int4(as_char4(c) < (char4)(-3)) - convert_int4(c >= c.wzyx);\n        float4 r = select(v, w, m) + (v {cmp} w.yxwz ? v : w.zwxy);\n        ix += m.x + n2.y * 3 + (nm.z ^ nm.w) + (int)all(u == u.yxwz) + (int)any(n2 && !m);\n        if (any(isless(v, (float4)(0.0f))) | all(v != v)) fx += r.x;\n        ((global float4 *)o)[128 + i] = r;\n        ((global int4 *)io)[128 + i] = nm ^ n2;\n    }}\n"
                        ));
                    }
                    2 => {
                        // A switch whose arms only compute.
                        let (e1, e2, e3) = (self.f(1), self.f(1), self.f(1));
                        let sel = self.pick(&["ix & 3", "(int)(i % 5)", "k & 3"]);
                        body.push_str(&format!(
                            "    switch ({sel}) {{\n        case 0: fx = {e1}; break;\n        case 1: fx = {e2}; break;\n        case 3: fx = fx * 2.0f; break;\n        default: fx = {e3};\n    }}\n"
                        ));
                    }
                    4 => {
                        // 64-bit integers that differ between work-items: long products,
                        // shifts, divisions, comparisons, min/max, rotates, bit counts.
                        let ie = self.i(1);
                        let c = self.pick(&["q > 0", "(ulong)q < u", "q == (long)k", "(u & 3ul) != 0ul"]);
                        body.push_str(&format!(
                            "    {{\n        long q = (long)({ie}) * (long)(iy | 1) + (long)i * 0x100000001l;\n        ulong u = (ulong)q ^ ((ulong)q >> 7);\n        q = ({c} ? q >> 3 : q / 7) + (long)(u % 1000003ul) - (long)(i * i);\n        q = max(q, (long)k) + (long)popcount(u) + (long)(rotate(u, 13ul) >> 40) + (long)clz(u);\n        ix = (int)(q ^ (q >> 32));\n        fx = fx + (float)(q & 255l);\n    }}\n"
                        ));
                    }
                    5 => {
                        // Atomics: on each work-item's own word (their old values used), on one
                        // word all work-items share (only its final count compared), and under
                        // a condition that differs between work-items.
                        let c = self.cond(1);
                        body.push_str(&format!(
                            "    {{\n        int old = atomic_add(&io[300 + i], ix);\n        int m = atomic_max(&io[300 + i], (int)i);\n        atomic_inc(&io[420]);\n        if ({c}) ix += atomic_xchg(&io[300 + i], iy);\n        ix ^= old + m;\n    }}\n"
                        ));
                        if self.chance(0.5) {
                            // A 64-bit compare-and-swap retry loop on each work-item's own
                            // long (io[936 + 2 * i]), failing on purpose a number of times of
                            // its own first: the work-items leave at different rounds, and the
                            // atomic must not run again for one that has left.
                            let tries = self.pick(&["(ix & 3)", "(int)(i % 5)", "(k & 3)"]);
                            body.push_str(&format!(
                                "    {{\n        volatile global long *w = (volatile global long *)(io + 936) + i;\n        long e, got; int n = 0;\n        do {{\n            long cur = *w;\n            e = n < {tries} ? cur + 1 : cur;\n            got = atom_cmpxchg(w, e, cur * 3 + (long)ix);\n            n++;\n        }} while (got != e);\n        ix += n;\n        fx = fx + (float)(got & 255l);\n    }}\n"
                            ));
                        }
                    }
                    _ => {
                        // Doubles.
                        let e = self.f(1);
                        body.push_str(&format!(
                            "    {{\n        double d = (double)fx * 1.5 + (double)({e});\n        d = d * d - (double)y / 3.0;\n        d = fmin(d, 1e6) + (d > 2.0 ? sqrt(fabs(d)) : -d);\n        fx = (float)d;\n    }}\n"
                        ));
                    }
                }
            } else if self.chance(0.2) {
                // A load in one arm of a conditional expression.
                let (c, e) = (self.cond(1), self.f(1));
                body.push_str(&format!("    fx = ({c}) ? a[i + 1] : {e};\n"));
            } else {
                let e = self.f(3);
                body.push_str(&format!("    fx = {e};\n"));
            }
        }
        let idx = self.pick(&["i", "2 * i + 1", "(int)i", "i + 3", "(uint)i"]);
        let yi = self.pick(&["i", "i + 1", "2 * i", "(uint)i + 1u"]);
        let iyi = self.pick(&["i", "i + 2"]);
        let ie = self.i(3);
        // Sometimes the stores sit behind a bounds check or a data-dependent condition.
        let (open, close) = if self.chance(0.35) {
            let c = match self.0.below(6) {
                0 => "i < 50".to_string(),
                1 => "(int)i >= 13".to_string(),
                2 => "x > 0.0f".to_string(),
                3 => "(int)i < 9 || (int)i >= 60".to_string(),
                4 => "i > 4 && x < 1.0f".to_string(),
                _ => self.cond(1),
            };
            let close = if self.chance(0.3) {
                // An else that stores too.
                format!("    }} else {{\n        o[{idx}] = 1.0f - fx;\n        io[{idx}] = 7;\n    }}\n")
            } else {
                "    }\n".to_string()
            };
            (format!("    if ({c}) {{\n"), close)
        } else {
            (String::new(), String::new())
        };
        format!(
            "kernel void k{n}(global const float *a, global const float *b, global const int *ia,\n\
             \x20                global float *o, global int *io, float s, int k) {{\n\
             \x20   size_t i = get_global_id(0);\n\
             \x20   float x = a[i], y = b[{yi}], fx = x;\n\
             \x20   int ix = ia[i], iy = ia[{iyi}];\n\
             {body}\
             {open}\
             \x20   o[{idx}] = fx;\n\
             \x20   io[{idx}] = {ie};\n\
             {close}\
             }}\n"
        )
    }

    /// An 8-bit (`uchar` if `!signed`, else `char`) expression of depth `d` over `x`, `y` (or
    /// `c`, `d`), the kernel's `k` and constants: wrapping arithmetic, bit operations, shifts
    /// by constants, the saturating, halving, min/max, abs and clamp built-ins, comparisons
    /// and selects, truncations of 16-bit values.
    fn b8(&mut self, d: u32, signed: bool) -> String {
        let (t, leaves): (&str, &[&str]) = if signed {
            ("char", &["c", "e", "(char)k", "(char)-3", "(char)100", "(char)-128"])
        } else {
            ("uchar", &["x", "y", "(uchar)k", "(uchar)3", "(uchar)200", "(uchar)255"])
        };
        if d == 0 || self.chance(0.2) {
            return self.pick(leaves).into();
        }
        let (a, b) = (self.b8(d - 1, signed), self.b8(d - 1, signed));
        match self.0.below(9) {
            0 => format!("({t})({a} {} {b})", self.pick(&["+", "-", "&", "|", "^"])),
            1 => format!("({t})({a} {} {})", self.pick(&[">>", "<<"]), self.0.below(8)),
            2 => format!(
                "{}({a}, {b})",
                self.pick(&["add_sat", "sub_sat", "abs_diff", "hadd", "rhadd", "max", "min"])
            ),
            3 => format!("({t})~{a}"),
            4 if signed => format!("(char)abs({a})"),
            4 => format!("({t})-{a}"),
            5 => format!("clamp({a}, ({t})-20, ({t})90)"),
            6 => {
                let c = self.pick(&["<", ">", "<=", ">=", "==", "!="]);
                let (e, f) = (self.b8(d - 1, signed), self.b8(d - 1, signed));
                let j = self.pick(&["&&", "||"]);
                let (g, h) = (self.b8(0, signed), self.b8(0, signed));
                format!("({t})({a} {c} {b} {j} {g} != {h} ? {e} : {f})")
            }
            7 => format!("({t})({})", self.h16(d - 1)),
            _ => format!("({t})({a} * {b})"),
        }
    }

    /// A 16-bit (`short`) expression of depth `d` over `v`, `w`, 8-bit values widened, `k`.
    fn h16(&mut self, d: u32) -> String {
        if d == 0 || self.chance(0.2) {
            return self
                .pick(&["v", "w", "(short)x", "(short)c", "(short)k", "(short)-30000"])
                .into();
        }
        let (a, b) = (self.h16(d - 1), self.h16(d - 1));
        match self.0.below(7) {
            0 => format!("(short)({a} {} {b})", self.pick(&["+", "-", "*", "&", "|", "^"])),
            1 => format!("(short)({a} {} {})", self.pick(&[">>", "<<"]), self.0.below(16)),
            2 => format!(
                "{}({a}, {b})",
                self.pick(&["add_sat", "sub_sat", "hadd", "rhadd", "max", "min"])
            ),
            3 => format!("(short)(ushort)({})", self.b8(d - 1, false)),
            4 => format!("(short)({})", self.b8(d - 1, true)),
            5 => format!("(short)({a} < {b} ? {a} : (short)~{b})"),
            _ => format!("clamp({a}, (short)-1000, (short)20000)"),
        }
    }

    /// A kernel computing only with 8- and 16-bit integers read from the inputs' bytes and
    /// stored as bytes and shorts (the vector loop's sixteen work-items per iteration).
    fn byte_kernel(&mut self, n: usize) -> String {
        let (u, c, h) = (self.b8(3, false), self.b8(3, true), self.h16(3));
        let yi = self.pick(&["i", "i + 1", "i + 5"]);
        format!(
            "kernel void b{n}(global const float *a, global const float *b, global const int *ia,\n\
             \x20                global float *o, global int *io, float s, int k) {{\n\
             \x20   size_t i = get_global_id(0);\n\
             \x20   uchar x = ((global const uchar *)ia)[i], y = ((global const uchar *)ia)[{yi}];\n\
             \x20   char c = ((global const char *)b)[i], e = ((global const char *)b)[i + 2];\n\
             \x20   short v = ((global const short *)a)[i], w = ((global const short *)ia)[i + 3];\n\
             \x20   ((global uchar *)io)[i] = {u};\n\
             \x20   ((global char *)io)[600 + i] = {c};\n\
             \x20   ((global short *)io)[600 + i] = {h};\n\
             }}\n"
        )
    }

    /// A kernel with barriers whose regions are straight-line code: rounds of a loop with a
    /// uniform trip count, each reading `__local` values of its own and of another work-item,
    /// writing its result to a second array and copying it back after a barrier (so no two
    /// work-items race).
    fn region_kernel(&mut self, n: usize) -> String {
        let mut body = String::new();
        for _ in 0..1 + self.0.below(2) {
            if self.chance(0.3) {
                let (c, e) = (self.cond(1), self.f(2));
                body.push_str(&format!("        if ({c}) fx = {e};\n"));
            } else {
                let e = self.f(3);
                body.push_str(&format!("        fx = {e};\n"));
            }
        }
        let partner = self.pick(&["(l + off) & (L - 1)", "((l ^ 1) < L ? (l ^ 1) : l)", "L - 1 - l", "l"]);
        let step = self.pick(&["off >>= 1", "off /= 2"]);
        let store = if self.chance(0.4) {
            let c = self.pick(&["l < off", "(int)l >= k + 4", "x > 0.0f", "l < off || l == L - 1"]);
            format!("        if ({c}) lb[l] = fx; else lb[l] = x - 1.0f;\n")
        } else {
            "        lb[l] = fx;\n".to_string()
        };
        // Then a tree reduction of the results whose `if` is taken by the first work-items of
        // the row (the vector loop may end the row once four skip it); the form by kernel
        // (not drawn: the other kernels stay as they were).
        let cut = [
            "l < m - h",
            "m - h > l",
            "(int)l < (int)(m - h)",
            "l + h < m",
            "(uint)l <= (uint)(m - h) - 1u",
        ][n % 5];
        let ie = self.i(2);
        let reach = self.pick(&["i + 3", "(size_t)k + 100", "2 * i + 1", "i + (l & 3)"]);
        let stride = self.pick(&["1", "get_global_size(0)", "L"]);
        format!(
            "kernel void r{n}(global const float *a, global const float *b, global const int *ia,\n\
             \x20                global float *o, global int *io, float s, int k, local float *la,\n\
             \x20                local float *lb) {{\n\
             \x20   size_t i = get_global_id(0), l = get_local_id(0), L = get_local_size(0);\n\
             \x20   float acc = b[i];\n\
             \x20   for (size_t j = i; j < {reach}; j += {stride}) acc += a[j];\n\
             \x20   la[l] = acc;\n\
             \x20   barrier(CLK_LOCAL_MEM_FENCE);\n\
             \x20   for (size_t off = L / 2 + 1; off > 0; {step}) {{\n\
             \x20       float x = la[l], y = la[{partner}], fx = x;\n\
             \x20       int ix = (int)l ^ (int)off, iy = ia[i] + (int)off;\n\
             {body}\
             {store}\
             \x20       io[i] = {ie};\n\
             \x20       barrier(CLK_LOCAL_MEM_FENCE);\n\
             \x20       la[l] = lb[l];\n\
             \x20       barrier(CLK_LOCAL_MEM_FENCE);\n\
             \x20   }}\n\
             \x20   lb[l] = la[l];\n\
             \x20   barrier(CLK_LOCAL_MEM_FENCE);\n\
             \x20   for (size_t m = L; m > 1;) {{\n\
             \x20       size_t h = (m + 1) / 2;\n\
             \x20       if ({cut}) lb[l] += lb[l + h];\n\
             \x20       barrier(CLK_LOCAL_MEM_FENCE);\n\
             \x20       m = h;\n\
             \x20   }}\n\
             \x20   o[i] = la[l] + lb[0];\n\
             }}\n"
        )
    }
}

fn sources(seed: u64) -> Vec<String> {
    let mut g = Gen(Rng::new(seed));
    (0..KERNELS).map(|n| g.kernel(n)).collect()
}

/// The kernels with barriers (named r0, r1, ...).
fn region_sources(seed: u64) -> Vec<String> {
    let mut g = Gen(Rng::new(seed ^ 0x5eed));
    (0..REGION_KERNELS).map(|n| g.region_kernel(n)).collect()
}

/// The kernels of 8- and 16-bit integers only (named b0, b1, ...).
fn byte_sources(seed: u64) -> Vec<String> {
    let mut g = Gen(Rng::new(seed ^ 0xb17e));
    (0..BYTE_KERNELS).map(|n| g.byte_kernel(n)).collect()
}

/// In a child: every kernel's outputs for each launch, NaNs made canonical, one line each.
#[test]
fn differential_child() {
    let Some(out) = std::env::var_os("CTS_SIMD_DIFF_OUT") else {
        return;
    };
    let ctx = Context::new();
    let q = ctx.queue();
    let mut text = String::new();
    for seed in SEEDS {
        let srcs = sources(seed);
        let all = "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n".to_string()
            + &srcs.concat()
            + &region_sources(seed).concat()
            + &byte_sources(seed).concat();
        // (CTS_SIMD_DIFF_SRC: where to write the kernels' source, for a look at them.)
        if let Some(dir) = std::env::var_os("CTS_SIMD_DIFF_SRC") {
            std::fs::write(std::path::Path::new(&dir).join(format!("seed{seed}.cl")), &all).expect("write the source");
        }
        let p = ctx.program_source(&all);
        let err = p.build("-cl-std=CL3.0");
        assert_eq!(err, CL_SUCCESS, "build: {}", p.build_log());
        let mut rng = Rng::new(seed);
        // (Loops store at o[300 + i], atomics at io[300 + i] and io[420], vectors at
        // o[512 + 4 * i], 64-bit compare-and-swap loops at io[936 + 2 * i], vector data
        // stores at o[1200 + 3 * i], o[1520 + 4 * i] and halves at io[1600..], narrow
        // vectors and scalars at io[1700..2422], apart from every other store.)
        let len = 2560;
        let mut a: Vec<f32> = (0..len).map(|_| rng.range_f64(-5.0, 5.0) as f32).collect();
        a[..6].copy_from_slice(&[0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 1e-40]);
        let b: Vec<f32> = (0..len).map(|_| rng.range_f64(-5.0, 5.0) as f32).collect();
        let mut ia: Vec<i32> = (0..len).map(|_| rng.next_u64() as i32).collect();
        ia[..4].copy_from_slice(&[0, -1, i32::MAX, i32::MIN]);
        let (ba, bb, bi) = (
            ctx.buffer_from(as_bytes(&a)),
            ctx.buffer_from(as_bytes(&b)),
            ctx.buffer_from(as_bytes(&ia)),
        );
        let names = (0..KERNELS)
            .map(|n| format!("k{n}"))
            .chain((0..REGION_KERNELS).map(|n| format!("r{n}")))
            .chain((0..BYTE_KERNELS).map(|n| format!("b{n}")));
        for name in names {
            let k = p.kernel(&name);
            for (global, local) in [(N, vec![]), (N / 7 * 7, vec![7]), (N / 16 * 16, vec![16]), (N, vec![1])] {
                let o = ctx.buffer_from(&vec![0xffu8; 4 * len]);
                let io = ctx.buffer_from(&vec![0xffu8; 4 * len]);
                k.arg_mem(0, &ba);
                k.arg_mem(1, &bb);
                k.arg_mem(2, &bi);
                k.arg_mem(3, &o);
                k.arg_mem(4, &io);
                k.arg(5, &1.25f32);
                k.arg(6, &-3i32);
                if name.starts_with('r') {
                    // The group size Clift picks is at most 1024.
                    let group = local.first().copied().unwrap_or(1024);
                    k.arg_local(7, 4 * group);
                    k.arg_local(8, 4 * group);
                }
                q.run(&k, &[], &[global], &local);
                let fo: Vec<f32> = from_bytes(&q.read(&o, 0, 4 * len));
                let io: Vec<u32> = from_bytes(&q.read(&io, 0, 4 * len));
                let bits: Vec<String> = fo
                    .iter()
                    .map(|v| if v.is_nan() { 0x7fc0_0000 } else { v.to_bits() })
                    .chain(io)
                    .map(|v| format!("{v:08x}"))
                    .collect();
                text.push_str(&format!("{seed} {name} {local:?} {}\n", bits.join(" ")));
            }
        }
    }
    std::fs::write(out, text).expect("write the outputs");
}

/// A child run with `CLIFT_SIMD=simd` and `CLIFT_SIMD_QUADS=quads` (quads per vector
/// iteration: `2` forces eight work-items wherever the vector body allows).
fn run_child(simd: &str, quads: &str, out: &std::path::Path) {
    let r = test_child("differential_child")
        .env("CTS_SIMD_DIFF_OUT", out)
        .env("CLIFT_SIMD", simd)
        .env("CLIFT_SIMD_QUADS", quads)
        .env("CLIFT_CACHE", "0")
        .output()
        .expect("run the child");
    assert!(
        r.status.success() && out.exists(),
        "child with CLIFT_SIMD={simd} CLIFT_SIMD_QUADS={quads} failed:\n{}\n{}",
        String::from_utf8_lossy(&r.stdout),
        String::from_utf8_lossy(&r.stderr)
    );
}

#[test]
fn vector_loop_matches_scalar_loop() {
    if !platform_string(platform(), CL_PLATFORM_NAME).contains("Clift") {
        return;
    }
    let dir = TempDir::new("simd-diff");
    let (v, v2, s) = (
        dir.path().join("vector"),
        dir.path().join("vector2"),
        dir.path().join("scalar"),
    );
    let v16 = dir.path().join("vector16");
    run_child("check", "1", &v);
    run_child("check", "2", &v2);
    run_child("check", "auto", &v16);
    run_child("0", "1", &s);
    let s = std::fs::read_to_string(s).expect("scalar");
    for (quads, v) in [
        ("one quad", v),
        ("two quads", v2),
        ("as chosen, sixteen for bytes", v16),
    ] {
        let v = std::fs::read_to_string(v).expect("vector");
        compare(quads, &v, &s);
    }
}

/// The vector loop's outputs (`quads` per iteration) against the scalar loop's.
fn compare(quads: &str, v: &str, s: &str) {
    assert_eq!(
        v.lines().count(),
        SEEDS.len() * (KERNELS + REGION_KERNELS + BYTE_KERNELS) * 4
    );
    for (lv, ls) in v.lines().zip(s.lines()) {
        if lv != ls {
            let words: Vec<&str> = lv.split(' ').collect();
            let (seed, name) = (words[0], words[1]);
            let n: usize = name[1..].parse().unwrap_or(0);
            let seed_n = seed.parse().unwrap_or(0);
            let src = if name.starts_with('r') {
                &region_sources(seed_n)[n]
            } else if name.starts_with('b') {
                &byte_sources(seed_n)[n]
            } else {
                &sources(seed_n)[n]
            };
            let first = lv.split(' ').zip(ls.split(' ')).position(|(a, b)| a != b);
            panic!(
                "{seed} {name}: vector ({quads}) and scalar loops differ (word {first:?}):\n{src}\nvector: {lv}\nscalar: {ls}"
            );
        }
    }
}
