//! Binary layer: bytes to words (either endianness), header checks, and the
//! instruction stream decoded by rspirv's grammar-driven parser.

use super::grammar;
use rspirv::binary::{Consumer, ParseAction, ParseState};
use rspirv::dr;
use rspirv::spirv;
use std::fmt;

/// A module that could not be parsed. `offset` is the byte offset of the
/// offending word (if known).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub message: String,
    pub offset: Option<usize>,
}

impl ParseError {
    pub(crate) fn new(message: impl Into<String>, offset: Option<usize>) -> Self {
        ParseError {
            message: message.into(),
            offset,
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.offset {
            Some(o) => write!(f, "invalid SPIR-V binary at byte offset {}: {}", o, self.message),
            None => write!(f, "invalid SPIR-V binary: {}", self.message),
        }
    }
}

impl std::error::Error for ParseError {}

/// The five header words (SPIR-V spec 2.3 "Physical Layout").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    pub version: (u8, u8),
    pub generator: u32,
    pub bound: u32,
    pub schema: u32,
}

/// One decoded instruction with its place in the binary.
#[derive(Debug, Clone, PartialEq)]
pub struct Instruction {
    pub opcode: spirv::Op,
    pub result_type: Option<u32>,
    pub result_id: Option<u32>,
    pub operands: Vec<dr::Operand>,
    /// Byte offset of the instruction's first word.
    pub offset: usize,
}

impl Instruction {
    pub fn name(&self) -> String {
        grammar::op_name(self.opcode)
    }

    /// The ids of the operands that are plain id references (`IdRef`; not scopes or memory
    /// semantics), in operand order.
    pub fn id_refs(&self) -> impl Iterator<Item = u32> + '_ {
        self.operands.iter().filter_map(|o| match o {
            dr::Operand::IdRef(x) => Some(*x),
            _ => None,
        })
    }

    /// "OpFoo %12" or "OpFoo at byte offset N" for messages.
    pub fn describe(&self) -> String {
        match self.result_id {
            Some(id) => format!("{} %{}", self.name(), id),
            None => format!("{} at byte offset {}", self.name(), self.offset),
        }
    }
}

/// Converts bytes to host words, byte-swapping when the magic number shows the
/// module was written in the other endianness (SPIR-V spec 2.3).
pub fn words_from_bytes(bytes: &[u8]) -> Result<Vec<u32>, ParseError> {
    if bytes.len() & 3 != 0 {
        return Err(ParseError::new(
            format!(
                "length {} bytes is not a multiple of the 4-byte word size (truncated module?)",
                bytes.len()
            ),
            Some(bytes.len() - bytes.len() % 4),
        ));
    }
    if bytes.len() < 20 {
        return Err(ParseError::new(
            format!(
                "module is {} bytes, shorter than the 5-word (20-byte) header",
                bytes.len()
            ),
            None,
        ));
    }
    let le = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
    let little = if le == spirv::MAGIC_NUMBER {
        true
    } else if le.swap_bytes() == spirv::MAGIC_NUMBER {
        false
    } else {
        return Err(ParseError::new(
            format!(
                "bad magic number 0x{:08x} (expected 0x{:08x} in either byte order)",
                le,
                spirv::MAGIC_NUMBER
            ),
            Some(0),
        ));
    };
    Ok(bytes
        .chunks_exact(4)
        .map(|c| {
            let a = [c[0], c[1], c[2], c[3]];
            if little {
                u32::from_le_bytes(a)
            } else {
                u32::from_be_bytes(a)
            }
        })
        .collect())
}

/// Checks the header words and returns the header.
pub fn check_header(words: &[u32], max_minor: u8) -> Result<Header, ParseError> {
    if words.len() < 5 {
        return Err(ParseError::new("module is shorter than the 5-word header", None));
    }
    if words[0] != spirv::MAGIC_NUMBER {
        return Err(ParseError::new(format!("bad magic number 0x{:08x}", words[0]), Some(0)));
    }
    let v = words[1];
    let major = ((v >> 16) & 0xff) as u8;
    let minor = ((v >> 8) & 0xff) as u8;
    if v & 0xff00_00ff != 0 || major != 1 || minor > max_minor {
        return Err(ParseError::new(
            format!(
                "unsupported SPIR-V version word 0x{:08x} ({}.{}); Clift accepts SPIR-V 1.0 to 1.{}",
                v, major, minor, max_minor
            ),
            Some(4),
        ));
    }
    if words[3] == 0 {
        return Err(ParseError::new("ID bound is 0", Some(12)));
    }
    Ok(Header {
        version: (major, minor),
        generator: words[2],
        bound: words[3],
        schema: words[4],
    })
}

/// Walks the word counts: returns the word index of each instruction, or
/// an error for a zero word count or an instruction running past the end.
fn instruction_starts(words: &[u32]) -> Result<Vec<usize>, ParseError> {
    let mut starts = vec![];
    let mut i = 5;
    while i < words.len() {
        let wc = (words[i] >> 16) as usize;
        let opcode = words[i] & 0xffff;
        if wc == 0 {
            return Err(ParseError::new(
                format!("instruction with opcode {} has word count 0", opcode),
                Some(i * 4),
            ));
        }
        if grammar::inst_by_opcode(opcode).is_none() {
            return Err(ParseError::new(format!("unknown opcode {}", opcode), Some(i * 4)));
        }
        if i + wc > words.len() {
            return Err(ParseError::new(
                format!(
                    "{} has word count {} but only {} words remain (truncated module?)",
                    grammar::inst_by_opcode(opcode)
                        .map(|g| format!("Op{}", g.opname))
                        .unwrap_or_default(),
                    wc,
                    words.len() - i
                ),
                Some(i * 4),
            ));
        }
        // OpSpecConstantOp's operands are those of the opcode it names; rspirv's parser
        // panics on one whose own operands cannot be parsed that way (an OpSpecConstantOp
        // naming OpSpecConstantOp, or an opcode with no result), so refuse those first.
        if opcode == spirv::Op::SpecConstantOp as u32 && wc >= 4 && !spec_constant_op_allowed(words[i + 3]) {
            return Err(ParseError::new(
                format!(
                    "OpSpecConstantOp names opcode {}, which is not one of the opcodes it allows",
                    words[i + 3]
                ),
                Some(i * 4),
            ));
        }
        starts.push(i);
        i += wc;
    }
    Ok(starts)
}

struct Collect {
    insts: Vec<dr::Instruction>,
}

impl Consumer for Collect {
    fn initialize(&mut self) -> ParseAction {
        ParseAction::Continue
    }
    fn finalize(&mut self) -> ParseAction {
        ParseAction::Continue
    }
    fn consume_header(&mut self, _: dr::ModuleHeader) -> ParseAction {
        ParseAction::Continue
    }
    fn consume_instruction(&mut self, inst: dr::Instruction) -> ParseAction {
        self.insts.push(inst);
        ParseAction::Continue
    }
}

/// The opcodes OpSpecConstantOp may name (SPIR-V specification, OpSpecConstantOp: the core
/// list and the additional ones of the Kernel capability).
fn spec_constant_op_allowed(opcode: u32) -> bool {
    use spirv::Op::*;
    const ALLOWED: &[spirv::Op] = &[
        SConvert,
        UConvert,
        FConvert,
        SNegate,
        Not,
        IAdd,
        ISub,
        IMul,
        UDiv,
        SDiv,
        UMod,
        SRem,
        SMod,
        ShiftRightLogical,
        ShiftRightArithmetic,
        ShiftLeftLogical,
        BitwiseOr,
        BitwiseXor,
        BitwiseAnd,
        VectorShuffle,
        CompositeExtract,
        CompositeInsert,
        LogicalOr,
        LogicalAnd,
        LogicalNot,
        LogicalEqual,
        LogicalNotEqual,
        Select,
        IEqual,
        INotEqual,
        ULessThan,
        SLessThan,
        UGreaterThan,
        SGreaterThan,
        ULessThanEqual,
        SLessThanEqual,
        UGreaterThanEqual,
        SGreaterThanEqual,
        QuantizeToF16,
        ConvertFToS,
        ConvertSToF,
        ConvertFToU,
        ConvertUToF,
        ConvertPtrToU,
        ConvertUToPtr,
        GenericCastToPtr,
        PtrCastToGeneric,
        Bitcast,
        FNegate,
        FAdd,
        FSub,
        FMul,
        FDiv,
        FRem,
        FMod,
        AccessChain,
        InBoundsAccessChain,
        PtrAccessChain,
        InBoundsPtrAccessChain,
    ];
    ALLOWED.iter().any(|op| *op as u32 == opcode)
}

/// Decodes host-order words into header and instructions.
pub fn decode_words(words: &[u32], max_minor: u8) -> Result<(Header, Vec<Instruction>), ParseError> {
    let header = check_header(words, max_minor)?;
    let starts = instruction_starts(words)?;
    // rspirv decodes an OpSpecConstantOp's operands one word per operand of the opcode it
    // names, so an access chain with other than one index fails or loses words. Those reach
    // rspirv disguised as OpSpecConstantComposite (the same words: type, result, then ids)
    // and are decoded here from the original words.
    let mut disguised = Vec::new();
    let mut patched: Option<Vec<u32>> = None;
    for (k, &s) in starts.iter().enumerate() {
        let wc = words[s] >> 16;
        if words[s] & 0xffff == spirv::Op::SpecConstantOp as u32 && wc >= 4 {
            if let Some(op) = spirv::Op::from_u32(words[s + 3]).filter(|op| {
                matches!(
                    op,
                    spirv::Op::AccessChain
                        | spirv::Op::InBoundsAccessChain
                        | spirv::Op::PtrAccessChain
                        | spirv::Op::InBoundsPtrAccessChain
                )
            }) {
                patched.get_or_insert_with(|| words.to_vec())[s] = (wc << 16) | spirv::Op::SpecConstantComposite as u32;
                disguised.push((k, op));
            }
        }
    }
    let parse_input = patched.as_deref().unwrap_or(words);
    let mut c = Collect { insts: vec![] };
    // rspirv's parser is grammar driven; guard against any internal assertion
    // so that hostile input can never take the process down.
    let res = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        rspirv::binary::parse_words(parse_input, &mut c)
    }));
    let offset_of = |index: usize| starts.get(index.saturating_sub(1)).map(|w| w * 4);
    match res {
        Err(_) => {
            return Err(ParseError::new(
                "malformed instruction stream (operand decoding failed)",
                starts.get(c.insts.len()).map(|w| w * 4),
            ))
        }
        Ok(Err(state)) => {
            let (msg, off) = match &state {
                ParseState::OperandExpected(_, i) => ("missing operands".to_string(), offset_of(*i)),
                ParseState::OperandExceeded(_, i) => (
                    "more words than its operands use (bad word count)".to_string(),
                    offset_of(*i),
                ),
                ParseState::TypeUnsupported(_, i) => (
                    "literal of an unsupported or undefined numeric type".to_string(),
                    offset_of(*i),
                ),
                ParseState::SpecConstantOpIntegerIncorrect(_, i) => {
                    ("OpSpecConstantOp with an unknown opcode".to_string(), offset_of(*i))
                }
                ParseState::OpcodeUnknown(_, i, op) => (format!("unknown opcode {}", op), offset_of(*i)),
                ParseState::WordCountZero(_, i) => ("word count 0".to_string(), offset_of(*i)),
                other => (other.to_string(), starts.get(c.insts.len()).map(|w| w * 4)),
            };
            let opname = off
                .and_then(|o| words.get(o / 4))
                .and_then(|w| grammar::inst_by_opcode(w & 0xffff))
                .map(|g| format!("Op{}: ", g.opname))
                .unwrap_or_default();
            return Err(ParseError::new(format!("{}{}", opname, msg), off));
        }
        Ok(Ok(())) => {}
    }
    if c.insts.len() != starts.len() {
        return Err(ParseError::new(
            "instruction stream could not be decoded completely",
            None,
        ));
    }
    for (k, op) in disguised {
        let s = starts[k];
        let wc = (words[s] >> 16) as usize;
        let inst = &mut c.insts[k];
        inst.class = grammar::inst_by_opcode(spirv::Op::SpecConstantOp as u32)
            .ok_or_else(|| ParseError::new("OpSpecConstantOp is missing from the grammar", Some(s * 4)))?;
        inst.operands = std::iter::once(dr::Operand::LiteralSpecConstantOpInteger(op))
            .chain(words[s + 4..s + wc].iter().map(|w| dr::Operand::IdRef(*w)))
            .collect();
    }
    let insts = c
        .insts
        .into_iter()
        .zip(starts)
        .map(|(i, s)| Instruction {
            opcode: i.class.opcode,
            result_type: i.result_type,
            result_id: i.result_id,
            operands: i.operands,
            offset: s * 4,
        })
        .collect();
    Ok((header, insts))
}

/// Bytes (either endianness) to header and instructions.
pub fn decode(bytes: &[u8], max_minor: u8) -> Result<(Header, Vec<Instruction>), ParseError> {
    let words = words_from_bytes(bytes)?;
    decode_words(&words, max_minor)
}
