// The dispatch table holds the addresses of our own `cl*` functions. Those names are also
// exported, so without -Bsymbolic-functions the dynamic linker binds the table's relocations
// to the first `cl*` definition in the process: ocl-icd's own trampolines, which would then
// dispatch back to themselves forever.
fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-Bsymbolic-functions");
}
