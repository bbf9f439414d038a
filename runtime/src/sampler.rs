//! Sampler objects (API section 5.7): how kernels read an image. Kernels see a sampler as the
//! bits of OpenCL C's `sampler_t` initializers (`jit::abi::sampler_bits`).

use crate::context::Context;
use crate::object::{ClObject, Header, Kind};
use jit::abi::sampler_bits;
use opencl_sys::*;
use std::sync::Arc;

#[repr(C)]
pub struct Sampler {
    header: Header,
    pub context: Arc<Context>,
    pub normalized_coords: bool,
    pub addressing_mode: cl_addressing_mode,
    pub filter_mode: cl_filter_mode,
    /// The list given to clCreateSamplerWithProperties, terminator included; empty for
    /// clCreateSampler or a NULL list (`CL_SAMPLER_PROPERTIES`).
    pub properties: Vec<cl_sampler_properties>,
}

impl ClObject for Sampler {
    const KIND: Kind = Kind::Sampler;
    fn header(&self) -> &Header {
        &self.header
    }
}

/// The addressing modes of the "Sampler Properties" table, with their `sampler_t` bits.
const ADDRESSING: [(cl_addressing_mode, u32); 5] = [
    (CL_ADDRESS_NONE, sampler_bits::ADDRESS_NONE),
    (CL_ADDRESS_CLAMP_TO_EDGE, sampler_bits::ADDRESS_CLAMP_TO_EDGE),
    (CL_ADDRESS_CLAMP, sampler_bits::ADDRESS_CLAMP),
    (CL_ADDRESS_REPEAT, sampler_bits::ADDRESS_REPEAT),
    (CL_ADDRESS_MIRRORED_REPEAT, sampler_bits::ADDRESS_MIRRORED_REPEAT),
];

/// The filter modes, with their `sampler_t` bits.
const FILTERS: [(cl_filter_mode, u32); 2] = [
    (CL_FILTER_NEAREST, sampler_bits::FILTER_NEAREST),
    (CL_FILTER_LINEAR, sampler_bits::FILTER_LINEAR),
];

pub fn valid_addressing_mode(mode: cl_addressing_mode) -> bool {
    ADDRESSING.iter().any(|(m, _)| *m == mode)
}

pub fn valid_filter_mode(mode: cl_filter_mode) -> bool {
    FILTERS.iter().any(|(m, _)| *m == mode)
}

impl Sampler {
    /// A sampler of valid modes (`valid_addressing_mode`, `valid_filter_mode`). Repeat and
    /// mirrored repeat with unnormalized coordinates are accepted: OpenCL C only says such
    /// reads "may generate image coordinates that are undefined".
    pub fn new(
        context: Arc<Context>,
        normalized_coords: bool,
        addressing_mode: cl_addressing_mode,
        filter_mode: cl_filter_mode,
        properties: Vec<cl_sampler_properties>,
    ) -> Sampler {
        Sampler {
            header: Header::new(Kind::Sampler),
            context,
            normalized_coords,
            addressing_mode,
            filter_mode,
            properties,
        }
    }

    /// The kernel argument value (`ArgKind::Sampler`).
    pub fn bits(&self) -> u32 {
        let look = |table: &[(u32, u32)], key| table.iter().find(|(k, _)| *k == key).map_or(0, |(_, b)| *b);
        let normalized = if self.normalized_coords {
            sampler_bits::NORMALIZED
        } else {
            0
        };
        normalized | look(&ADDRESSING, self.addressing_mode) | look(&FILTERS, self.filter_mode)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_match_sampler_t() {
        let ctx = Arc::new(Context::new(Vec::new(), Vec::new(), None));
        let s = Sampler::new(ctx.clone(), true, CL_ADDRESS_REPEAT, CL_FILTER_LINEAR, Vec::new());
        assert_eq!(s.bits(), 0x1 | 0x6 | 0x20);
        let s = Sampler::new(ctx, false, CL_ADDRESS_NONE, CL_FILTER_NEAREST, Vec::new());
        assert_eq!(s.bits(), 0x10);
        assert!(valid_addressing_mode(CL_ADDRESS_MIRRORED_REPEAT));
        assert!(!valid_addressing_mode(CL_FILTER_LINEAR));
        assert!(!valid_filter_mode(CL_ADDRESS_CLAMP));
    }
}
