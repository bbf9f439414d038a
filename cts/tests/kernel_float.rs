//! Floating-point instruction family for float and double at every vector width (1, 2, 3, 4,
//! 8, 16): OpFAdd/FSub/FMul/FDiv/FNegate, the OpenCL.std fma, fabs, floor, ceil, fmin, fmax,
//! sqrt and copysign, ordered/unordered compares, OpIsNan and OpSelect, against a host
//! reference (exact where the SPIR-V environment requires correct rounding, within its ULP
//! bound otherwise). Kernels: kernels/float_arith.cl and
//! kernels/double_arith.cl (-> .spvasm).

use cts::*;

mod spirv_asm;
use spirv_asm::spirv;

const WIDTHS: [usize; 6] = [1, 2, 3, 4, 8, 16];
const N: usize = 29;
const OPS: usize = 16;

trait Float: Copy + PartialOrd + std::fmt::Debug + Default + std::ops::Neg<Output = Self> {
    const DOUBLE: bool;
    fn from_f64(v: f64) -> Self;
    fn to_f64(self) -> f64;
    fn bits(self) -> u64;
    fn is_nan(self) -> bool;
    fn add(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    fn div(self, o: Self) -> Self;
    fn fma(self, a: Self, b: Self) -> Self;
    fn abs(self) -> Self;
    fn floor(self) -> Self;
    fn ceil(self) -> Self;
    fn sqrt(self) -> Self;
    fn copysign(self, s: Self) -> Self;
    /// Distance in units in the last place between two finite values of the same sign.
    fn ulps(self, o: Self) -> u64;
}

macro_rules! float_impl {
    ($t:ty, $d:expr) => {
        impl Float for $t {
            const DOUBLE: bool = $d;
            fn from_f64(v: f64) -> Self {
                v as $t
            }
            fn to_f64(self) -> f64 {
                self as f64
            }
            fn bits(self) -> u64 {
                self.to_bits() as u64
            }
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
            fn add(self, o: Self) -> Self {
                self + o
            }
            fn sub(self, o: Self) -> Self {
                self - o
            }
            fn mul(self, o: Self) -> Self {
                self * o
            }
            fn div(self, o: Self) -> Self {
                self / o
            }
            fn fma(self, a: Self, b: Self) -> Self {
                self.mul_add(a, b)
            }
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
            fn floor(self) -> Self {
                <$t>::floor(self)
            }
            fn ceil(self) -> Self {
                <$t>::ceil(self)
            }
            fn sqrt(self) -> Self {
                <$t>::sqrt(self)
            }
            fn copysign(self, s: Self) -> Self {
                <$t>::copysign(self, s)
            }
            fn ulps(self, o: Self) -> u64 {
                if self.is_sign_negative() != o.is_sign_negative() {
                    return u64::MAX;
                }
                (self.to_bits() as i128 - o.to_bits() as i128).unsigned_abs() as u64
            }
        }
    };
}
float_impl!(f32, false);
float_impl!(f64, true);

/// OpenCL fmin/fmax: a NaN operand gives the other operand.
fn fmin<T: Float>(x: T, y: T) -> T {
    if x.is_nan() {
        y
    } else if y.is_nan() || x < y {
        x
    } else {
        y
    }
}
fn fmax<T: Float>(x: T, y: T) -> T {
    if x.is_nan() {
        y
    } else if y.is_nan() || x > y {
        x
    } else {
        y
    }
}

/// (expected value, allowed ULP error) for each of the 16 results.
fn reference<T: Float>(x: T, y: T, z: T) -> [(T, u64); OPS] {
    let div_ulps = if T::DOUBLE { 0 } else { 2 }; // <= 2.5 ulp for float
    let sqrt_ulps = if T::DOUBLE { 0 } else { 3 };
    [
        (x.add(y), 0),
        (x.sub(y), 0),
        (x.mul(y), 0),
        (x.div(y), div_ulps),
        (x.fma(y, z), 0),
        (-x, 0),
        (x.abs(), 0),
        (x.floor(), 0),
        (x.ceil(), 0),
        (fmin(x, y), 0),
        (fmax(x, y), 0),
        (x.abs().sqrt(), sqrt_ulps),
        (if x < y { x } else { z }, 0),
        (if x.is_nan() { y } else { z }, 0),
        (
            if x.is_nan() || y.is_nan() || x.to_f64() != y.to_f64() {
                x
            } else {
                z
            },
            0,
        ),
        (x.copysign(y), 0),
    ]
}

/// Inputs avoiding denormal operands and results (a device may flush them): special values
/// first, then values of magnitude 2^-20 .. 2^20 with random mantissas, some equal pairs.
fn inputs<T: Float>(count: usize, seed: u64) -> (Vec<T>, Vec<T>, Vec<T>) {
    let r = pattern(count * 3 * 8, seed);
    let val = |k: usize| {
        let w = u64::from_le_bytes(r[k * 8..k * 8 + 8].try_into().unwrap());
        let mant = 1.0 + (w & 0xFFFFF) as f64 / (1u64 << 20) as f64;
        let exp = ((w >> 20) % 41) as i32 - 20;
        let sign = if (w >> 40) & 1 == 1 { -1.0 } else { 1.0 };
        let v = sign * mant * 2f64.powi(exp);
        if (w >> 41) % 7 == 0 {
            v.trunc() + 0.5 // halfway and integral values for floor/ceil
        } else {
            v
        }
    };
    let specials = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 0.0, -0.0, 1.0, -2.5, 3.0];
    let mut a = Vec::new();
    let mut b = Vec::new();
    let mut c = Vec::new();
    for i in 0..count {
        let mut x = val(3 * i);
        let mut y = val(3 * i + 1);
        let z = val(3 * i + 2);
        if i < specials.len() {
            x = specials[i];
        }
        if (8..16).contains(&i) {
            y = specials[i - 8];
        }
        if i % 9 == 4 {
            y = x;
        }
        if x == 0.0 && y == 0.0 {
            y = 1.0; // fmin/fmax of +0 and -0 may return either
        }
        a.push(T::from_f64(x));
        b.push(T::from_f64(y));
        c.push(T::from_f64(z));
    }
    (a, b, c)
}

fn run_type<T: Float>(tname: &str, module: &str) {
    let ctx = Context::new();
    let q = ctx.queue();
    let prog = ctx.built_program(module, &spirv(module));
    for (wi, &w) in WIDTHS.iter().enumerate() {
        let p = if w == 3 { 4 } else { w };
        let (a, b, c) = inputs::<T>(N * p, 7 + wi as u64);
        let (ba, bb, bc) = (
            ctx.buffer_from(as_bytes(&a)),
            ctx.buffer_from(as_bytes(&b)),
            ctx.buffer_from(as_bytes(&c)),
        );
        let size = std::mem::size_of::<T>();
        let bo = ctx.buffer(N * p * OPS * size);
        let k = prog.kernel(&format!("ops_{tname}{w}"));
        for (i, m) in [&ba, &bb, &bc, &bo].iter().enumerate() {
            k.arg_mem(i as cl_uint, m);
        }
        q.run(&k, &[], &[N], &[]);
        let o: Vec<T> = from_bytes(&q.read(&bo, 0, N * p * OPS * size));
        for i in 0..N {
            for comp in 0..w {
                let (x, y, z) = (a[i * p + comp], b[i * p + comp], c[i * p + comp]);
                for (op, &(want, ulps)) in reference(x, y, z).iter().enumerate() {
                    let got = o[(i * OPS + op) * p + comp];
                    let good = if want.is_nan() {
                        got.is_nan()
                    } else if ulps == 0 {
                        got.bits() == want.bits()
                    } else {
                        !got.is_nan() && (got.bits() == want.bits() || got.ulps(want) <= ulps)
                    };
                    assert!(
                        good,
                        "ops_{tname}{w}: vector {i} component {comp} op {op}: got {got:?}, want {want:?} \
                         (x = {x:?}, y = {y:?}, z = {z:?})"
                    );
                }
            }
        }
    }
}

#[test]
fn ops_float_every_width() {
    if !isolate("ops_float_every_width") {
        return;
    }
    run_type::<f32>("float", "float_arith");
}

#[test]
fn ops_double_every_width() {
    if !isolate("ops_double_every_width") {
        return;
    }
    let ext = device_string(CL_DEVICE_EXTENSIONS);
    assert!(ext.contains("cl_khr_fp64"), "the device must support doubles (Float64)");
    run_type::<f64>("double", "double_arith");
}
