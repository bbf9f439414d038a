//! The pass pipeline `opt` runs on clang's unoptimized IR: LLVM's own `default<O2>`, as opt
//! prints it with `-print-pipeline-passes`, parsed into a tree and edited where a pass makes IR
//! that llvm-spirv 15 cannot translate. The text is LLVM's pass-pipeline syntax
//! (`name<params>(nested,passes),...`), parsed completely: an edit names a pass, never a
//! substring, and a pipeline that does not parse is an error, not a silent no-op.

use std::fmt;

/// One pass (or pass manager) of a pipeline: `name<params>(children)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pass {
    pub name: String,
    /// The `<...>` parameters split at `;`, when the pass has them.
    pub params: Option<Vec<String>>,
    /// The nested pipeline of a pass manager or adaptor (`function(...)`, `loop-mssa(...)`).
    pub children: Option<Vec<Pass>>,
}

/// Parses a whole pipeline.
pub fn parse(text: &str) -> Result<Vec<Pass>, String> {
    let mut p = Parser {
        s: text.trim().as_bytes(),
        i: 0,
    };
    let passes = p.list()?;
    if p.i != p.s.len() {
        return Err(format!(
            "unexpected {:?} at offset {} of the pass pipeline",
            p.s[p.i] as char, p.i
        ));
    }
    Ok(passes)
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn list(&mut self) -> Result<Vec<Pass>, String> {
        let mut passes = vec![self.pass()?];
        while self.peek() == Some(b',') {
            self.i += 1;
            passes.push(self.pass()?);
        }
        Ok(passes)
    }

    fn pass(&mut self) -> Result<Pass, String> {
        let start = self.i;
        while let Some(c) = self.peek() {
            if matches!(c, b'<' | b'>' | b'(' | b')' | b',') {
                break;
            }
            self.i += 1;
        }
        if self.i == start {
            return Err(format!("a pass name is missing at offset {start} of the pass pipeline"));
        }
        let name = String::from_utf8_lossy(&self.s[start..self.i]).into_owned();
        let mut params = None;
        if self.peek() == Some(b'<') {
            // Parameters may nest angle brackets (`devirt<4>` does not, but be exact).
            let open = self.i;
            let mut depth = 0usize;
            loop {
                match self.peek() {
                    Some(b'<') => depth += 1,
                    Some(b'>') => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    Some(_) => {}
                    None => return Err(format!("unclosed '<' at offset {open} of the pass pipeline")),
                }
                self.i += 1;
            }
            let inner = String::from_utf8_lossy(&self.s[open + 1..self.i]).into_owned();
            self.i += 1;
            params = Some(if inner.is_empty() {
                Vec::new()
            } else {
                inner.split(';').map(str::to_string).collect()
            });
        }
        let mut children = None;
        if self.peek() == Some(b'(') {
            self.i += 1;
            children = Some(self.list()?);
            if self.peek() != Some(b')') {
                return Err(format!("expected ')' at offset {} of the pass pipeline", self.i));
            }
            self.i += 1;
        }
        Ok(Pass { name, params, children })
    }
}

impl fmt::Display for Pass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)?;
        if let Some(params) = &self.params {
            write!(f, "<{}>", params.join(";"))?;
        }
        if let Some(children) = &self.children {
            write!(f, "({})", render(children))?;
        }
        Ok(())
    }
}

/// The pipeline back in opt's `-passes=` syntax.
pub fn render(passes: &[Pass]) -> String {
    passes.iter().map(Pass::to_string).collect::<Vec<_>>().join(",")
}

/// Passes left out of the pipeline, and why.
pub const DROPPED: &[(&str, &str)] = &[
    // Splits `x % y` into `x - (x / y) * y` around `freeze`d operands; llvm-spirv 15 has no
    // translation for `freeze`, and Cranelift gains nothing from the split.
    ("div-rem-pairs", "makes `freeze`"),
    // The JIT takes LLVM vectors apart and runs work-items in SIMD lanes itself; LLVM's
    // vectorizers leave `<N x i1>` masks and `freeze`s llvm-spirv 15 refuses (clang's
    // -fno-vectorize -fno-slp-vectorize did the same before opt ran the pipeline).
    ("loop-vectorize", "vectorizes loops"),
    ("slp-vectorizer", "vectorizes straight-line code"),
    // opt prints its own output pass as part of the pipeline.
    ("BitcodeWriterPass", "opt's output"),
    ("PrintModulePass", "opt's output"),
];

/// simplifycfg parameters turned off. A switch whose cases yield constants becomes a table
/// lookup; for small tables the "table" is a bit map in one integer of
/// cases × element-width bits (`i24` for three `char`s), an integer width SPIR-V lacks.
///
/// Sinking the common instructions of two branches turns two calls with different constant
/// arguments into one call with a `select`ed argument; for `read_image*` with two literal
/// samplers that leaves `__translate_sampler_initializer` of a non-constant, on which
/// llvm-spirv 15 asserts.
///
/// Hoisting the common instructions of two branches turns the two sub-group calls of an
/// `if (divergent) r = f(x); else r = f(x);` into one call before the branch (LLVM's
/// `convergent` allows it), so all the work-items of the sub-group meet at one call where the
/// program had them meet at two: the non-uniform sub-group functions (`cl_khr_subgroup_*`,
/// jit codegen/collective.rs) then see a different set of active work-items.
pub const DISABLED_PARAMS: &[(&str, &str)] = &[
    ("simplifycfg", "switch-to-lookup"),
    ("simplifycfg", "sink-common-insts"),
    ("simplifycfg", "hoist-common-insts"),
];

/// Applies [`DROPPED`] and [`DISABLED_PARAMS`] to a parsed pipeline.
pub fn edit(passes: Vec<Pass>) -> Vec<Pass> {
    passes
        .into_iter()
        .filter(|p| !DROPPED.iter().any(|(name, _)| *name == p.name))
        .map(|mut p| {
            if let Some(params) = &mut p.params {
                for (pass, param) in DISABLED_PARAMS {
                    if p.name == *pass {
                        for q in params.iter_mut().filter(|q| q == param) {
                            *q = format!("no-{param}");
                        }
                    }
                }
            }
            p.children = p.children.map(edit);
            p
        })
        // A pass manager left empty by the edits would not parse again.
        .filter(|p| p.children.as_ref().is_none_or(|c| !c.is_empty()))
        .collect()
}

/// Every pass name in the pipeline, depth first.
#[cfg(test)]
fn names(passes: &[Pass]) -> Vec<&str> {
    let mut out = Vec::new();
    for p in passes {
        out.push(p.name.as_str());
        if let Some(children) = &p.children {
            out.extend(names(children));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "verify,function<eager-inv>(lower-expect,simplifycfg<bonus-inst-threshold=1;forward-switch-cond;switch-to-lookup;keep-loops;hoist-common-insts;sink-common-insts>,sroa,early-cse<>),cgscc(devirt<4>(inline,function(loop-mssa(licm<allowspeculation>),instcombine))),function(loop-vectorize<no-interleave-forced-only;>,slp-vectorizer,div-rem-pairs),function(div-rem-pairs),verify,BitcodeWriterPass";

    #[test]
    fn parses_and_renders_back() {
        let text = SAMPLE.replace(",BitcodeWriterPass", "");
        assert_eq!(render(&parse(&text).unwrap()), text);
    }

    #[test]
    fn edits_name_passes_and_parameters() {
        let edited = render(&edit(parse(SAMPLE).unwrap()));
        assert_eq!(
            edited,
            "verify,function<eager-inv>(lower-expect,simplifycfg<bonus-inst-threshold=1;forward-switch-cond;no-switch-to-lookup;keep-loops;no-hoist-common-insts;no-sink-common-insts>,sroa,early-cse<>),cgscc(devirt<4>(inline,function(loop-mssa(licm<allowspeculation>),instcombine))),verify"
        );
        for (dropped, _) in DROPPED {
            assert!(!names(&parse(&edited).unwrap()).contains(dropped));
        }
    }

    #[test]
    fn malformed_pipelines_are_errors() {
        assert!(parse("function(instcombine").is_err());
        assert!(parse("simplifycfg<a;b").is_err());
        assert!(parse("a,,b").is_err());
        assert!(parse("a)b").is_err());
    }
}
