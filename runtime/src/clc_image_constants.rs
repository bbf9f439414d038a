//! The `CLK_*` channel order and channel data type constants of every image format the device
//! lists (OpenCL C, "Image Query Functions": `get_image_channel_order` and
//! `get_image_channel_data_type` return them), for the OpenCL C front end. clang 15's default
//! header lacks some (`CLK_UNORM_INT_101010_2`; the sRGB orders and `CLK_ABGR` before OpenCL C
//! 2.0), and a kernel that names a missing one does not build. Each is defined only where the
//! header left it undefined; the values are the API's `CL_*` values, which the `CLK_*` ones
//! equal.

use crate::image::{supported_formats, IMAGE_TYPES};
use opencl_sys::*;

/// Every channel order Clift knows, with its OpenCL C name.
const ORDERS: &[(&str, cl_channel_order)] = &[
    ("CLK_R", CL_R),
    ("CLK_A", CL_A),
    ("CLK_RG", CL_RG),
    ("CLK_RA", CL_RA),
    ("CLK_RGB", CL_RGB),
    ("CLK_RGBA", CL_RGBA),
    ("CLK_BGRA", CL_BGRA),
    ("CLK_ARGB", CL_ARGB),
    ("CLK_INTENSITY", CL_INTENSITY),
    ("CLK_LUMINANCE", CL_LUMINANCE),
    ("CLK_Rx", CL_Rx),
    ("CLK_RGx", CL_RGx),
    ("CLK_RGBx", CL_RGBx),
    ("CLK_DEPTH", CL_DEPTH),
    ("CLK_sRGB", CL_sRGB),
    ("CLK_sRGBx", CL_sRGBx),
    ("CLK_sRGBA", CL_sRGBA),
    ("CLK_sBGRA", CL_sBGRA),
    ("CLK_ABGR", CL_ABGR),
];

/// Every channel data type Clift knows, with its OpenCL C name.
const DATA_TYPES: &[(&str, cl_channel_type)] = &[
    ("CLK_SNORM_INT8", CL_SNORM_INT8),
    ("CLK_SNORM_INT16", CL_SNORM_INT16),
    ("CLK_UNORM_INT8", CL_UNORM_INT8),
    ("CLK_UNORM_INT16", CL_UNORM_INT16),
    ("CLK_UNORM_SHORT_565", CL_UNORM_SHORT_565),
    ("CLK_UNORM_SHORT_555", CL_UNORM_SHORT_555),
    ("CLK_UNORM_INT_101010", CL_UNORM_INT_101010),
    ("CLK_UNORM_INT_101010_2", CL_UNORM_INT_101010_2),
    ("CLK_SIGNED_INT8", CL_SIGNED_INT8),
    ("CLK_SIGNED_INT16", CL_SIGNED_INT16),
    ("CLK_SIGNED_INT32", CL_SIGNED_INT32),
    ("CLK_UNSIGNED_INT8", CL_UNSIGNED_INT8),
    ("CLK_UNSIGNED_INT16", CL_UNSIGNED_INT16),
    ("CLK_UNSIGNED_INT32", CL_UNSIGNED_INT32),
    ("CLK_HALF_FLOAT", CL_HALF_FLOAT),
    ("CLK_FLOAT", CL_FLOAT),
];

/// `#ifndef`/`#define` lines for the constants of the listed formats (none without images).
pub fn header() -> String {
    let listed: Vec<(u32, u32)> = IMAGE_TYPES
        .iter()
        .flat_map(|&t| supported_formats(t))
        .map(|f| (f.image_channel_order, f.image_channel_data_type))
        .collect();
    let orders = ORDERS.iter().filter(|(_, o)| listed.iter().any(|(lo, _)| lo == o));
    let types = DATA_TYPES.iter().filter(|(_, t)| listed.iter().any(|(_, lt)| lt == t));
    let mut text = String::new();
    for (name, value) in orders.chain(types) {
        text.push_str(&format!("#ifndef {name}\n#define {name} {value:#06x}\n#endif\n"));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_order_and_type_has_a_name() {
        let text = header();
        for t in IMAGE_TYPES {
            for f in supported_formats(t) {
                let order = ORDERS.iter().find(|(_, o)| *o == f.image_channel_order);
                let ty = DATA_TYPES.iter().find(|(_, d)| *d == f.image_channel_data_type);
                let (Some((on, _)), Some((tn, _))) = (order, ty) else {
                    panic!("format {f:?} has no CLK_ name here");
                };
                assert!(text.contains(&format!("#define {on} ")), "{on}");
                assert!(text.contains(&format!("#define {tn} ")), "{tn}");
            }
        }
        assert!(text.contains("#define CLK_UNORM_INT_101010_2 0x10e0\n"));
    }
}
