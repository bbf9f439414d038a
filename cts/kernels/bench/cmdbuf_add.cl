// The command-buffer benchmark (clift-bench --command-buffer): one small kernel launched 100
// times, one by one and as a recorded command-buffer.
kernel void cmdbuf_add(global int *data, int v) {
    size_t i = get_global_id(0);
    data[i] += v;
}
