//! Linking modules: imports resolved against exports, shared types, unresolved symbols.

use jit::spirv::{assemble, link, parse_words, validate, AsmOptions, DeviceFeatures};

const LIB: &str = r#"
OpCapability Addresses
OpCapability Linkage
OpCapability Kernel
OpMemoryModel Physical64 OpenCL
OpDecorate %twice LinkageAttributes "twice" Export
%uint = OpTypeInt 32 0
%fn = OpTypeFunction %uint %uint
%twice = OpFunction %uint None %fn
%x = OpFunctionParameter %uint
%entry = OpLabel
%r = OpIAdd %uint %x %x
OpReturnValue %r
OpFunctionEnd
"#;

const USER: &str = r#"
OpCapability Addresses
OpCapability Linkage
OpCapability Kernel
OpMemoryModel Physical64 OpenCL
OpEntryPoint Kernel %main "main"
OpDecorate %twice LinkageAttributes "twice" Import
%void = OpTypeVoid
%uint = OpTypeInt 32 0
%ptr = OpTypePointer CrossWorkgroup %uint
%fn = OpTypeFunction %uint %uint
%kfn = OpTypeFunction %void %ptr
%twice = OpFunction %uint None %fn
%x = OpFunctionParameter %uint
OpFunctionEnd
%main = OpFunction %void None %kfn
%p = OpFunctionParameter %ptr
%entry = OpLabel
%v = OpLoad %uint %p
%r = OpFunctionCall %uint %twice %v
OpStore %p %r
OpReturn
OpFunctionEnd
"#;

fn module(text: &str) -> jit::spirv::Module {
    let words = assemble(
        text,
        AsmOptions {
            version: (1, 0),
            ..AsmOptions::default()
        },
    )
    .expect("assembles");
    parse_words(&words).expect("parses")
}

#[test]
fn import_resolves_to_export() {
    let (lib, user) = (module(LIB), module(USER));
    let linked = link(&[&user, &lib], false).expect("links");
    validate(&linked, &DeviceFeatures::default()).expect("linked module is valid");
    // The import declaration is gone; one definition of `twice` remains with a body.
    assert_eq!(linked.functions.len(), 2);
    assert!(linked.functions.iter().all(|f| !f.is_declaration()));
    // The two %uint types became one.
    let ints = linked
        .types
        .iter()
        .filter(|t| matches!(t.ty, jit::spirv::module::Type::Int { width: 32, .. }))
        .count();
    assert_eq!(ints, 1);
}

#[test]
fn unresolved_import_is_an_error_unless_a_library() {
    let user = module(USER);
    let err = link(&[&user], false).expect_err("unresolved");
    assert!(err.0.contains("twice"), "{err}");
    assert!(link(&[&user], true).is_ok());
}

#[test]
fn duplicate_export_is_an_error() {
    let lib = module(LIB);
    assert!(link(&[&lib, &lib], false).is_err());
}

#[test]
fn links_translator_output() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../cts/kernels/");
    let load = |name: &str| {
        let text = std::fs::read_to_string(format!("{dir}{name}")).expect("kernel file");
        module_v(&text)
    };
    let (main, lib) = (load("link_main.spvasm"), load("link_lib.spvasm"));
    for order in [[&main, &lib], [&lib, &main]] {
        let linked = link(&order, false).expect("links");
        validate(&linked, &DeviceFeatures::default()).unwrap_or_else(|e| panic!("{e}"));
    }
}

fn module_v(text: &str) -> jit::spirv::Module {
    let words = assemble(
        text,
        AsmOptions {
            version: (1, 0),
            ..AsmOptions::default()
        },
    )
    .expect("assembles");
    parse_words(&words).expect("parses")
}
