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

/// A caller whose import declaration of `twice` carries parameter names and decorations, as
/// llvm-spirv writes an `extern kernel` declaration: they go with the declaration.
const USER_DECORATED_PARAMS: &str = r#"
OpCapability Addresses
OpCapability Linkage
OpCapability Kernel
OpMemoryModel Physical64 OpenCL
OpEntryPoint Kernel %main "main"
OpName %twice "twice"
OpName %x "x"
OpDecorate %twice LinkageAttributes "twice" Import
OpDecorate %x FuncParamAttr Zext
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

#[test]
fn resolved_declarations_lose_their_parameters_names_and_decorations() {
    let (lib, user) = (module(LIB), module(USER_DECORATED_PARAMS));
    for order in [[&user, &lib], [&lib, &user]] {
        let linked = link(&order, false).expect("links");
        validate(&linked, &DeviceFeatures::default()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(linked.functions.len(), 2);
        assert!(linked.names.iter().all(|(_, n)| n != "x"), "{:?}", linked.names);
    }
}

/// An inline definition as llvm-spirv writes clang's `available_externally` function: a body
/// decorated Import. `bump` returns x + 1.
const INLINE_DEF: &str = r#"
OpCapability Addresses
OpCapability Linkage
OpCapability Kernel
OpMemoryModel Physical64 OpenCL
OpEntryPoint Kernel %main "main"
OpName %bump "bump"
OpDecorate %bump LinkageAttributes "bump" Import
%void = OpTypeVoid
%uint = OpTypeInt 32 0
%one = OpConstant %uint 1
%ptr = OpTypePointer CrossWorkgroup %uint
%fn = OpTypeFunction %uint %uint
%kfn = OpTypeFunction %void %ptr
%bump = OpFunction %uint None %fn
%x = OpFunctionParameter %uint
%b = OpLabel
%y = OpIAdd %uint %x %one
OpReturnValue %y
OpFunctionEnd
%main = OpFunction %void None %kfn
%p = OpFunctionParameter %ptr
%entry = OpLabel
%v = OpLoad %uint %p
%r = OpFunctionCall %uint %bump %v
OpStore %p %r
OpReturn
OpFunctionEnd
"#;

/// The external definition of `bump` another module exports.
const EXTERNAL_DEF: &str = r#"
OpCapability Addresses
OpCapability Linkage
OpCapability Kernel
OpMemoryModel Physical64 OpenCL
OpDecorate %bump LinkageAttributes "bump" Export
%uint = OpTypeInt 32 0
%one = OpConstant %uint 1
%fn = OpTypeFunction %uint %uint
%bump = OpFunction %uint None %fn
%x = OpFunctionParameter %uint
%b = OpLabel
%y = OpIAdd %uint %one %x
OpReturnValue %y
OpFunctionEnd
"#;

fn imports(m: &jit::spirv::Module) -> usize {
    m.decorations
        .iter()
        .filter(|d| matches!(d.linkage(), Some((_, rspirv::spirv::LinkageType::Import))))
        .count()
}

#[test]
fn inline_definition_stays_local_without_an_external_one() {
    let m = module(INLINE_DEF);
    assert!(jit::spirv::imports_functions(&m));
    let linked = link(&[&m], false).expect("an inline definition needs no export");
    validate(&linked, &DeviceFeatures::default()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(imports(&linked), 0);
    assert_eq!(linked.functions.len(), 2);
    assert!(linked.functions.iter().all(|f| !f.is_declaration()));
    // Two modules with their own inline definitions of one name: each keeps its own.
    let other = module(&INLINE_DEF.replace("\"main\"", "\"other\""));
    let linked = link(&[&m, &other], false).expect("links");
    validate(&linked, &DeviceFeatures::default()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(imports(&linked), 0);
    assert_eq!(linked.functions.len(), 4);
    // Two kernels of one name cannot be linked, even without linkage decorations.
    let err = link(&[&m, &m], false).expect_err("two kernels named main");
    assert!(err.0.contains("kernel \"main\""), "{err}");
}

#[test]
fn inline_definition_gives_way_to_an_external_one() {
    let (inline, external) = (module(INLINE_DEF), module(EXTERNAL_DEF));
    assert!(!jit::spirv::imports_functions(&external));
    for order in [[&inline, &external], [&external, &inline]] {
        let linked = link(&order, false).expect("links");
        validate(&linked, &DeviceFeatures::default()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(imports(&linked), 0);
        // The kernel and the one external `bump`: the inline body is gone.
        assert_eq!(linked.functions.len(), 2);
        let bump = linked
            .functions
            .iter()
            .find(|f| f.id != linked.entry_points[0].function)
            .expect("bump");
        let add = &bump.blocks[0].instructions[0];
        assert_eq!(add.opcode, rspirv::spirv::Op::IAdd);
        // The external definition adds `one + x`, the inline one `x + one`.
        let rspirv::dr::Operand::IdRef(first) = add.operands[0] else {
            panic!("{add:?}")
        };
        assert!(linked.constant(first).is_some(), "{add:?}");
    }
}

#[test]
fn undefined_and_duplicate_symbols_are_named() {
    let user = module(USER);
    let err = link(&[&user], false).expect_err("unresolved");
    assert!(err.0.contains("undefined symbol \"twice\""), "{err}");
    let lib = module(LIB);
    let err = link(&[&lib, &user, &lib], false).expect_err("duplicate");
    assert!(err.0.contains("\"twice\"") && err.0.contains("more than one"), "{err}");
    // A mangled (overloadable) name is given as written, with its symbol.
    let mangled = USER.replace("\"twice\" Import", "\"_Z5twicej\" Import");
    let err = link(&[&module(&mangled)], false).expect_err("unresolved");
    assert!(err.0.contains("\"twice\" (mangled \"_Z5twicej\")"), "{err}");
}

#[test]
fn unused_unresolved_declaration_is_dropped() {
    // USER without its call: the declaration of `twice` stays, used by nothing.
    let text = USER.replace("%r = OpFunctionCall %uint %twice %v\nOpStore %p %r", "OpStore %p %v");
    let linked = link(&[&module(&text)], false).expect("nothing needs twice");
    validate(&linked, &DeviceFeatures::default()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(linked.functions.len(), 1);
    assert_eq!(imports(&linked), 0);
}

/// A module defining `twice` with LinkOnceODR linkage (`add` picks the body: x+x or 2*x,
/// the same function) and a kernel `name` that calls it.
fn once_odr(name: &str, body: &str) -> String {
    format!(
        r#"
OpCapability Addresses
OpCapability Linkage
OpCapability Kernel
OpExtension "SPV_KHR_linkonce_odr"
OpMemoryModel Physical64 OpenCL
OpEntryPoint Kernel %main "{name}"
OpDecorate %twice LinkageAttributes "twice" LinkOnceODR
%void = OpTypeVoid
%uint = OpTypeInt 32 0
%uint_2 = OpConstant %uint 2
%ptr = OpTypePointer CrossWorkgroup %uint
%fn = OpTypeFunction %uint %uint
%kfn = OpTypeFunction %void %ptr
%twice = OpFunction %uint None %fn
%x = OpFunctionParameter %uint
%tl = OpLabel
{body}
OpReturnValue %r
OpFunctionEnd
%main = OpFunction %void None %kfn
%p = OpFunctionParameter %ptr
%entry = OpLabel
%v = OpLoad %uint %p
%w = OpFunctionCall %uint %twice %v
OpStore %p %w
OpReturn
OpFunctionEnd
"#
    )
}

#[test]
fn link_once_odr_definitions_become_one() {
    let a = module(&once_odr("a", "%r = OpIAdd %uint %x %x"));
    let b = module(&once_odr("b", "%r = OpIMul %uint %x %uint_2"));
    let linked = link(&[&a, &b], false).expect("two LinkOnceODR definitions link");
    validate(&linked, &DeviceFeatures::default()).unwrap_or_else(|e| panic!("{e}"));
    // Two kernels and one `twice`: the first module's.
    assert_eq!(linked.functions.len(), 3);
    // An Export of the same name wins over LinkOnceODR definitions, in either order.
    let lib = module(LIB);
    for order in [[&a, &lib], [&lib, &a]] {
        let linked = link(&order, false).expect("links");
        validate(&linked, &DeviceFeatures::default()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(linked.functions.len(), 2);
    }
    // An import resolves to a LinkOnceODR definition.
    let user = module(USER);
    let linked = link(&[&user, &a], false).expect("import resolves to LinkOnceODR");
    validate(&linked, &DeviceFeatures::default()).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn clock_built_ins_become_read_clock() {
    let text = r#"
OpCapability Addresses
OpCapability Linkage
OpCapability Kernel
OpCapability Int64
OpMemoryModel Physical64 OpenCL
OpEntryPoint Kernel %main "main"
OpDecorate %dev LinkageAttributes "clock_read_device" Import
OpDecorate %wg LinkageAttributes "_Z26clock_read_hilo_work_groupv" Import
%void = OpTypeVoid
%ulong = OpTypeInt 64 0
%uint = OpTypeInt 32 0
%v2uint = OpTypeVector %uint 2
%ptr = OpTypePointer CrossWorkgroup %ulong
%fdev = OpTypeFunction %ulong
%fwg = OpTypeFunction %v2uint
%kfn = OpTypeFunction %void %ptr
%dev = OpFunction %ulong None %fdev
OpFunctionEnd
%wg = OpFunction %v2uint None %fwg
OpFunctionEnd
%main = OpFunction %void None %kfn
%p = OpFunctionParameter %ptr
%entry = OpLabel
%t = OpFunctionCall %ulong %dev
%h = OpFunctionCall %v2uint %wg
%lo = OpCompositeExtract %uint %h 0
%lo64 = OpUConvert %ulong %lo
%s = OpIAdd %ulong %t %lo64
OpStore %p %s
OpReturn
OpFunctionEnd
"#;
    let m = module(text);
    let linked = link(&[&m], false).expect("clock built-ins are defined, not undefined");
    validate(&linked, &DeviceFeatures::default()).unwrap_or_else(|e| panic!("{e}"));
    assert!(linked.functions.iter().all(|f| !f.is_declaration()));
    // Any other import stays undefined.
    let other = text_with_import("clock_read_everything");
    let err = link(&[&module(&other)], false).expect_err("unknown import");
    assert!(err.0.contains("clock_read_everything"), "{err}");
}

fn text_with_import(name: &str) -> String {
    format!(
        r#"
OpCapability Addresses
OpCapability Linkage
OpCapability Kernel
OpCapability Int64
OpMemoryModel Physical64 OpenCL
OpEntryPoint Kernel %main "main"
OpDecorate %f LinkageAttributes "{name}" Import
%void = OpTypeVoid
%ulong = OpTypeInt 64 0
%ptr = OpTypePointer CrossWorkgroup %ulong
%ff = OpTypeFunction %ulong
%kfn = OpTypeFunction %void %ptr
%f = OpFunction %ulong None %ff
OpFunctionEnd
%main = OpFunction %void None %kfn
%p = OpFunctionParameter %ptr
%entry = OpLabel
%t = OpFunctionCall %ulong %f
OpStore %p %t
OpReturn
OpFunctionEnd
"#
    )
}
