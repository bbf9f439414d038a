//! Image instructions in the vector loop (issue 15, item 3).
//!
//! The image, the sampler and the sampled image pairing them are uniform (kernel arguments,
//! literal samplers), so OpSampledImage and the image queries stay scalar. A read
//! (OpImageSampleExplicitLod, OpImageRead) at coordinates that differ between work-items runs
//! the scalar translation once per lane (Step::Lanes): four reads generated inline for the
//! image's format and sampler where an enqueue's variant knows them (`image_inline`), four
//! calls through the read table otherwise. Reads have no effect and never touch memory
//! outside their image whatever the coordinates, so the lanes outside the execution mask may
//! read too: their results are dropped by the masked merges as any other value of theirs.
//! A write (OpImageWrite) runs the scalar translation once per lane too, but only for the
//! lanes in the execution mask, as stores do.

use super::{rep, Class, Step};
use crate::codegen::context::Ctx;
use crate::codegen::layout::Id;
use crate::spirv::Instruction;
use rspirv::spirv::Op;
use std::collections::HashMap;

/// The step and result class of an image instruction (`None`: not one, or not in the vector
/// loop). `ids` are the instruction's operands that are values, `tys` the body's value types.
pub(super) fn classify(
    cx: &Ctx,
    tys: &HashMap<Id, Id>,
    inst: &Instruction,
    ids: &[Id],
    cls: &dyn Fn(&Id) -> Class,
) -> Option<(Step, Option<Class>)> {
    let uniform = |x: &Id| cls(x) == Class::Uniform;
    match inst.opcode {
        Op::SampledImage | Op::ImageQuerySize | Op::ImageQuerySizeLod | Op::ImageQueryFormat | Op::ImageQueryOrder => {
            ids.iter().all(uniform).then_some((Step::Scalar, Some(Class::Uniform)))
        }
        Op::ImageSampleExplicitLod | Op::ImageRead => {
            // The (sampled) image uniform; the coordinates (and a constant Lod) per lane.
            let (image, rest) = ids.split_first()?;
            if !uniform(image) {
                return None;
            }
            if rest.iter().all(uniform) {
                return Some((Step::Scalar, Some(Class::Uniform)));
            }
            rep(cx, inst.result_type?)?;
            per_lane(cx, tys, rest, cls)?;
            Some((Step::Lanes, Some(Class::Varying)))
        }
        Op::ImageWrite => {
            // The image uniform; coordinates and texel of any class, written lane by lane
            // under the execution mask (`effect_by_lanes`), in the lanes' order.
            let (image, rest) = ids.split_first()?;
            if !uniform(image) {
                return None;
            }
            per_lane(cx, tys, rest, cls)?;
            Some((Step::Lanes, None))
        }
        _ => None,
    }
}

/// `Some` when each of `ids` is uniform or has four lanes the scalar translation can take one
/// at a time.
fn per_lane(cx: &Ctx, tys: &HashMap<Id, Id>, ids: &[Id], cls: &dyn Fn(&Id) -> Class) -> Option<()> {
    for x in ids {
        match cls(x) {
            Class::Uniform => {}
            Class::Affine(_) | Class::Varying => {
                rep(cx, *tys.get(x)?)?;
            }
            _ => return None,
        }
    }
    Some(())
}
