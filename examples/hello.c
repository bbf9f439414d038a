/* The sample Clift's setup runs: an OpenCL C kernel built from source and run on the Clift
 * platform through the system ICD loader, exactly as any application would. */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdio.h>
#include <string.h>

#define CHECK(call)                                                         \
    do {                                                                    \
        cl_int e_ = (call);                                                 \
        if (e_ != CL_SUCCESS) {                                             \
            fprintf(stderr, "%s failed: %d\n", #call, e_);                  \
            return 1;                                                       \
        }                                                                   \
    } while (0)

static const char *source =
    "__kernel void saxpy(float a, __global const float *x, __global float *y) {\n"
    "    size_t i = get_global_id(0);\n"
    "    y[i] = a * x[i] + y[i];\n"
    "}\n";

int main(void) {
    cl_uint n_platforms = 0;
    cl_platform_id platforms[16];
    CHECK(clGetPlatformIDs(16, platforms, &n_platforms));
    cl_platform_id platform = NULL;
    for (cl_uint i = 0; i < n_platforms; i++) {
        char name[128] = "";
        clGetPlatformInfo(platforms[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
        if (strcmp(name, "Clift") == 0) platform = platforms[i];
    }
    if (!platform) {
        fprintf(stderr, "no Clift platform: is Clift registered with the ICD loader?\n");
        return 1;
    }
    cl_device_id device;
    cl_int err;
    CHECK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_CPU, 1, &device, NULL));
    char device_name[256];
    CHECK(clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof device_name, device_name, NULL));
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    CHECK(err);
    cl_command_queue queue = clCreateCommandQueueWithProperties(context, device, NULL, &err);
    CHECK(err);
    cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &err);
    CHECK(err);
    if (clBuildProgram(program, 1, &device, "", NULL, NULL) != CL_SUCCESS) {
        char log[16384] = "";
        clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
        fprintf(stderr, "build failed:\n%s\n", log);
        return 1;
    }
    cl_kernel kernel = clCreateKernel(program, "saxpy", &err);
    CHECK(err);

    enum { N = 8 };
    float x[N], y[N], a = 2.0f;
    for (int i = 0; i < N; i++) {
        x[i] = (float)i;
        y[i] = 100.0f;
    }
    cl_mem bx = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof x, x, &err);
    CHECK(err);
    cl_mem by = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof y, y, &err);
    CHECK(err);
    CHECK(clSetKernelArg(kernel, 0, sizeof a, &a));
    CHECK(clSetKernelArg(kernel, 1, sizeof bx, &bx));
    CHECK(clSetKernelArg(kernel, 2, sizeof by, &by));
    size_t global = N;
    CHECK(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL));
    CHECK(clEnqueueReadBuffer(queue, by, CL_TRUE, 0, sizeof y, y, 0, NULL, NULL));

    printf("saxpy on %s (Clift): y = 2*x + 100 =", device_name);
    int ok = 1;
    for (int i = 0; i < N; i++) {
        printf(" %g", y[i]);
        ok &= y[i] == 2.0f * i + 100.0f;
    }
    printf("\n%s\n", ok ? "result correct" : "RESULT WRONG");

    clReleaseMemObject(bx);
    clReleaseMemObject(by);
    clReleaseKernel(kernel);
    clReleaseProgram(program);
    clReleaseCommandQueue(queue);
    clReleaseContext(context);
    return ok ? 0 : 1;
}
