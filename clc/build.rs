//! Compiles `src/tools.cpp` against LLVM 15, clang 15 and the SPIR-V translator 15 when their
//! development files are installed (Debian: llvm-15-dev, libclang-15-dev,
//! libllvmspirvlib-15-dev; `scripts/deps.sh` installs them). Without them the binary is built
//! without the tools and says so when run; Clift then runs the tool programs themselves.
use std::path::Path;
use std::process::Command;

fn llvm_config(arg: &str) -> Option<String> {
    let program = std::env::var("LLVM_CONFIG").unwrap_or_else(|_| "llvm-config-15".into());
    let out = Command::new(program).arg(arg).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    println!("cargo:rerun-if-changed=src/tools.cpp");
    println!("cargo:rerun-if-env-changed=LLVM_CONFIG");
    println!("cargo::rustc-check-cfg=cfg(clc_tools)");
    let (Some(include), Some(libdir)) = (llvm_config("--includedir"), llvm_config("--libdir")) else {
        println!("cargo:warning=llvm-config-15 not found: clift-clc is built without the compilers");
        return;
    };
    let have = |p: &str| Path::new(p).exists();
    if !have(&format!("{include}/clang/Frontend/CompilerInstance.h"))
        || !have("/usr/include/LLVMSPIRVLib/LLVMSPIRVLib.h")
    {
        println!("cargo:warning=clang or LLVMSPIRVLib headers missing: clift-clc is built without the compilers");
        return;
    }
    cc::Build::new()
        .cpp(true)
        .file("src/tools.cpp")
        .include(&include)
        .include("/usr/include")
        .flag("-std=c++17")
        .flag("-fno-exceptions")
        .flag_if_supported("-Wno-unused-parameter")
        .define("_GNU_SOURCE", None)
        .define("__STDC_CONSTANT_MACROS", None)
        .define("__STDC_FORMAT_MACROS", None)
        .define("__STDC_LIMIT_MACROS", None)
        .compile("clift_clc_tools");
    println!("cargo:rustc-link-search=native={libdir}");
    println!("cargo:rustc-link-lib=dylib=clang-cpp");
    println!("cargo:rustc-link-lib=dylib=LLVM-15");
    println!("cargo:rustc-link-lib=dylib=LLVMSPIRVLib");
    println!("cargo:rustc-link-lib=dylib=stdc++");
    println!("cargo:rustc-cfg=clc_tools");
    if let Some(bindir) = llvm_config("--bindir") {
        println!("cargo:rustc-env=CLC_LLVM_BINDIR={bindir}");
    }
}
