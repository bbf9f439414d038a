//! `CL_KERNEL_ATTRIBUTES` (API section 5.9.3, clGetKernelInfo): "any attributes specified
//! using the `__attribute__` OpenCL C qualifier ... with the kernel function declaration in the
//! program source", "returned as they were declared inside `__attribute__((...))`, with any
//! surrounding whitespace and embedded newlines removed", several "as a single, space
//! delimited string". Kernels not created from OpenCL C source with clCreateProgramWithSource
//! report an empty string.
//!
//! SPIR-V keeps only some attributes, and not as written (VecTypeHint drops signedness), so
//! the source is read. The scan works on the text as written: comments, string literals and
//! preprocessor lines are skipped, and an attribute that only a macro expansion produces is
//! not seen.

use std::collections::HashMap;

/// One lexical piece of the source: an identifier, or a single punctuation character, with
/// its byte range in the source.
struct Token {
    start: usize,
    end: usize,
}

/// Identifiers and punctuation of `src`, without comments, literals and preprocessor lines.
fn tokens(src: &str) -> Vec<Token> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut line_start = true;
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            line_start = true;
            i += 1;
        } else if c.is_ascii_whitespace() {
            i += 1;
        } else if line_start && c == b'#' {
            // A directive, with its backslash-continued lines.
            while i < b.len() && b[i] != b'\n' {
                if b[i] == b'\\' && b.get(i + 1) == Some(&b'\n') {
                    i += 1;
                }
                i += 1;
            }
        } else if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            i = src[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
            line_start = false;
        } else if c == b'"' || c == b'\'' {
            i += 1;
            while i < b.len() && b[i] != c && b[i] != b'\n' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            line_start = false;
        } else if c.is_ascii_alphanumeric() || c == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push(Token { start, end: i });
            line_start = false;
        } else {
            // One character (a multi-byte one stays whole).
            let len = src[i..].chars().next().map_or(1, char::len_utf8);
            out.push(Token { start: i, end: i + len });
            i += len;
            line_start = false;
        }
    }
    out
}

/// The attributes of `__attribute__((a, b(1, 2)))`, given the index of the token after
/// `__attribute__`: (`["a", "b(1, 2)"]`, index of the token after the group). `None` when the
/// group is not well formed.
fn attribute_group(src: &str, toks: &[Token], at: usize) -> Option<(Vec<String>, usize)> {
    let text = |i: usize| toks.get(i).map(|t| &src[t.start..t.end]);
    if text(at)? != "(" || text(at + 1)? != "(" {
        return None;
    }
    let mut depth = 0usize;
    let mut pieces = Vec::new();
    let mut piece_start = toks[at + 1].end;
    let mut i = at + 1;
    loop {
        match text(i)? {
            "(" => depth += 1,
            ")" => {
                depth -= 1;
                if depth == 0 {
                    pieces.push(&src[piece_start..toks[i].start]);
                    break;
                }
            }
            "," if depth == 1 => {
                pieces.push(&src[piece_start..toks[i].start]);
                piece_start = toks[i].end;
            }
            _ => {}
        }
        i += 1;
    }
    // The outer parenthesis.
    if text(i + 1)? != ")" {
        return None;
    }
    let attributes = pieces
        .iter()
        .map(|p| p.replace(['\n', '\r'], "").trim().to_string())
        .filter(|p| !p.is_empty())
        .collect();
    Some((attributes, i + 2))
}

/// Kernel name -> its attributes, space separated, for every kernel function declared or
/// defined in `src` (a prototype's attributes and the definition's are joined).
pub fn scan(src: &str) -> HashMap<String, String> {
    let toks = tokens(src);
    let text = |i: usize| &src[toks[i].start..toks[i].end];
    let mut found: HashMap<String, Vec<String>> = HashMap::new();
    // The declaration being read at file scope.
    let mut attrs: Vec<String> = Vec::new();
    let mut is_kernel = false;
    let mut name: Option<String> = None;
    let mut parens = 0usize;
    let mut braces = 0usize;
    let mut i = 0;
    while i < toks.len() {
        let t = text(i);
        if braces > 0 {
            match t {
                "{" => braces += 1,
                "}" => braces -= 1,
                _ => {}
            }
            i += 1;
            continue;
        }
        match t {
            "__attribute__" | "__attribute" => {
                if let Some((group, next)) = attribute_group(src, &toks, i + 1) {
                    // Attributes of parameters are not the kernel's.
                    if parens == 0 {
                        attrs.extend(group);
                    }
                    i = next;
                    continue;
                }
            }
            "__kernel" | "kernel" if parens == 0 => is_kernel = true,
            "(" => {
                if parens == 0 && name.is_none() && i > 0 {
                    let prev = text(i - 1);
                    if prev.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
                        name = Some(prev.to_string());
                    }
                }
                parens += 1;
            }
            ")" => parens = parens.saturating_sub(1),
            ";" | "{" if parens == 0 => {
                if let (true, Some(n)) = (is_kernel, name.take()) {
                    let list = found.entry(n).or_default();
                    for a in attrs.drain(..) {
                        if !list.contains(&a) {
                            list.push(a);
                        }
                    }
                }
                attrs.clear();
                is_kernel = false;
                name = None;
                if t == "{" {
                    braces = 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    found.into_iter().map(|(k, v)| (k, v.join(" "))).collect()
}

#[cfg(test)]
mod tests {
    use super::scan;

    #[test]
    fn attributes_before_and_after_the_kernel_keyword() {
        let src = "__attribute__((vec_type_hint(uint4)))\n__attribute__((reqd_work_group_size(8, 2, 1)))\n\
                   __kernel void a(__global int *p) { p[0] = 1; }\n\
                   kernel __attribute__((work_group_size_hint(4,4,1))) void b() {}\n\
                   __kernel void c(void) { if (1) { } }\n";
        let m = scan(src);
        assert_eq!(m["a"], "vec_type_hint(uint4) reqd_work_group_size(8, 2, 1)");
        assert_eq!(m["b"], "work_group_size_hint(4,4,1)");
        assert_eq!(m["c"], "");
        assert_eq!(m.len(), 3);
    }

    #[test]
    fn several_in_one_group_and_newlines() {
        let src = "__attribute__(( reqd_work_group_size(1,\n 1, 1), vec_type_hint(double2) ))\n\
                   __kernel void k() {}";
        assert_eq!(scan(src)["k"], "reqd_work_group_size(1, 1, 1) vec_type_hint(double2)");
    }

    #[test]
    fn helpers_parameters_comments_and_directives_are_not_kernel_attributes() {
        let src = "#define A __attribute__((reqd_work_group_size(2,2,2)))\n\
                   __attribute__((always_inline)) int helper(int x) { return x; }\n\
                   /* __attribute__((vec_type_hint(int2))) __kernel void ghost() {} */\n\
                   // __kernel void ghost2() {}\n\
                   typedef struct { int a; } S;\n\
                   __kernel void k(__global int * __attribute__((aligned(16))) p) { p[0] = \"}\"[0]; }\n\
                   __attribute__((reqd_work_group_size(4,1,1))) __kernel void proto(int);\n\
                   __attribute__((vec_type_hint(float8))) __kernel void proto(int x) {}\n";
        let m = scan(src);
        assert_eq!(m["k"], "");
        assert_eq!(m["proto"], "reqd_work_group_size(4,1,1) vec_type_hint(float8)");
        assert!(!m.contains_key("helper") && !m.contains_key("ghost") && !m.contains_key("ghost2"));
    }

    #[test]
    fn malformed_source_does_not_panic() {
        for src in [
            "__attribute__((",
            "__kernel void",
            "__attribute__((a)",
            "}}}{{",
            "__kernel (",
            "'\\",
        ] {
            let _ = scan(src);
        }
    }
}
