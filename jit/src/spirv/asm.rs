//! Assembler for the SPIR-V assembly syntax (seeds/003). Output matches
//! `spirv-as`: same header (generator "Khronos SPIR-V Tools Assembler"), ids
//! numbered in order of first appearance (or kept when numeric with
//! `preserve_numeric_ids`), bound = largest id + 1.

use super::grammar;
use super::numbers;
use rspirv::grammar::{LogicalOperand, OperandKind, OperandQuantifier};
use rspirv::spirv::Op;
use std::collections::{HashMap, HashSet, VecDeque};
use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AsmOptions {
    /// SPIR-V version written in the header (spirv-as defaults to 1.6).
    pub version: (u8, u8),
    /// Keep `%<number>` ids as those numbers (spirv-as --preserve-numeric-ids).
    pub preserve_numeric_ids: bool,
}

impl Default for AsmOptions {
    fn default() -> Self {
        AsmOptions {
            version: (1, 6),
            preserve_numeric_ids: false,
        }
    }
}

impl AsmOptions {
    /// Version for a `--target-env` name as spirv-as understands it.
    pub fn version_for_target_env(env: &str) -> Option<(u8, u8)> {
        if let Some(m) = env.strip_prefix("spv1.") {
            let minor: u8 = m.parse().ok()?;
            return (minor <= 6).then_some((1, minor));
        }
        Some(match env {
            "vulkan1.0" | "opencl1.2" | "opencl1.2embedded" | "opencl2.0" | "opencl2.0embedded" | "opencl2.1"
            | "opencl2.1embedded" | "opengl4.0" | "opengl4.1" | "opengl4.2" | "opengl4.3" | "opengl4.5" => (1, 0),
            "opencl2.2" | "opencl2.2embedded" => (1, 2),
            "vulkan1.1" => (1, 3),
            "vulkan1.1spv1.4" => (1, 4),
            "vulkan1.2" => (1, 5),
            "vulkan1.3" => (1, 6),
            _ => return None,
        })
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AsmError {
    pub message: String,
    /// 1-based source line.
    pub line: usize,
}

impl fmt::Display for AsmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for AsmError {}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Str(String),
    Word(String),
}

fn tokenize(src: &str) -> Result<Vec<(Tok, usize)>, AsmError> {
    let mut out = vec![];
    let mut chars = src.chars().peekable();
    let mut line = 1;
    while let Some(&c) = chars.peek() {
        if c == '\n' {
            line += 1;
            chars.next();
        } else if c.is_whitespace() {
            chars.next();
        } else if c == ';' {
            while let Some(&c) = chars.peek() {
                if c == '\n' {
                    break;
                }
                chars.next();
            }
        } else if c == '"' {
            let start = line;
            chars.next();
            let mut s = String::new();
            let mut closed = false;
            while let Some(c) = chars.next() {
                match c {
                    '"' => {
                        closed = true;
                        break;
                    }
                    '\\' => {
                        if let Some(n) = chars.next() {
                            if n == '\n' {
                                line += 1;
                            }
                            s.push(n);
                        }
                    }
                    '\n' => {
                        line += 1;
                        s.push(c);
                    }
                    _ => s.push(c),
                }
            }
            if !closed {
                return Err(AsmError {
                    message: "unterminated string literal".into(),
                    line: start,
                });
            }
            out.push((Tok::Str(s), start));
        } else {
            let mut s = String::new();
            while let Some(&c) = chars.peek() {
                if c.is_whitespace() || c == ';' || c == '"' {
                    break;
                }
                s.push(c);
                chars.next();
            }
            out.push((Tok::Word(s), line));
        }
    }
    Ok(out)
}

fn string_words(s: &str) -> Vec<u32> {
    let mut bytes = s.as_bytes().to_vec();
    bytes.push(0);
    while bytes.len() & 3 != 0 {
        bytes.push(0);
    }
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// `strtoul`-style integer for `!<integer>` and alternate-mode numbers.
fn strtoul(s: &str) -> Option<u32> {
    let v = if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).ok()?
    } else if s.len() > 1 && s.starts_with('0') {
        u64::from_str_radix(&s[1..], 8).ok()?
    } else if let Some(n) = s.strip_prefix('-') {
        return n.parse::<u64>().ok().map(|v| (v as u32).wrapping_neg());
    } else {
        s.parse::<u64>().ok()?
    };
    u32::try_from(v).ok()
}

#[derive(Clone, Copy)]
enum Num {
    Int(u32, bool),
    Float(u32),
}

struct Asm<'a> {
    toks: &'a [(Tok, usize)],
    pos: usize,
    ids: HashMap<String, u32>,
    taken: HashSet<u32>,
    next: u32,
    max_id: u32,
    preserve: bool,
    nums: HashMap<u32, Num>,
    value_types: HashMap<u32, u32>,
    sets: HashMap<u32, String>,
    out: Vec<u32>,
}

impl<'a> Asm<'a> {
    fn line(&self) -> usize {
        self.toks.get(self.pos).or(self.toks.last()).map(|t| t.1).unwrap_or(1)
    }

    fn err<T>(&self, msg: impl Into<String>) -> Result<T, AsmError> {
        Err(AsmError {
            message: msg.into(),
            line: self.line(),
        })
    }

    fn word_at(&self, i: usize) -> Option<&'a str> {
        match self.toks.get(i) {
            Some((Tok::Word(w), _)) => Some(w.as_str()),
            _ => None,
        }
    }

    /// Does a new instruction start at token `i`?
    fn inst_start(&self, i: usize) -> bool {
        match self.word_at(i) {
            Some(w) if w.starts_with("Op") && grammar::inst_by_name(&w[2..]).is_some() => true,
            Some(w) if w.starts_with('%') => self.word_at(i + 1) == Some("="),
            _ => false,
        }
    }

    fn at_end(&self) -> bool {
        self.pos >= self.toks.len() || self.inst_start(self.pos)
    }

    fn id(&mut self, tok: &str) -> Result<u32, AsmError> {
        let name = match tok.strip_prefix('%') {
            Some(n) if !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') => n,
            _ => return self.err(format!("expected an id (%name), found '{}'", tok)),
        };
        if let Some(v) = self.ids.get(name) {
            return Ok(*v);
        }
        let v = if self.preserve && name.bytes().all(|b| b.is_ascii_digit()) {
            match name.parse::<u32>() {
                Ok(v) if v > 0 && v < u32::MAX => v,
                _ => return self.err(format!("invalid numeric id %{}", name)),
            }
        } else {
            while self.taken.contains(&self.next) {
                self.next += 1;
            }
            let v = self.next;
            self.next += 1;
            v
        };
        self.max_id = self.max_id.max(v);
        self.ids.insert(name.to_string(), v);
        Ok(v)
    }

    fn take_word(&mut self) -> Result<&'a str, AsmError> {
        match self.toks.get(self.pos) {
            Some((Tok::Word(w), _)) => {
                self.pos += 1;
                Ok(w.as_str())
            }
            Some((Tok::Str(s), _)) => self.err(format!("unexpected string \"{}\"", s)),
            None => self.err("unexpected end of input"),
        }
    }

    /// Alternate parsing mode after a `!<integer>` (seeds/003).
    fn alternate(&mut self, words: &mut Vec<u32>) -> Result<(), AsmError> {
        while !self.at_end() {
            match self.toks[self.pos].clone() {
                (Tok::Str(s), _) => {
                    words.extend(string_words(&s));
                    self.pos += 1;
                }
                (Tok::Word(w), _) => {
                    if let Some(n) = w.strip_prefix('!') {
                        match strtoul(n) {
                            Some(v) => words.push(v),
                            None => return self.err(format!("invalid immediate integer '{}'", w)),
                        }
                    } else if w.starts_with('%') {
                        let v = self.id(&w)?;
                        words.push(v);
                    } else if let Some(v) = strtoul(&w) {
                        words.push(v);
                    } else {
                        return self.err(format!(
                            "'{}' cannot be assembled in alternate parsing mode (after a !<integer>)",
                            w
                        ));
                    }
                    self.pos += 1;
                }
            }
        }
        Ok(())
    }

    fn instruction(&mut self) -> Result<(), AsmError> {
        let mut lhs: Option<u32> = None;
        if let Some(w) = self.word_at(self.pos) {
            if w.starts_with('%') && self.word_at(self.pos + 1) == Some("=") {
                self.pos += 2;
                lhs = Some(self.id(w)?);
            }
        }
        let optok = self.take_word()?;
        if let Some(raw) = optok.strip_prefix('!') {
            if lhs.is_some() {
                return self.err("the opcode after '=' cannot be a !<integer>");
            }
            let v = match strtoul(raw) {
                Some(v) => v,
                None => return self.err(format!("invalid immediate integer '{}'", optok)),
            };
            let mut words = vec![v];
            self.alternate(&mut words)?;
            self.out.extend(words);
            return Ok(());
        }
        let g = match optok.strip_prefix("Op").and_then(grammar::inst_by_name) {
            Some(g) => g,
            None => {
                self.pos -= 1;
                return self.err(format!("expected an opcode, found '{}'", optok));
            }
        };
        let has_result = g.operands.iter().any(|o| o.kind == OperandKind::IdResult);
        if has_result && lhs.is_none() {
            return self.err(format!(
                "Op{} needs a result id: '%name = Op{} ...'",
                g.opname, g.opname
            ));
        }
        if !has_result && lhs.is_some() {
            return self.err(format!("Op{} does not produce a result id", g.opname));
        }
        let mut words = vec![0u32];
        let mut queue: VecDeque<LogicalOperand> = g.operands.iter().cloned().collect();
        let mut result_type: Option<u32> = None;
        let mut first_id: Option<u32> = None;
        while let Some(lo) = queue.pop_front() {
            if lo.kind == OperandKind::IdResult {
                words.push(lhs.unwrap_or(0));
                continue;
            }
            if self.at_end() {
                if lo.quantifier == OperandQuantifier::One {
                    return self.err(format!("Op{}: missing operand ({:?})", g.opname, lo.kind));
                }
                continue;
            }
            if let Some(Tok::Word(w)) = self.toks.get(self.pos).map(|t| &t.0) {
                if w.starts_with('!') {
                    self.alternate(&mut words)?;
                    break;
                }
            }
            let params = self.operand(
                g.opcode,
                lo.kind,
                &mut words,
                &mut result_type,
                &mut first_id,
                &mut queue,
            )?;
            let again = lo.quantifier == OperandQuantifier::ZeroOrMore;
            if again {
                queue.push_front(lo);
            }
            for p in params.into_iter().rev() {
                queue.push_front(p);
            }
        }
        if words.len() > 0xffff {
            return self.err("instruction is longer than 65535 words");
        }
        words[0] = ((words.len() as u32) << 16) | g.opcode as u32;
        // Remember numeric types, value types and extended sets.
        if let Some(r) = lhs {
            match g.opcode {
                Op::TypeInt if words.len() >= 4 => {
                    self.nums.insert(r, Num::Int(words[2], words[3] != 0));
                }
                Op::TypeFloat if words.len() >= 3 => {
                    self.nums.insert(r, Num::Float(words[2]));
                }
                Op::ExtInstImport => {
                    if let Some((Tok::Str(s), _)) = self.toks.get(self.pos - 1) {
                        self.sets.insert(r, s.clone());
                    }
                }
                _ => {}
            }
            if let Some(t) = result_type {
                self.value_types.insert(r, t);
            }
        }
        self.out.extend(words);
        Ok(())
    }

    fn typed_literal(&mut self, ty: Option<u32>, words: &mut Vec<u32>) -> Result<(), AsmError> {
        let tok = self.take_word()?;
        let r = match ty.and_then(|t| self.nums.get(&t).copied()) {
            Some(Num::Int(w, s)) => numbers::encode_int(tok, w, s),
            Some(Num::Float(w)) => numbers::encode_float(tok, w),
            None => {
                self.pos -= 1;
                return self.err("the type of this literal is not a previously declared integer or float type");
            }
        };
        match r {
            Ok(v) => {
                words.extend(v);
                Ok(())
            }
            Err(e) => {
                self.pos -= 1;
                self.err(e)
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn operand(
        &mut self,
        opcode: Op,
        kind: OperandKind,
        words: &mut Vec<u32>,
        result_type: &mut Option<u32>,
        first_id: &mut Option<u32>,
        queue: &mut VecDeque<LogicalOperand>,
    ) -> Result<Vec<LogicalOperand>, AsmError> {
        use OperandKind as K;
        match kind {
            K::IdResultType | K::IdRef | K::IdScope | K::IdMemorySemantics => {
                let t = self.take_word()?;
                let v = self.id(t)?;
                if kind == K::IdResultType {
                    *result_type = Some(v);
                } else if first_id.is_none() {
                    *first_id = Some(v);
                }
                words.push(v);
            }
            K::LiteralString => match self.toks.get(self.pos) {
                Some((Tok::Str(s), _)) => {
                    words.extend(string_words(s));
                    self.pos += 1;
                }
                _ => return self.err("expected a string literal"),
            },
            K::LiteralContextDependentNumber => self.typed_literal(*result_type, words)?,
            K::PairLiteralIntegerIdRef => {
                let sel_ty = first_id.and_then(|s| self.value_types.get(&s).copied());
                self.typed_literal(sel_ty, words)?;
                if self.at_end() {
                    return self.err("OpSwitch: missing label after literal");
                }
                let t = self.take_word()?;
                words.push(self.id(t)?);
            }
            K::PairIdRefLiteralInteger => {
                let t = self.take_word()?;
                words.push(self.id(t)?);
                let t = self.take_word()?;
                match numbers::encode_word(t) {
                    Ok(v) => words.push(v),
                    Err(e) => return self.err(e),
                }
            }
            K::PairIdRefIdRef => {
                let t = self.take_word()?;
                words.push(self.id(t)?);
                if self.at_end() {
                    return self.err("missing second id of pair");
                }
                let t = self.take_word()?;
                words.push(self.id(t)?);
            }
            K::LiteralExtInstInteger => {
                let set = words.last().and_then(|s| self.sets.get(s)).cloned().unwrap_or_default();
                let t = self.take_word()?;
                match grammar::ext_inst_by_name(&set, t) {
                    Some(g) => {
                        words.push(u32::from(g.opcode));
                        queue.clear();
                        queue.extend(g.operands.iter().cloned());
                    }
                    None => match numbers::encode_word(t) {
                        Ok(v) => {
                            words.push(v);
                            if let Some(g) = grammar::ext_inst_by_number(&set, v) {
                                queue.clear();
                                queue.extend(g.operands.iter().cloned());
                            }
                        }
                        Err(_) => {
                            self.pos -= 1;
                            return self.err(format!("'{}' is not an instruction of extended set \"{}\"", t, set));
                        }
                    },
                }
            }
            K::LiteralSpecConstantOpInteger => {
                let t = self.take_word()?;
                let g = match grammar::inst_by_name(t) {
                    Some(g) => g,
                    None => {
                        self.pos -= 1;
                        return self.err(format!("'{}' is not an opcode name for OpSpecConstantOp", t));
                    }
                };
                words.push(g.opcode as u32);
                queue.clear();
                queue.extend(
                    g.operands
                        .iter()
                        .filter(|o| o.kind != K::IdResultType && o.kind != K::IdResult)
                        .cloned(),
                );
            }
            K::LiteralFloat => {
                let t = self.take_word()?;
                match numbers::encode_float(t, 32) {
                    Ok(v) => words.extend(v),
                    Err(e) => return self.err(e),
                }
            }
            k if grammar::is_mask(k) => {
                let t = self.take_word()?;
                let mut v = 0u32;
                for part in t.split('|') {
                    match grammar::mask_bit_value(k, part).or_else(|| strtoul(part)) {
                        Some(b) => v |= b,
                        None => {
                            self.pos -= 1;
                            return self.err(format!("'{}' is not a {:?} mask name", part, k));
                        }
                    }
                }
                words.push(v);
                return Ok(grammar::enum_params(k, v));
            }
            k if grammar::is_enum(k) => {
                let t = self.take_word()?;
                let v = match grammar::enum_value(k, t).or_else(|| strtoul(t)) {
                    Some(v) => v,
                    None => {
                        self.pos -= 1;
                        return self.err(format!("'{}' is not a {:?} name", t, k));
                    }
                };
                words.push(v);
                return Ok(grammar::enum_params(k, v));
            }
            _ => {
                // LiteralInteger and the other plain one-word literals.
                let t = self.take_word()?;
                match numbers::encode_word(t) {
                    Ok(v) => words.push(v),
                    Err(e) => {
                        self.pos -= 1;
                        return self.err(format!("Op{:?}: {}", opcode, e));
                    }
                }
            }
        }
        Ok(vec![])
    }
}

/// Assembles SPIR-V assembly text into words (header included).
pub fn assemble(text: &str, opts: AsmOptions) -> Result<Vec<u32>, AsmError> {
    let toks = tokenize(text)?;
    let mut taken = HashSet::new();
    if opts.preserve_numeric_ids {
        for (t, _) in &toks {
            if let Tok::Word(w) = t {
                if let Some(n) = w.strip_prefix('%') {
                    if let Ok(v) = n.parse::<u32>() {
                        if n.bytes().all(|b| b.is_ascii_digit()) {
                            taken.insert(v);
                        }
                    }
                }
            }
        }
    }
    let mut a = Asm {
        toks: &toks,
        pos: 0,
        ids: HashMap::new(),
        taken,
        next: 1,
        max_id: 0,
        preserve: opts.preserve_numeric_ids,
        nums: HashMap::new(),
        value_types: HashMap::new(),
        sets: HashMap::new(),
        out: vec![],
    };
    while a.pos < toks.len() {
        a.instruction()?;
    }
    let version = ((opts.version.0 as u32) << 16) | ((opts.version.1 as u32) << 8);
    let mut out = vec![
        rspirv::spirv::MAGIC_NUMBER,
        version,
        0x0007_0000,
        a.max_id.saturating_add(1),
        0,
    ];
    out.extend(a.out);
    Ok(out)
}
