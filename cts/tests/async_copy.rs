//! async_work_group_copy and async_work_group_strided_copy (kernels/source/async_copy.cl):
//! global to local and local to global, strided both ways, groups that return before the
//! copy, with groups of several sizes, in the work-group functions Clift builds and again on
//! the fallback paths (`CLIFT_BARRIERS=sweep` and `fibers`, in child processes). Each result
//! is checked element by element against the host's computation, and what a group must not
//! touch keeps its sentinel.

use cts::*;

const SENTINEL: i32 = 0x5a5a_5a5a;

fn program(ctx: &Context) -> Program {
    ctx.built_source("async_copy.cl", "")
}

fn input(n: usize) -> Vec<i32> {
    (0..n as i32).map(|i| i * 7 - 1000).collect()
}

#[test]
fn async_copies_move_each_groups_data_once() {
    let ctx = Context::new();
    let q = ctx.queue();
    let p = program(&ctx);
    for (groups, local) in [(5usize, 64usize), (3, 256), (7, 1), (4, 24)] {
        let n = groups * local;
        let data = input(n * 4);
        let bin = ctx.buffer_from(as_bytes(&data));
        let out = ctx.buffer_from(as_bytes(&vec![SENTINEL; n * 4]));
        let what = format!("{groups} groups of {local}");

        let k = p.kernel("to_local");
        k.arg_mem(0, &bin);
        k.arg_mem(1, &out);
        k.arg_local(2, local * 4);
        q.run(&k, &[], &[n], &[local]);
        let got: Vec<i32> = from_bytes(&q.read(&out, 0, n * 4));
        for (i, got) in got.iter().enumerate().take(n) {
            let (g, l) = (i / local, i % local);
            assert_eq!(*got, 2 * data[g * local + local - 1 - l] + 1, "to_local, {what}: {i}");
        }

        let k = p.kernel("from_local");
        k.arg_mem(0, &bin);
        k.arg_mem(1, &out);
        q.run(&k, &[], &[n], &[local]);
        let got: Vec<i32> = from_bytes(&q.read(&out, 0, n * 4));
        for (i, (got, x)) in got.iter().zip(&data).enumerate().take(n) {
            assert_eq!(*got, x * 3, "from_local, {what}: {i}");
        }

        for stride in [1u32, 3] {
            let s = stride as usize;
            q.write(&out, 0, as_bytes(&vec![SENTINEL; n * 4]));
            let k = p.kernel("strided");
            k.arg_mem(0, &bin);
            k.arg_mem(1, &out);
            k.arg(2, &stride);
            q.run(&k, &[], &[n], &[local]);
            let got: Vec<i32> = from_bytes(&q.read(&out, 0, n * 4));
            for (j, g) in got.iter().enumerate().take(n * s) {
                let want = if j % s == 0 {
                    let e = j / s;
                    data[j] + (e % local) as i32
                } else {
                    SENTINEL
                };
                assert_eq!(*g, want, "strided {stride}, {what}: element {j}");
            }
        }

        for first_idle in [0u32, 2, groups as u32] {
            q.write(&out, 0, as_bytes(&vec![SENTINEL; n * 4]));
            let k = p.kernel("some_groups_return");
            k.arg_mem(0, &bin);
            k.arg_mem(1, &out);
            k.arg(2, &first_idle);
            q.run(&k, &[], &[n], &[local]);
            let got: Vec<i32> = from_bytes(&q.read(&out, 0, n * 4));
            for (i, (got, x)) in got.iter().zip(&data).enumerate().take(n) {
                let want = if i / local < first_idle as usize { -x } else { SENTINEL };
                assert_eq!(*got, want, "some_groups_return from group {first_idle}, {what}: {i}");
            }
        }
    }
}

/// The same on the fallback paths for kernels with barriers.
#[test]
fn async_copies_on_the_fallback_paths() {
    if std::env::var_os("CTS_ASYNC_CHILD").is_some() {
        return;
    }
    for mode in ["sweep", "fibers"] {
        assert_child_passes(
            "async_copies_move_each_groups_data_once",
            &[
                ("CLIFT_BARRIERS", mode),
                ("CLIFT_CACHE", "0"),
                ("CTS_ASYNC_CHILD", "1"),
                ("CTS_ISOLATED_CHILD", "1"),
            ],
            &format!("CLIFT_BARRIERS={mode}"),
        );
    }
}
