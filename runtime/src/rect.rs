//! The rectangle arithmetic of clEnqueue{Read,Write,Copy}BufferRect (API section 5.2.3):
//! a region of `region[0]` bytes by `region[1]` rows by `region[2]` slices, at an origin, in
//! memory laid out with a row pitch and a slice pitch.

/// One side of a rectangular transfer.
#[derive(Clone, Copy, Debug)]
pub struct Rect {
    pub origin: [usize; 3],
    pub row_pitch: usize,
    pub slice_pitch: usize,
}

impl Rect {
    /// The byte offset of row `y` of slice `z` (plus the origin).
    pub fn offset(&self, y: usize, z: usize) -> usize {
        (self.origin[2] + z) * self.slice_pitch + (self.origin[1] + y) * self.row_pitch + self.origin[0]
    }

    /// One past the last byte the region touches (0 for an empty region); `None` on overflow.
    pub fn end(&self, region: [usize; 3]) -> Option<usize> {
        if region.contains(&0) {
            return Some(0);
        }
        let z = self.origin[2]
            .checked_add(region[2] - 1)?
            .checked_mul(self.slice_pitch)?;
        let y = self.origin[1].checked_add(region[1] - 1)?.checked_mul(self.row_pitch)?;
        z.checked_add(y)?.checked_add(self.origin[0])?.checked_add(region[0])
    }

    /// The byte ranges `[start, end)` of every row of the region.
    pub fn rows(&self, region: [usize; 3]) -> impl Iterator<Item = (usize, usize)> + '_ {
        (0..region[2]).flat_map(move |z| {
            (0..region[1]).map(move |y| {
                let start = self.offset(y, z);
                (start, start + region[0])
            })
        })
    }
}

/// Copies the region row by row. `src` and `dst` are the bases the rectangles are relative to.
///
/// # Safety
/// Both rectangles must lie within valid memory (checked by the caller with `Rect::end`).
pub unsafe fn copy(src: *const u8, s: Rect, dst: *mut u8, d: Rect, region: [usize; 3]) {
    for z in 0..region[2] {
        for y in 0..region[1] {
            std::ptr::copy(src.add(s.offset(y, z)), dst.add(d.offset(y, z)), region[0]);
        }
    }
}

/// True when two rectangles within one allocation share a byte (CL_MEM_COPY_OVERLAP).
pub fn overlap(a: Rect, a_base: usize, b: Rect, b_base: usize, region: [usize; 3]) -> bool {
    let mut rows: Vec<(usize, usize, bool)> = a
        .rows(region)
        .map(|(s, e)| (s + a_base, e + a_base, false))
        .chain(b.rows(region).map(|(s, e)| (s + b_base, e + b_base, true)))
        .collect();
    rows.sort_unstable_by_key(|r| r.0);
    // Sweep: a row overlaps a row of the other side if it starts before that one ends.
    let mut reach = [0usize; 2];
    let mut seen = [false; 2];
    for (start, end, side) in rows {
        let other = usize::from(!side);
        if seen[other] && start < reach[other] {
            return true;
        }
        let me = usize::from(side);
        reach[me] = reach[me].max(end);
        seen[me] = true;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlap_detects_shared_rows_only() {
        let a = Rect {
            origin: [0, 0, 0],
            row_pitch: 10,
            slice_pitch: 100,
        };
        let b = Rect {
            origin: [5, 0, 0],
            row_pitch: 10,
            slice_pitch: 100,
        };
        assert!(!overlap(a, 0, b, 0, [5, 3, 1]));
        assert!(overlap(a, 0, b, 0, [6, 3, 1]));
        let c = Rect {
            origin: [0, 3, 0],
            row_pitch: 10,
            slice_pitch: 100,
        };
        assert!(!overlap(a, 0, c, 0, [10, 3, 1]));
        assert!(overlap(a, 0, c, 0, [10, 4, 1]));
    }

    #[test]
    fn end_is_one_past_last_byte() {
        let r = Rect {
            origin: [1, 2, 3],
            row_pitch: 10,
            slice_pitch: 100,
        };
        assert_eq!(r.end([4, 2, 2]), Some(4 * 100 + 3 * 10 + 1 + 4));
    }
}
