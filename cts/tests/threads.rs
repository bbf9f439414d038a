//! Many host threads enqueuing at once, to one shared queue and to separate queues; every
//! byte checked.

use cts::*;
use std::sync::Arc;

const THREADS: usize = 8;
const ITERS: usize = 40;
const CHUNK: usize = 4096;

/// Each thread owns a disjoint slice of one buffer and does write / fill / copy / read cycles
/// with non-blocking commands and events, then checks its bytes.
fn worker(ctx: &Context, q: &Queue, buf: &Mem, scratch: &Mem, t: usize) {
    let base = t * CHUNK;
    for i in 0..ITERS {
        let data = pattern(CHUNK, (t * 1000 + i) as u64);
        let w = q.write_async(buf, base, &data, &[]);
        // Copy to the thread's scratch region, depending on the write (matters for OOO queues).
        let c = q.copy(buf, scratch, base, base, CHUNK, &[w.0]);
        let mut out = vec![0u8; CHUNK];
        let r = q.read_async(scratch, base, &mut out, &[c.0]);
        r.wait();
        assert!(out == data, "thread {t} iteration {i}: bytes differ");
        // Fill half, read all (blocking, with a wait list).
        let pat = [(t as u8) ^ (i as u8); 4];
        let f = q.fill(buf, &pat, base, CHUNK / 2, &[r.0]);
        let mut got = vec![0u8; CHUNK];
        ok!(clEnqueueReadBuffer(
            q.0,
            buf.0,
            CL_TRUE,
            base,
            CHUNK,
            got.as_mut_ptr() as *mut c_void,
            1,
            &f.0,
            std::ptr::null_mut()
        ));
        assert!(
            got[..CHUNK / 2].iter().all(|&x| x == pat[0]),
            "thread {t} iteration {i}: fill"
        );
        assert!(
            got[CHUNK / 2..] == data[CHUNK / 2..],
            "thread {t} iteration {i}: after fill"
        );
        // User events across threads.
        let ue = ctx.user_event();
        let m = q.marker(&[ue.0]);
        ue.set_status(CL_COMPLETE);
        m.wait();
    }
}

#[test]
fn many_threads_one_queue() {
    for props in [0, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE] {
        let ctx = Arc::new(Context::new());
        let q = Arc::new(ctx.queue_with(props));
        let buf = Arc::new(ctx.buffer(CHUNK * THREADS));
        let scratch = Arc::new(ctx.buffer(CHUNK * THREADS));
        let hs: Vec<_> = (0..THREADS)
            .map(|t| {
                let (ctx, q, buf, scratch) = (ctx.clone(), q.clone(), buf.clone(), scratch.clone());
                std::thread::spawn(move || worker(&ctx, &q, &buf, &scratch, t))
            })
            .collect();
        for h in hs {
            h.join().expect("worker thread panicked");
        }
        q.finish();
    }
}

#[test]
fn many_threads_separate_queues() {
    let ctx = Arc::new(Context::new());
    let buf = Arc::new(ctx.buffer(CHUNK * THREADS));
    let scratch = Arc::new(ctx.buffer(CHUNK * THREADS));
    let hs: Vec<_> = (0..THREADS)
        .map(|t| {
            let (ctx, buf, scratch) = (ctx.clone(), buf.clone(), scratch.clone());
            std::thread::spawn(move || {
                let props = if t % 2 == 0 {
                    0
                } else {
                    CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE
                };
                let q = ctx.queue_with(props);
                worker(&ctx, &q, &buf, &scratch, t);
                q.finish();
            })
        })
        .collect();
    for h in hs {
        h.join().expect("worker thread panicked");
    }
}

#[test]
fn many_threads_creating_and_releasing_objects() {
    let ctx = Arc::new(Context::new());
    let hs: Vec<_> = (0..THREADS)
        .map(|t| {
            let ctx = ctx.clone();
            std::thread::spawn(move || {
                for i in 0..50 {
                    let q = ctx.queue();
                    let data = pattern(256, (t * 100 + i) as u64);
                    let b = ctx.buffer_from(&data);
                    let s = b.sub(0, 0, 128);
                    assert!(q.read(&s, 0, 128) == data[..128]);
                    let own = Context::new();
                    let oq = own.queue();
                    let ob = own.buffer_from(&data);
                    assert!(oq.read(&ob, 0, 256) == data);
                }
            })
        })
        .collect();
    for h in hs {
        h.join().expect("worker thread panicked");
    }
}
