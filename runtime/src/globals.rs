//! Program-scope variables in the global address space (OpenCL C 2.0 `global int x = 3;` and
//! `static global` variables in functions): SPIR-V `CrossWorkgroup` OpVariables.
//!
//! The JIT places each one in the data of the program's compiled module
//! (`jit::codegen::module`), initialised from its initializer, so there is one copy per built
//! program (per device: Clift has one), which every kernel of the program shares and which
//! persists across enqueues until the program is built again or released. This module only
//! measures them, for `CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE`.

use jit::spirv::module::{ConstantValue, Type};
use jit::spirv::Module;
use rspirv::spirv::{Decoration, LinkageType, StorageClass};

/// Bytes of program-scope global variables the module defines (imported declarations, which
/// another module defines, are not counted), each rounded up to its alignment.
pub fn total_size(module: &Module) -> usize {
    let imported = |id| {
        module.decorations.iter().any(|d| {
            d.target == id
                && d.decoration == Decoration::LinkageAttributes
                && d.linkage().is_some_and(|(_, t)| t == LinkageType::Import)
        })
    };
    let mut total = 0usize;
    for v in &module.variables {
        if v.storage != StorageClass::CrossWorkgroup || imported(v.id) {
            continue;
        }
        let Some(Type::Pointer { pointee, .. }) = module.type_of(v.ty) else {
            continue;
        };
        let (size, align) = size_align(module, *pointee, 0);
        total = total.next_multiple_of(align.max(1)) + size;
    }
    total
}

/// Size and alignment of a type under the OpenCL C layout rules (3-element vectors take 4).
fn size_align(module: &Module, ty: u32, depth: u32) -> (usize, usize) {
    if depth > 64 {
        return (0, 1);
    }
    match module.type_of(ty) {
        Some(Type::Bool) => (1, 1),
        Some(Type::Int { width, .. }) | Some(Type::Float { width }) => {
            let n = (*width as usize / 8).max(1);
            (n, n)
        }
        Some(Type::Pointer { .. }) | Some(Type::Event) => (8, 8),
        Some(Type::Vector { component, count }) => {
            let (e, _) = size_align(module, *component, depth + 1);
            let n = if *count == 3 { 4 } else { *count as usize };
            (e * n, e * n)
        }
        Some(Type::Array { element, length }) => {
            let (e, a) = size_align(module, *element, depth + 1);
            let len = match module.constant(*length).map(|c| &c.value) {
                Some(ConstantValue::Scalar(v)) => *v as usize,
                _ => 0,
            };
            (e.next_multiple_of(a.max(1)).saturating_mul(len), a)
        }
        Some(Type::Struct { members }) => {
            let packed = module
                .decorations
                .iter()
                .any(|d| d.target == ty && d.decoration == Decoration::CPacked);
            let mut size = 0usize;
            let mut align = 1usize;
            for m in members {
                let (s, a) = size_align(module, *m, depth + 1);
                let a = if packed { 1 } else { a.max(1) };
                size = size.next_multiple_of(a) + s;
                align = align.max(a);
            }
            (size.next_multiple_of(align), align)
        }
        _ => (0, 1),
    }
}
