/* A 2D heat-equation solver scaled out with MPI, one Clift OpenCL device per rank.
 *
 * The global grid has ny rows of nx cells; the first and last rows and columns are fixed
 * (the top row hot, the rest cold). The interior rows are split into one block per rank.
 * Each rank keeps its block on its device with a halo row above and below, and every step
 *   1. reads its first and last interior rows back from the device,
 *   2. exchanges them with the ranks above and below (MPI_Sendrecv),
 *   3. writes the neighbours' rows into its halo rows,
 *   4. runs the stencil kernel (heat.cl) over its block.
 * At the end rank 0 gathers the grid and writes it to a file as raw floats. Every cell gets
 * the same arithmetic whatever the number of ranks, so the file is bit-identical to a one-rank
 * run's; with --check rank 0 also recomputes the grid on the host and compares every bit.
 *
 * Clift's device in each rank owns exactly the CPUs the rank may run on: under
 * `mpirun --bind-to core` that is one core, so one compute unit and one worker thread.
 *
 * Usage: heat NX NY STEPS OUTFILE [--check]
 */
#define CL_TARGET_OPENCL_VERSION 300
#define _GNU_SOURCE
#include <CL/cl.h>
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef KERNEL_PATH
#define KERNEL_PATH "heat.cl"
#endif

#define ALPHA 0.2f

#define CHECK(call)                                                                     \
    do {                                                                                \
        cl_int e_ = (call);                                                             \
        if (e_ != CL_SUCCESS) {                                                         \
            fprintf(stderr, "rank %d: %s failed: %d\n", rank, #call, e_);               \
            MPI_Abort(MPI_COMM_WORLD, 1);                                               \
        }                                                                               \
    } while (0)

static int rank, size;

/* The value of global cell (x, y) before the first step. */
static float initial(int nx, int ny, int x, int y) {
    if (y == 0) return 100.0f;                        /* the hot top edge */
    if (y == ny - 1 || x == 0 || x == nx - 1) return 0.0f;
    if (x > nx / 3 && x < nx / 2 && y > ny / 2 && y < 2 * ny / 3) return 50.0f; /* a warm patch */
    return 0.0f;
}

/* First interior row (global) and number of interior rows of rank r. */
static void block_of(int r, int ny, int *first, int *rows) {
    int interior = ny - 2, base = interior / size, extra = interior % size;
    *rows = base + (r < extra);
    *first = 1 + r * base + (r < extra ? r : extra);
}

static char *read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)n + 1);
    if (text && fread(text, 1, (size_t)n, f) != (size_t)n) {
        free(text);
        text = NULL;
    }
    if (text) text[n] = 0;
    fclose(f);
    return text;
}

/* The same step on the host, for --check: the same operations in the same order. */
static void host_step(const float *u, float *next, int nx, int ny) {
    memcpy(next, u, sizeof(float) * (size_t)nx * (size_t)ny);
    for (int y = 1; y < ny - 1; y++)
        for (int x = 1; x < nx - 1; x++) {
            int c = y * nx + x;
            float around = ((u[c - nx] + u[c + nx]) + u[c - 1]) + u[c + 1];
            next[c] = u[c] + ALPHA * (around - 4.0f * u[c]);
        }
}

static cl_device_id clift_device(void) {
    cl_uint n = 0;
    cl_platform_id platforms[16];
    CHECK(clGetPlatformIDs(16, platforms, &n));
    for (cl_uint i = 0; i < n; i++) {
        char name[128] = "";
        clGetPlatformInfo(platforms[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
        if (strcmp(name, "Clift") == 0) {
            cl_device_id device;
            CHECK(clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_CPU, 1, &device, NULL));
            return device;
        }
    }
    fprintf(stderr, "rank %d: no Clift platform: is Clift registered with the ICD loader?\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 1);
    return NULL;
}

/* "rank R of N: 1 compute units, CPUs 3" */
static void report(cl_device_id device) {
    cl_uint units = 0;
    CHECK(clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL));
    cpu_set_t set;
    char cpus[256] = "";
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        for (int c = 0, len = 0; c < CPU_SETSIZE && len < 240; c++)
            if (CPU_ISSET(c, &set)) len += snprintf(cpus + len, sizeof cpus - len, "%s%d", len ? "," : "", c);
    printf("rank %d of %d: %u compute units, CPUs %s\n", rank, size, units, cpus);
    fflush(stdout);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 5) {
        if (rank == 0) fprintf(stderr, "usage: %s NX NY STEPS OUTFILE [--check]\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    int nx = atoi(argv[1]), ny = atoi(argv[2]), steps = atoi(argv[3]);
    const char *out_path = argv[4];
    int check = argc > 5 && strcmp(argv[5], "--check") == 0;
    if (nx < 3 || ny - 2 < size || steps < 0) {
        if (rank == 0) fprintf(stderr, "need NX >= 3 and at least one interior row per rank\n");
        MPI_Finalize();
        return 2;
    }
    int first, rows;
    block_of(rank, ny, &first, &rows);
    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;

    cl_device_id device = clift_device();
    report(device);
    cl_int err;
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    CHECK(err);
    cl_command_queue queue = clCreateCommandQueueWithProperties(context, device, NULL, &err);
    CHECK(err);
    char *source = read_file(KERNEL_PATH);
    if (!source) {
        fprintf(stderr, "rank %d: cannot read %s\n", rank, KERNEL_PATH);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    cl_program program = clCreateProgramWithSource(context, 1, (const char **)&source, NULL, &err);
    CHECK(err);
    if (clBuildProgram(program, 1, &device, "", NULL, NULL) != CL_SUCCESS) {
        char log[16384] = "";
        clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
        fprintf(stderr, "rank %d: build failed:\n%s\n", rank, log);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    cl_kernel kernel = clCreateKernel(program, "heat_step", &err);
    CHECK(err);

    /* The block with its halo rows: local row 0 is global row first-1. */
    size_t row_bytes = sizeof(float) * (size_t)nx, block_bytes = row_bytes * (size_t)(rows + 2);
    float *block = malloc(block_bytes);
    for (int y = 0; y < rows + 2; y++)
        for (int x = 0; x < nx; x++) block[(size_t)y * nx + x] = initial(nx, ny, x, first - 1 + y);
    cl_mem u = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, block_bytes, block, &err);
    CHECK(err);
    cl_mem next = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, block_bytes, block, &err);
    CHECK(err);

    float *edge = malloc(2 * row_bytes), *halo = malloc(2 * row_bytes);
    size_t global[2] = {(size_t)nx, (size_t)rows};
    float alpha = ALPHA;
    for (int step = 0; step < steps; step++) {
        /* 1-3: the edge rows out, the neighbours' rows into the halo. */
        CHECK(clEnqueueReadBuffer(queue, u, CL_FALSE, row_bytes, row_bytes, edge, 0, NULL, NULL));
        CHECK(clEnqueueReadBuffer(queue, u, CL_TRUE, row_bytes * (size_t)rows, row_bytes, edge + nx, 0, NULL, NULL));
        MPI_Sendrecv(edge, nx, MPI_FLOAT, up, 0, halo + nx, nx, MPI_FLOAT, down, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(edge + nx, nx, MPI_FLOAT, down, 1, halo, nx, MPI_FLOAT, up, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (up != MPI_PROC_NULL)
            CHECK(clEnqueueWriteBuffer(queue, u, CL_FALSE, 0, row_bytes, halo, 0, NULL, NULL));
        if (down != MPI_PROC_NULL)
            CHECK(clEnqueueWriteBuffer(queue, u, CL_FALSE, row_bytes * (size_t)(rows + 1), row_bytes, halo + nx, 0,
                                       NULL, NULL));
        /* 4: the stencil; the halo rows of `next` keep the fixed boundary where there is no
         * neighbour. */
        CHECK(clSetKernelArg(kernel, 0, sizeof u, &u));
        CHECK(clSetKernelArg(kernel, 1, sizeof next, &next));
        CHECK(clSetKernelArg(kernel, 2, sizeof nx, &nx));
        CHECK(clSetKernelArg(kernel, 3, sizeof rows, &rows));
        CHECK(clSetKernelArg(kernel, 4, sizeof alpha, &alpha));
        CHECK(clEnqueueNDRangeKernel(queue, kernel, 2, NULL, global, NULL, 0, NULL, NULL));
        cl_mem t = u;
        u = next;
        next = t;
    }
    CHECK(clEnqueueReadBuffer(queue, u, CL_TRUE, 0, block_bytes, block, 0, NULL, NULL));

    /* Rank 0 gathers the interior rows and adds the fixed top and bottom rows. */
    float *grid = NULL;
    int *counts = NULL, *displs = NULL;
    if (rank == 0) {
        grid = malloc(row_bytes * (size_t)ny);
        counts = malloc(sizeof(int) * size);
        displs = malloc(sizeof(int) * size);
        for (int r = 0; r < size; r++) {
            int f, n;
            block_of(r, ny, &f, &n);
            counts[r] = n * nx;
            displs[r] = f * nx;
        }
        for (int x = 0; x < nx; x++) {
            grid[x] = initial(nx, ny, x, 0);
            grid[(size_t)(ny - 1) * nx + x] = initial(nx, ny, x, ny - 1);
        }
    }
    MPI_Gatherv(block + nx, rows * nx, MPI_FLOAT, grid, counts, displs, MPI_FLOAT, 0, MPI_COMM_WORLD);

    int status = 0;
    if (rank == 0) {
        FILE *f = fopen(out_path, "wb");
        if (!f || fwrite(grid, row_bytes, (size_t)ny, f) != (size_t)ny) {
            fprintf(stderr, "cannot write %s\n", out_path);
            status = 1;
        }
        if (f) fclose(f);
        double sum = 0;
        for (size_t i = 0; i < (size_t)nx * ny; i++) sum += grid[i];
        printf("%d ranks, %dx%d grid, %d steps: total heat %.6f\n", size, nx, ny, steps, sum);
        if (check) {
            float *a = malloc(row_bytes * (size_t)ny), *b = malloc(row_bytes * (size_t)ny);
            for (int y = 0; y < ny; y++)
                for (int x = 0; x < nx; x++) a[(size_t)y * nx + x] = initial(nx, ny, x, y);
            for (int s = 0; s < steps; s++) {
                host_step(a, b, nx, ny);
                float *t = a;
                a = b;
                b = t;
            }
            size_t differ = 0;
            for (size_t i = 0; i < (size_t)nx * ny; i++) differ += memcmp(&a[i], &grid[i], sizeof(float)) != 0;
            printf("host check: %zu of %zu cells differ\n", differ, (size_t)nx * ny);
            status |= differ != 0;
            free(a);
            free(b);
        }
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    clReleaseMemObject(u);
    clReleaseMemObject(next);
    clReleaseKernel(kernel);
    clReleaseProgram(program);
    clReleaseCommandQueue(queue);
    clReleaseContext(context);
    free(source);
    free(block);
    free(edge);
    free(halo);
    free(grid);
    free(counts);
    free(displs);
    MPI_Finalize();
    return status;
}
