/* The environment block of gputrace doctor, as users paste it into issues:
 * OS, kernel, glibc, driver, CUDA toolkit, Python and its frameworks with
 * the CUDA and cuDNN they declare. Read from files and one short Python run;
 * no CUDA call. */
#ifndef GPUTRACE_CMD_DOCTOR_ENV_H
#define GPUTRACE_CMD_DOCTOR_ENV_H

#include <limits.h>
#include <stdbool.h>

struct doctor_framework {
	char name[32];
	char version[64];
	char cuda[32];        /* "" : none declared (a CPU-only build) */
	char cudnn[32];       /* "" : none declared */
	bool cudnn_known;     /* cudnn was said by the framework checks (it needs torch imported) */
};

struct doctor_env {
	char os[256];         /* "" : no /etc/os-release */
	char kernel[256];
	char glibc[32];
	char driver[64];      /* the kernel module's version, "" : none visible */
	char cuda_toolkit[PATH_MAX + 64];  /* "13.0 (/usr/local/cuda-13.0)", "" : none */
	char python[PATH_MAX + 64];        /* "/usr/bin/python3 3.11.2", "" : none */
	char python_path[PATH_MAX];
	bool imports_torch;   /* torch is found (the framework checks import it) */
	char torch_error[256]; /* why not, in Python's words */
	struct doctor_framework frameworks[2];
	int nframeworks;
};

/* Fills env; python is the interpreter to ask (NULL: none found). */
void cmd_doctor_env_read(struct doctor_env *env, const char *python);
/* The framework checks' "framework\tNAME\tVER\tCUDA\tCUDNN" line in out,
 * once they imported torch: its own word on the versions, cuDNN's included. */
void cmd_doctor_env_take_framework(struct doctor_env *env, const char *out);

#endif
