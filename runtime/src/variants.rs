//! Kernels specialised for an enqueue's image formats and samplers (issue 15, item 3).
//!
//! A program whose kernels read or write images keeps its module and compile options ([`Variants`]).
//! An enqueue of such a kernel knows the format and image type of each image argument and the
//! bits of each sampler argument ([`codegen::ArgFact`], gathered by `Kernel::bind`): the JIT
//! can then generate the reads and writes inline for that combination (`codegen::compile_variant`).
//! The variant of a combination is compiled on its second enqueue (a combination enqueued
//! once, as conformance tests do for each format, costs no compilation) and cached per
//! program, so later enqueues pay one hash lookup per launch, never per work-item.
//!
//! `CLIFT_IMAGE_INLINE=0` turns variants off (every read calls the image's read table);
//! `CLIFT_IMAGE_INLINE=eager` compiles a variant on the first enqueue of its combination.

use jit::codegen::{self, ArgFact, CompileOptions};
use jit::spirv::Module;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// At most this many variants per program (then enqueues use the program's kernels).
const MAX_VARIANTS: usize = 256;

enum State {
    /// Enqueued once.
    Seen,
    Ready(Arc<codegen::Kernel>),
    /// The variant did not compile (the program's kernel serves).
    Failed,
}

/// A variant's key: the kernel's name and what is known about each argument.
type Key = (String, Vec<Option<ArgFact>>);

/// The variants of one built program.
pub struct Variants {
    module: Arc<Module>,
    options: CompileOptions,
    cache: Mutex<HashMap<Key, State>>,
}

/// When variants are compiled (`CLIFT_IMAGE_INLINE`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Off,
    Second,
    Eager,
}

fn mode() -> Mode {
    static MODE: std::sync::OnceLock<Mode> = std::sync::OnceLock::new();
    *MODE.get_or_init(|| match std::env::var("CLIFT_IMAGE_INLINE").as_deref() {
        Ok("0") | Ok("off") => Mode::Off,
        Ok("eager") => Mode::Eager,
        _ => Mode::Second,
    })
}

impl Variants {
    /// Variants of the kernels of `module` (built with `options`), when it reads or writes
    /// images.
    pub fn new(module: Arc<Module>, options: &CompileOptions) -> Option<Arc<Variants>> {
        if mode() == Mode::Off || !codegen::accesses_images(&module) {
            return None;
        }
        Some(Arc::new(Variants {
            module,
            options: options.clone(),
            cache: Mutex::new(HashMap::new()),
        }))
    }

    /// The kernel to launch for `kernel` with argument facts `facts`: a specialised variant
    /// when there is (or now is) one, else `base`.
    pub fn pick(&self, base: &Arc<codegen::Kernel>, facts: &[Option<ArgFact>]) -> Arc<codegen::Kernel> {
        if facts.iter().all(Option::is_none) {
            return base.clone();
        }
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        let key = (base.name.clone(), facts.to_vec());
        let compile = match cache.get(&key) {
            Some(State::Ready(k)) => return k.clone(),
            Some(State::Failed) => return base.clone(),
            Some(State::Seen) => true,
            None => mode() == Mode::Eager,
        };
        if cache.len() >= MAX_VARIANTS && !cache.contains_key(&key) {
            return base.clone();
        }
        if !compile {
            cache.insert(key, State::Seen);
            return base.clone();
        }
        // A variant that fails to compile (or a bug that panics in the code generator) leaves
        // the program's kernel in service.
        let compiled = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            codegen::compile_variant(&self.module, &self.options, &base.name, facts)
        }));
        let state = match compiled {
            // The same kernel: the same arguments, laid out the same way.
            Ok(Ok(k)) if k.args_size == base.args_size && k.args.len() == base.args.len() => State::Ready(k),
            _ => State::Failed,
        };
        let out = match &state {
            State::Ready(k) => k.clone(),
            _ => base.clone(),
        };
        cache.insert(key, state);
        out
    }
}
