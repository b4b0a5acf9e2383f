/* Test program, linked statically: the loader never runs, nothing can be traced. */
#include <stdio.h>

int main(void)
{
	puts("hello from a static program");
	return 0;
}
