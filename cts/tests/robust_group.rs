//! Robust mode's group-level check (README "Robust mode", `jit/src/codegen/robust_group.rs`):
//! accesses at indexes computed from the work-item ids, kernel arguments and loop counters are
//! checked once per work-group, and a group whose every access is in range runs without
//! per-access checks. The rule must not change: buffers here are sized so that no group,
//! every group, only the last group, only the first group or only some lanes of a group reach
//! outside them, and the host computes the documented result (an out-of-range load reads 0, an
//! out-of-range store is dropped, an out-of-range atomic changes nothing), which robust mode
//! must give bit for bit. Kernels: kernels/source/robust_group.cl.

use cts::*;
use std::ptr;

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// A buffer length near `n`: exactly `n`, a little shorter or longer (some lanes of the
    /// last group out of range), much shorter (several groups), or empty.
    fn len_near(&mut self, n: usize) -> usize {
        match self.below(6) {
            0 | 1 => n,
            2 => n.saturating_sub(1 + self.below(3)),
            3 => n + self.below(5),
            4 => n / 2 + self.below(7),
            _ => self.below(3),
        }
    }
}

fn ints(rng: &mut Rng, n: usize) -> Vec<i32> {
    (0..n).map(|_| rng.next() as i32).collect()
}

/// Runs `k` over `global` (with `local`) work-items in as many dimensions and checks that the
/// command completed.
fn run(q: &Queue, k: &Kernel, global: &[usize], local: &[usize]) {
    let mut e = ptr::null_mut();
    ok!(clEnqueueNDRangeKernel(
        q.0,
        k.0,
        global.len() as cl_uint,
        ptr::null(),
        global.as_ptr(),
        local.as_ptr(),
        0,
        ptr::null(),
        &mut e
    ));
    let e = Event(e);
    let r = unsafe { clWaitForEvents(1, &e.0) };
    assert_eq!(r, CL_SUCCESS, "{}", err_name(r));
    assert_eq!(e.status(), CL_COMPLETE);
}

/// A sub-buffer holding `v` (at least one byte: a buffer cannot be empty) and the
/// allocation it starts, padded past it.
struct Buf {
    whole: Mem,
    mem: Mem,
}

/// `v` in a buffer exactly `v.len()` elements long, placed as a sub-buffer at the start of a
/// larger allocation (so an out-of-range access that were not checked would land in memory
/// the test reads back and compare).
fn buf(ctx: &Context, v: &[i32]) -> Buf {
    let pad = 64;
    let mut all = v.to_vec();
    all.extend(std::iter::repeat_n(0x5a5a_5a5a, pad));
    let whole = ctx.buffer_from(as_bytes(&all));
    let mem = whole.sub(CL_MEM_READ_WRITE, 0, (v.len() * 4).max(1));
    Buf { whole, mem }
}

/// The whole allocation behind `b` (`n` elements, then the padding).
fn read_all(q: &Queue, b: &Buf, n: usize) -> Vec<i32> {
    from_bytes(&q.read(&b.whole, 0, (n + 64) * 4))
}

fn padded(v: &[i32]) -> Vec<i32> {
    let mut all = v.to_vec();
    all.extend(std::iter::repeat_n(0x5a5a_5a5a, 64));
    all
}

fn get(v: &[i32], j: i64) -> i32 {
    if j >= 0 && (j as usize) < v.len() {
        v[j as usize]
    } else {
        0
    }
}

fn put(v: &mut [i32], j: i64, x: i32) {
    if j >= 0 && (j as usize) < v.len() {
        v[j as usize] = x;
    }
}

struct Setup {
    ctx: Context,
    q: Queue,
    p: Program,
}

fn setup() -> Setup {
    let ctx = Context::new();
    let q = ctx.queue();
    let p = ctx.built_source("robust_group.cl", "-cl-std=CL3.0 -cl-clift-robust");
    Setup { ctx, q, p }
}

#[test]
fn streams_with_short_buffers() {
    let s = setup();
    let mut rng = Rng(0x5eed_0101);
    for round in 0..24 {
        let local = [1usize, 3, 4, 16, 64][rng.below(5)];
        let n = local * (1 + rng.below(12));
        let (la, lb, lo) = (rng.len_near(n), rng.len_near(n), rng.len_near(n));
        let (a, b, o) = (ints(&mut rng, la), ints(&mut rng, lb), ints(&mut rng, lo));
        let (ba, bb, bo) = (buf(&s.ctx, &a), buf(&s.ctx, &b), buf(&s.ctx, &o));
        let k = s.p.kernel("stream");
        k.arg_mem(0, &ba.mem);
        k.arg_mem(1, &bb.mem);
        k.arg_mem(2, &bo.mem);
        run(&s.q, &k, &[n], &[local]);
        let mut want = o.clone();
        for i in 0..n as i64 {
            put(&mut want, i, get(&a, i).wrapping_mul(3).wrapping_add(get(&b, i)));
        }
        let what = format!("round {round}: n {n}, local {local}, lengths {la} {lb} {lo}");
        assert_eq!(read_all(&s.q, &bo, lo), padded(&want), "{what}");
        assert_eq!(read_all(&s.q, &ba, la), padded(&a), "{what}: a");
    }
}

#[test]
fn constant_shifts_reach_below_and_above() {
    let s = setup();
    let mut rng = Rng(0x5eed_0102);
    for round in 0..16 {
        let local = [1usize, 2, 4, 8, 32][rng.below(5)];
        let n = local * (1 + rng.below(10));
        let (la, lo) = (rng.len_near(n), rng.len_near(n));
        let (a, o) = (ints(&mut rng, la), ints(&mut rng, lo));
        let (ba, bo) = (buf(&s.ctx, &a), buf(&s.ctx, &o));
        let k = s.p.kernel("shifted");
        k.arg_mem(0, &ba.mem);
        k.arg_mem(1, &bo.mem);
        run(&s.q, &k, &[n], &[local]);
        let mut want = o.clone();
        for i in 0..n as i64 {
            put(&mut want, i - 3, get(&a, i + 2).wrapping_add(1));
        }
        let what = format!("round {round}: n {n}, local {local}, lengths {la} {lo}");
        assert_eq!(read_all(&s.q, &bo, lo), padded(&want), "{what}");
    }
}

#[test]
fn loop_counters_bounded_by_an_argument() {
    let s = setup();
    let mut rng = Rng(0x5eed_0103);
    for round in 0..16 {
        let local = [1usize, 4, 8, 16][rng.below(4)];
        let groups = 1 + rng.below(6);
        let per = rng.below(6) as u32;
        let n = groups * local * per as usize;
        let (ls, ld) = (rng.len_near(n), rng.len_near(n));
        let (src, dst) = (ints(&mut rng, ls), ints(&mut rng, ld));
        let (bs, bd) = (buf(&s.ctx, &src), buf(&s.ctx, &dst));
        let k = s.p.kernel("strided");
        k.arg_mem(0, &bs.mem);
        k.arg_mem(1, &bd.mem);
        k.arg(2, &per);
        run(&s.q, &k, &[groups * local], &[local]);
        let mut want = dst.clone();
        for g in 0..groups {
            for lid in 0..local {
                for kk in 0..per as usize {
                    let j = (g * local * per as usize + kk * local + lid) as i64;
                    put(&mut want, j, get(&src, j).wrapping_mul(2).wrapping_add(kk as i32));
                }
            }
        }
        let what = format!("round {round}: {groups} groups of {local}, {per} per item, lengths {ls} {ld}");
        assert_eq!(read_all(&s.q, &bd, ld), padded(&want), "{what}");
    }
}

#[test]
fn two_dimensions_with_short_rows() {
    let s = setup();
    let mut rng = Rng(0x5eed_0104);
    for round in 0..16 {
        let (lx, ly) = ([1usize, 4, 8][rng.below(3)], [1usize, 2, 4][rng.below(3)]);
        let (gx, gy) = (lx * (1 + rng.below(5)), ly * (1 + rng.below(5)));
        // The row length may be shorter than the range's width (columns spill into the next
        // row) or longer.
        let n = (gx as i64 + rng.below(5) as i64 - 2).max(1) as u32;
        let full = n as usize * gy;
        let (la, lc) = (rng.len_near(full), rng.len_near(full));
        let (a, c) = (ints(&mut rng, la), ints(&mut rng, lc));
        let (ba, bc) = (buf(&s.ctx, &a), buf(&s.ctx, &c));
        let k = s.p.kernel("grid");
        k.arg_mem(0, &ba.mem);
        k.arg_mem(1, &bc.mem);
        k.arg(2, &n);
        run(&s.q, &k, &[gx, gy], &[lx, ly]);
        // Work-items run in any order: where two write one element (columns past the row
        // length), the test only accepts lengths where that cannot happen.
        let mut want = c.clone();
        let mut writers = vec![0u32; lc];
        for row in 0..gy as u32 {
            for col in 0..gx as u32 {
                let j = row.wrapping_mul(n).wrapping_add(col) as i64;
                put(&mut want, j, get(&a, j).wrapping_add(row as i32));
                if (j as usize) < lc {
                    writers[j as usize] += 1;
                }
            }
        }
        let got = read_all(&s.q, &bc, lc);
        let what = format!("round {round}: {gx}x{gy} in {lx}x{ly}, n {n}, lengths {la} {lc}");
        for (j, w) in writers.iter().enumerate() {
            if *w <= 1 {
                assert_eq!(got[j], want[j], "{what}: element {j}");
            }
        }
        assert_eq!(got[lc..], padded(&[])[..], "{what}: past the buffer");
    }
}

#[test]
fn local_tiles_and_bins() {
    let s = setup();
    let mut rng = Rng(0x5eed_0105);
    for round in 0..16 {
        let local = [1usize, 4, 8, 32][rng.below(4)];
        let groups = 1 + rng.below(5);
        let n = groups * local;
        // The __local argument: enough for the group, or a few ints short.
        let tile = if rng.below(2) == 0 {
            local
        } else {
            local.saturating_sub(1 + rng.below(3)).max(1)
        };
        let (ld, lo) = (rng.len_near(n), rng.len_near(groups * 16));
        let (data, o) = (ints(&mut rng, ld), ints(&mut rng, lo));
        let (bdat, bo) = (buf(&s.ctx, &data), buf(&s.ctx, &o));
        let k = s.p.kernel("tiles");
        k.arg_mem(0, &bdat.mem);
        k.arg_mem(1, &bo.mem);
        k.arg_local(2, tile * 4);
        run(&s.q, &k, &[n], &[local]);
        let mut want = o.clone();
        for g in 0..groups {
            let t: Vec<i32> = (0..tile).map(|x| get(&data, (g * local + x) as i64)).collect();
            let mut bins = [0i32; 16];
            for lid in 0..local {
                let v = get(&t, (local - 1 - lid) as i64);
                bins[(v & 15) as usize] += 1;
            }
            for (b, x) in bins.iter().enumerate() {
                put(&mut want, (g * 16 + b) as i64, *x);
            }
        }
        let what = format!("round {round}: {groups} groups of {local}, tile {tile}, lengths {ld} {lo}");
        assert_eq!(read_all(&s.q, &bo, lo), padded(&want), "{what}");
    }
}
