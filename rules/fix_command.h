/* A finding's fix as a command to paste into the user's own shell (issue 30),
 * or, where no command can be right, one line that says why. */
#ifndef GPUTRACE_FIX_COMMAND_H
#define GPUTRACE_FIX_COMMAND_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "gputrace/findings.h"

struct gt_fix;
struct gt_proc_model;

/* The command for a finding's fix (its id, evidence and fix; m the process
 * model it is about, NULL for a scan's): from the fix as data first
 * (rules/fix.h: the program's own command line with the environment
 * changed, or an installer's command fitted to where the framework came
 * from); else from the evidence and the traced host's package records: an
 * apt-get command for a library a Debian package put there (a stale copy
 * that shadows or mixes with the intended one: apt-get remove PKG; another
 * major of cuDNN where the one asked for is missing: apt-get install PKG).
 * Returns true with the command in out. Returns false with out holding the
 * reason no command can be right, one line that reads after "no command: "
 * ("" only when cap is 0). Callers pass a finding's fields (x->id,
 * x->evidence, &x->fix_data, x->proc): this file sits below findings.c,
 * which prints it in the JSON. */
bool gt_fix_paste(enum gt_finding_id id, json_t *evidence, const struct gt_fix *fix,
		  const struct gt_proc_model *m, char *out, size_t cap);

/* The apt package NVIDIA's repository names cuDNN `major` by, for CUDA
 * `cuda_major` (0: not known): libcudnn8 (its version names the CUDA:
 * 8.9.7.29-1+cuda12.2), libcudnn9-cuda-12 (NVIDIA's repository; the H200's
 * system cuDNN is dpkg's libcudnn9-cuda-13). False for another major, or for
 * 9 when the CUDA major is not known. */
bool gt_cudnn_apt_package(int major, int cuda_major, char *out, size_t cap);

#endif
