// Every CLK_* channel order and channel data type constant of an image format the device may
// list, written out in a fixed order, for tests/kernel_object.rs (clang 15's header lacks
// CLK_UNORM_INT_101010_2, and the sRGB orders and CLK_ABGR before OpenCL C 2.0). Also the
// queried format of an image argument. Constants clang 15 may lack read -1 when the front end
// does not define them (allowed only for formats the device does not list).

#ifndef CLK_sRGB
#define CLK_sRGB (-1)
#endif
#ifndef CLK_sRGBx
#define CLK_sRGBx (-1)
#endif
#ifndef CLK_sRGBA
#define CLK_sRGBA (-1)
#endif
#ifndef CLK_sBGRA
#define CLK_sBGRA (-1)
#endif
#ifndef CLK_ABGR
#define CLK_ABGR (-1)
#endif
#ifndef CLK_UNORM_INT_101010_2
#define CLK_UNORM_INT_101010_2 (-1)
#endif

kernel void constants(global int *out) {
    int v[] = {
        CLK_R, CLK_A, CLK_RG, CLK_RA, CLK_RGB, CLK_RGBA, CLK_BGRA, CLK_ARGB, CLK_INTENSITY,
        CLK_LUMINANCE, CLK_Rx, CLK_RGx, CLK_RGBx, CLK_DEPTH, CLK_sRGB, CLK_sRGBx, CLK_sRGBA,
        CLK_sBGRA, CLK_ABGR,
        CLK_SNORM_INT8, CLK_SNORM_INT16, CLK_UNORM_INT8, CLK_UNORM_INT16, CLK_UNORM_SHORT_565,
        CLK_UNORM_SHORT_555, CLK_UNORM_INT_101010, CLK_UNORM_INT_101010_2, CLK_SIGNED_INT8,
        CLK_SIGNED_INT16, CLK_SIGNED_INT32, CLK_UNSIGNED_INT8, CLK_UNSIGNED_INT16,
        CLK_UNSIGNED_INT32, CLK_HALF_FLOAT, CLK_FLOAT,
    };
    for (int i = 0; i < (int)(sizeof(v) / sizeof(v[0])); i++)
        out[i] = v[i];
}

kernel void format_of(read_only image2d_t img, global int *out) {
    out[0] = get_image_channel_order(img);
    out[1] = get_image_channel_data_type(img);
    out[2] = get_image_channel_data_type(img) == CLK_UNORM_INT_101010_2;
}
