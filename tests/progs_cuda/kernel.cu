// The smallest kernel: the fat-binary fixtures of tests/unit/test_fatbin.c
// are this file built with several -gencode sets (Makefile, KERNEL_GENCODE_*).
__global__ void gt_fixture_add(float *a, float b)
{
	a[threadIdx.x] += b;
}
