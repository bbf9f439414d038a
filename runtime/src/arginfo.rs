//! Kernel argument information (clGetKernelArgInfo): names from OpName, type names and type
//! qualifiers from the `kernel_arg_type.<kernel>.` and `kernel_arg_type_qual.<kernel>.`
//! OpStrings that the SPIR-V translator writes for OpenCL C, address and access qualifiers
//! from the parameter types.

use jit::spirv::module::{Module, Type};
use opencl_sys::*;
use rspirv::spirv::{AccessQualifier, Dim, StorageClass};

/// What is known about one kernel parameter; `None` fields are not available.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ArgInfo {
    pub name: Option<String>,
    pub type_name: Option<String>,
    pub address: cl_kernel_arg_address_qualifier,
    pub access: cl_kernel_arg_access_qualifier,
    pub type_qualifier: Option<cl_kernel_arg_type_qualifier>,
    /// For an image parameter, the image type it takes (`CL_MEM_OBJECT_IMAGE2D`, ...) and
    /// whether it is a depth image (clSetKernelArg checks the image object against both).
    pub image: Option<(cl_mem_object_type, bool)>,
}

/// The image type of an OpTypeImage parameter (Dim, Arrayed) and whether Depth is set.
fn image_type(dim: Dim, arrayed: u32, depth: u32) -> Option<(cl_mem_object_type, bool)> {
    let image_type = match (dim, arrayed != 0) {
        (Dim::Dim1D, false) => CL_MEM_OBJECT_IMAGE1D,
        (Dim::Dim1D, true) => CL_MEM_OBJECT_IMAGE1D_ARRAY,
        (Dim::DimBuffer, _) => CL_MEM_OBJECT_IMAGE1D_BUFFER,
        (Dim::Dim2D, false) => CL_MEM_OBJECT_IMAGE2D,
        (Dim::Dim2D, true) => CL_MEM_OBJECT_IMAGE2D_ARRAY,
        (Dim::Dim3D, _) => CL_MEM_OBJECT_IMAGE3D,
        _ => return None,
    };
    Some((image_type, depth == 1))
}

/// The comma-terminated list in the OpString `<prefix><kernel>.`, split per argument.
fn string_list(module: &Module, prefix: &str, kernel: &str) -> Option<Vec<String>> {
    let key = format!("{prefix}{kernel}.");
    let (_, text) = module.strings.iter().find(|(_, s)| s.starts_with(&key))?;
    let body = &text[key.len()..];
    Some(body.split(',').map(str::to_string).collect())
}

fn qualifier_bits(text: &str) -> cl_kernel_arg_type_qualifier {
    text.split_ascii_whitespace()
        .map(|q| match q {
            "const" => CL_KERNEL_ARG_TYPE_CONST,
            "restrict" => CL_KERNEL_ARG_TYPE_RESTRICT,
            "volatile" => CL_KERNEL_ARG_TYPE_VOLATILE,
            "pipe" => CL_KERNEL_ARG_TYPE_PIPE,
            _ => CL_KERNEL_ARG_TYPE_NONE,
        })
        .fold(CL_KERNEL_ARG_TYPE_NONE, |a, b| a | b)
}

/// The information for each parameter of `kernel`, in order.
pub fn kernel_args(module: &Module, kernel: &str) -> Vec<ArgInfo> {
    let Some(entry) = module.entry_points.iter().find(|e| e.name == kernel) else {
        return Vec::new();
    };
    let Some(function) = module.function(entry.function) else {
        return Vec::new();
    };
    // llvm-spirv wraps each kernel: the entry point's parameters may be unnamed while the
    // function that carries the kernel's name has the source names.
    let named = module
        .names
        .iter()
        .filter(|(_, n)| n == kernel)
        .filter_map(|(id, _)| module.function(*id))
        .find(|f| f.params.len() == function.params.len());
    let types = string_list(module, "kernel_arg_type.", kernel);
    let quals = string_list(module, "kernel_arg_type_qual.", kernel);
    function
        .params
        .iter()
        .enumerate()
        .map(|(i, &(id, ty))| {
            let name = module
                .name_of(id)
                .or_else(|| named.and_then(|f| module.name_of(f.params[i].0)))
                .map(str::to_string);
            let (address, access) = match module.type_of(ty) {
                Some(Type::Pointer { storage, .. }) => (
                    match storage {
                        StorageClass::CrossWorkgroup => CL_KERNEL_ARG_ADDRESS_GLOBAL,
                        StorageClass::Workgroup => CL_KERNEL_ARG_ADDRESS_LOCAL,
                        StorageClass::UniformConstant => CL_KERNEL_ARG_ADDRESS_CONSTANT,
                        _ => CL_KERNEL_ARG_ADDRESS_PRIVATE,
                    },
                    CL_KERNEL_ARG_ACCESS_NONE,
                ),
                // Images are global memory objects with an access qualifier.
                Some(Type::Image { access, .. }) => (
                    CL_KERNEL_ARG_ADDRESS_GLOBAL,
                    match access {
                        Some(AccessQualifier::WriteOnly) => CL_KERNEL_ARG_ACCESS_WRITE_ONLY,
                        Some(AccessQualifier::ReadWrite) => CL_KERNEL_ARG_ACCESS_READ_WRITE,
                        _ => CL_KERNEL_ARG_ACCESS_READ_ONLY,
                    },
                ),
                _ => (CL_KERNEL_ARG_ADDRESS_PRIVATE, CL_KERNEL_ARG_ACCESS_NONE),
            };
            let image = match module.type_of(ty) {
                Some(&Type::Image {
                    dim, arrayed, depth, ..
                }) => image_type(dim, arrayed, depth),
                _ => None,
            };
            ArgInfo {
                name,
                type_name: types.as_ref().and_then(|t| t.get(i).cloned()),
                address,
                access,
                type_qualifier: quals.as_ref().and_then(|q| q.get(i)).map(|q| qualifier_bits(q)),
                image,
            }
        })
        .collect()
}
