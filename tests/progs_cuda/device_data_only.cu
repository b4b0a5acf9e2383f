// Device data and no kernel: nvcc embeds a cubin with no code section
// (Makefile: empty_sm75.o, kernel-libs/libcurand.so.10).
__device__ int gt_fixture_counter;

int gt_fixture_host_only(void)
{
	return 1;
}
