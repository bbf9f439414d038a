//! The element types of the work-group and sub-group function tests (workgroup_collectives.rs,
//! subgroup_functions.rs): host arithmetic and test inputs per OpenCL C type.

#![allow(dead_code)]

pub trait Elem: Copy + PartialEq + std::fmt::Debug {
    const NAME: &'static str;
    fn add(a: Self, b: Self) -> Self;
    fn min(a: Self, b: Self) -> Self;
    fn max(a: Self, b: Self) -> Self;
    fn zero() -> Self;
    fn min_id() -> Self;
    fn max_id() -> Self;
    /// Test input number `i` (floats: small integers, so sums are exact in any order).
    fn input(i: usize) -> Self;
}

macro_rules! int_elem {
    ($t:ty, $name:literal) => {
        impl Elem for $t {
            const NAME: &'static str = $name;
            fn add(a: Self, b: Self) -> Self {
                a.wrapping_add(b)
            }
            fn min(a: Self, b: Self) -> Self {
                Ord::min(a, b)
            }
            fn max(a: Self, b: Self) -> Self {
                Ord::max(a, b)
            }
            fn zero() -> Self {
                0
            }
            fn min_id() -> Self {
                <$t>::MAX
            }
            fn max_id() -> Self {
                <$t>::MIN
            }
            fn input(i: usize) -> Self {
                // Spread over the whole range (sums wrap), with some repeats.
                let x = (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(17) ^ (i as u64 % 7);
                x as $t
            }
        }
    };
}
int_elem!(i32, "int");
int_elem!(u32, "uint");
int_elem!(i64, "long");
int_elem!(u64, "ulong");

macro_rules! float_elem {
    ($t:ty, $name:literal) => {
        impl Elem for $t {
            const NAME: &'static str = $name;
            fn add(a: Self, b: Self) -> Self {
                a + b
            }
            fn min(a: Self, b: Self) -> Self {
                a.min(b)
            }
            fn max(a: Self, b: Self) -> Self {
                a.max(b)
            }
            fn zero() -> Self {
                0.0
            }
            fn min_id() -> Self {
                <$t>::INFINITY
            }
            fn max_id() -> Self {
                <$t>::NEG_INFINITY
            }
            fn input(i: usize) -> Self {
                (((i * 7919) % 201) as i32 - 100) as $t
            }
        }
    };
}
float_elem!(f32, "float");
float_elem!(f64, "double");

/// The operation of a function name ending in `_add`, `_min` or `_max`, and its identity.
pub fn operation<T: Elem>(func: &str) -> (fn(T, T) -> T, T) {
    if func.ends_with("add") {
        (T::add, T::zero())
    } else if func.ends_with("min") {
        (T::min, T::min_id())
    } else {
        (T::max, T::max_id())
    }
}

/// Reduce, inclusive or exclusive scan (by the function name) of `vals` in order.
pub fn collective<T: Elem>(func: &str, vals: &[T]) -> Vec<T> {
    let (f, id) = operation::<T>(func);
    let total = vals.iter().fold(id, |a, &v| f(a, v));
    let mut acc = id;
    vals.iter()
        .map(|&v| {
            let before = acc;
            acc = f(acc, v);
            if func.starts_with("reduce") {
                total
            } else if func.starts_with("scan_inclusive") {
                acc
            } else {
                before
            }
        })
        .collect()
}

pub const FUNCTIONS: [&str; 9] = [
    "reduce_add",
    "reduce_min",
    "reduce_max",
    "scan_inclusive_add",
    "scan_inclusive_min",
    "scan_inclusive_max",
    "scan_exclusive_add",
    "scan_exclusive_min",
    "scan_exclusive_max",
];
