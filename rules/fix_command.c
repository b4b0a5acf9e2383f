/* A finding's fix as a command to paste (issue 30): the fix as data when it
 * has one (rules/fix.h), else an apt-get command where a Debian package put
 * the library the fix is about there, else one line that says why no one
 * command can be right. Pure: the traced host's package records come from
 * the finding's facts. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/family.h"
#include "facts/facts.h"
#include "host/package.h"
#include "read/paths.h"
#include "read/model.h"
#include "rules/fix.h"
#include "rules/fix_command.h"

#define MAX_PACKAGES 8

/* Debian package names, each once. */
struct packages {
	char name[MAX_PACKAGES][128];
	size_t n;
	bool other;  /* a file of the set that no Debian package claims */
};

static const char *ev_str(json_t *e, const char *key)
{
	return json_string_value(json_object_get(e, key));
}

/* Whether a Debian package put path there (its record in *pk); not for pip,
 * conda or no installer at all. */
static bool dpkg_of(struct gt_host_facts *facts, const char *path, struct host_package *pk)
{
	return facts && path && gt_facts_package(facts, path, pk) && strcmp(pk->manager, "dpkg") == 0;
}

static void packages_add(struct packages *set, struct gt_host_facts *facts, const char *path)
{
	struct host_package pk;
	size_t i;

	if (!dpkg_of(facts, path, &pk)) {
		set->other = true;
		return;
	}
	for (i = 0; i < set->n && strcmp(set->name[i], pk.name) != 0; i++)
		;
	if (i == set->n && set->n < MAX_PACKAGES)
		snprintf(set->name[set->n++], sizeof(set->name[0]), "%s", pk.name);
}

/* A library the loader took from ld.so.cache or its default folders: no
 * change of the environment takes it away, its package can. */
static bool from_system_folders(json_t *e)
{
	const char *rule = ev_str(e, "rule");

	return rule && (strcmp(rule, "ld_so_cache") == 0 || strcmp(rule, "default") == 0);
}

static bool say_apt(const char *verb, const struct packages *set, char *out, size_t cap)
{
	size_t i, len;

	if (!set->n || set->other)
		return false;
	len = (size_t)snprintf(out, cap, "sudo apt-get %s", verb);
	for (i = 0; i < set->n && len < cap; i++)
		len += (size_t)snprintf(out + len, cap - len, " %s", set->name[i]);
	return len < cap;
}

/* shadowed-library through the loader's cache: the stale copies (evidence
 * with "shadowed": the copy next to the requester that was never tried)
 * came from a Debian package: removing it lets the requester have its
 * own. A leftover system libcudnn8 shadowing the wheel's is the case. */
static bool shadowed_apt(json_t *evidence, struct gt_host_facts *facts, char *out, size_t cap)
{
	struct packages set = { .n = 0 };
	size_t i;
	json_t *e;

	json_array_foreach(evidence, i, e)
		if (ev_str(e, "shadowed") && !ev_str(e, "preloaded") && from_system_folders(e))
			packages_add(&set, facts, ev_str(e, "path"));
	return say_apt("remove", &set, out, cap);
}

/* mixed-versions: the parts whose version is not the front's (the part
 * named as the family: cudnn, cublas), taken from the system folders. A
 * package that also holds the front is never removed. */
static bool mixed_apt(json_t *evidence, struct gt_host_facts *facts, char *out, size_t cap)
{
	struct packages set = { .n = 0 };
	struct host_package front_pk = { .name = "" };
	const char *front = NULL, *v, *c;
	size_t i;
	json_t *e;

	json_array_foreach(evidence, i, e) {
		c = ev_str(e, "component");
		if (c && (strcmp(c, "cudnn") == 0 || strcmp(c, "cublas") == 0) && ev_str(e, "version")) {
			front = ev_str(e, "version");
			if (!dpkg_of(facts, ev_str(e, "path"), &front_pk))
				front_pk.name[0] = 0;
			break;
		}
	}
	if (!front)
		return false;
	json_array_foreach(evidence, i, e) {
		v = ev_str(e, "version");
		if (!v || !ev_str(e, "path") || strcmp(v, front) == 0)
			continue;
		if (!from_system_folders(e))
			return false;  /* an odd part the environment brought: not apt's */
		packages_add(&set, facts, ev_str(e, "path"));
	}
	for (i = 0; i < set.n; i++)
		if (strcmp(set.name[i], front_pk.name) == 0)
			return false;
	return say_apt("remove", &set, out, cap);
}

bool gt_cudnn_apt_package(int major, int cuda_major, char *out, size_t cap)
{
	if (major == 8)
		return (size_t)snprintf(out, cap, "libcudnn8") < cap;
	if (major == 9 && cuda_major > 0)  /* a later major's name is not known yet */
		return (size_t)snprintf(out, cap, "libcudnn%d-cuda-%d", major, cuda_major) < cap;
	return false;
}

/* The CUDA major the process runs: its runtime's, else the one a cuDNN 9
 * package name says (libcudnn9-cuda-12); 0 when neither says. */
static int cuda_major_of(const struct gt_proc_model *m, const struct host_package *other)
{
	const struct gt_lib *rt = m ? gt_model_find(m, "cudart") : NULL;
	const char *cu = strstr(other->name, "-cuda-");

	if (rt && gt_version_major(rt->version) > 0)
		return gt_version_major(rt->version);
	return cu ? atoi(cu + 6) : 0;
}

/* The first string that an item of the evidence gives for key, or NULL. */
static const char *first_ev_str(json_t *evidence, const char *key)
{
	size_t i;
	json_t *e;

	json_array_foreach(evidence, i, e)
		if (ev_str(e, key))
			return ev_str(e, key);
	return NULL;
}

/* The major a library name asks for: 8 for libcudnn.so.8; -1 for none. */
static int major_asked(const char *name)
{
	const char *so = name ? strstr(name, ".so.") : NULL;

	return so && so[4] >= '0' && so[4] <= '9' ? atoi(so + 4) : -1;
}

/* library-not-found where only another major of cuDNN is here, from a
 * Debian package: the apt repository that installed it has the one asked
 * for. cuDNN 8's package names no CUDA (its version does): with a CUDA 12
 * runtime the newest, built for CUDA 12, is right; for another, which
 * version is a choice (why). */
static bool other_major(json_t *evidence, const struct gt_proc_model *m, char *out, size_t cap, bool *said_why)
{
	const char *other = NULL, *name = NULL;
	struct host_package pk;
	char pkg[128];
	int want, cuda;
	size_t i;
	json_t *e;

	json_array_foreach(evidence, i, e) {
		if (!name && ev_str(e, "name"))
			name = ev_str(e, "name");
		if (ev_str(e, "other_major"))
			other = ev_str(e, "other_major");
	}
	if (!other || !name || strncmp(gt_base_name(name), "libcudnn", 8) != 0 ||
	    !dpkg_of(m ? m->facts : NULL, other, &pk))
		return false;
	want = major_asked(gt_base_name(name));
	cuda = cuda_major_of(m, &pk);
	if (want == 8 && cuda > 12) {
		/* cuDNN 8's last release, 8.9.7, was built for CUDA 11.x and 12.x */
		snprintf(out, cap, "cuDNN 8 has no build for CUDA %d (its last, 8.9.7, is for 11.x and 12.x): a "
			 "build of the program for cuDNN 9 is the way", cuda);
		*said_why = true;
		return false;
	}
	if (want == 8 && cuda != 12) {
		if (cuda > 0)
			snprintf(out, cap, "libcudnn8's versions name their CUDA "
				 "(8.9.7.29-1+cuda12.2): pick the one for CUDA %d from apt-cache madison libcudnn8, "
				 "then sudo apt-get install libcudnn8=VERSION", cuda);
		else
			snprintf(out, cap, "libcudnn8's versions name their CUDA "
				 "(8.9.7.29-1+cuda12.2): pick the one for the program's CUDA from apt-cache madison "
				 "libcudnn8, then sudo apt-get install libcudnn8=VERSION");
		*said_why = true;
		return false;
	}
	if (!gt_cudnn_apt_package(want, cuda, pkg, sizeof(pkg)))
		return false;
	return (size_t)snprintf(out, cap, "sudo apt-get install %s", pkg) < cap;
}

/* scan's host findings name their cause ("no-gpu", "no-driver",
 * "no-device-node": rules/scan_host.c); "" when none does. */
static const char *host_cause(json_t *evidence)
{
	const char *cause = first_ev_str(evidence, "cause");

	return cause ? cause : "";
}

/* driver-missing (and scan's no-device): which of "no GPU", "no driver",
 * "no device node" the evidence found decides what there is to do; none
 * is one command that fits every host. */
static void driver_missing_why(json_t *evidence, char *out, size_t cap)
{
	const char *pci = NULL, *kmod = NULL, *node = NULL, *cause = host_cause(evidence);
	bool presence = false;
	size_t i;
	json_t *e;

	json_array_foreach(evidence, i, e)
		if (json_object_get(e, "nvidia_pci")) {
			presence = true;
			pci = ev_str(e, "nvidia_pci");
			kmod = ev_str(e, "kernel_module");
			node = ev_str(e, "device_node");
		}
	if (strcmp(cause, "no-driver") == 0)
		snprintf(out, cap, "the driver must fit this kernel and GPU (Debian: nvidia-driver from "
			 "non-free; Ubuntu: ubuntu-drivers install; or NVIDIA's installer), or, with its kernel "
			 "module loaded, its libcuda.so.1's folder goes in /etc/ld.so.conf.d/ (then ldconfig)");
	else if (strcmp(cause, "no-device-node") == 0)
		snprintf(out, cap, "on the host, root makes the nodes (nvidia-modprobe -c 0 -u); in a container, "
			 "start it again with docker run --gpus all");
	else if (presence && node && strstr(node, "dxg"))  /* WSL: no PCI device of its own */
		snprintf(out, cap, "on WSL the driver comes from Windows: install or update "
			 "the NVIDIA driver there");
	else if (strcmp(cause, "no-gpu") == 0 || (presence && (!pci || !pci[0])))
		snprintf(out, cap, "this host shows no NVIDIA GPU; run the program where there is one");
	else if (presence && (!kmod || !kmod[0]))
		snprintf(out, cap, "the driver must fit this kernel and GPU (Debian: "
			 "nvidia-driver from non-free; Ubuntu: ubuntu-drivers install; or NVIDIA's installer), "
			 "then a reboot");
	else if (presence && !node)
		snprintf(out, cap, "the container was started without the GPU; start it "
			 "again with docker run --gpus all (or the NVIDIA runtime)");
	else if (presence)
		snprintf(out, cap, "install the user-space driver of kernel module %s "
			 "(the same version), or add its folder to /etc/ld.so.conf.d/ and run ldconfig", kmod);
	else
		snprintf(out, cap, "installing a driver depends on the host (a GPU, its "
			 "kernel module, a container's runtime): see the fix");
}

/* Why no command, for a finding whose fix no one command makes. */
static const char *why_none(enum gt_finding_id id)
{
	switch (id) {
	case GT_F_DRIVER_TOO_OLD:
		return "the driver is the host's, with its kernel module (an update and a "
		       "reboot), or the framework's build must change: see the fix";
	case GT_F_DRIVER_MISMATCH:
	case GT_F_DRIVER_STUB:
	case GT_F_NO_DEVICE:
		return "the change is the host's or the container's, outside the program (see the fix)";
	case GT_F_INIT_FAILED:
		return "this is how the finding it is caused by shows: that one's fix is the fix";
	case GT_F_CRASHED:
		return "the frames and libraries above say which copy to check first; no change is sure before";
	case GT_F_OUT_OF_MEMORY:
		return "batch and model sizes are the program's own choice";
	case GT_F_END_UNKNOWN:
		return "how it ended is unknown, not wrong: nothing to run";
	case GT_F_FORK_AFTER_INIT:
		return "the program's own code must start its workers with the spawn method";
	case GT_F_MISSING_RANKS:
		return "the job's launcher line is the user's: run every rank under gputrace as "
		       "the fix says";
	case GT_F_DIVERGENT_PROCESSES:
		return "what differs is between ranks or hosts (the evidence above)";
	case GT_F_NO_KERNEL_IMAGE:
		return "the build to install depends on the framework and the GPU's "
		       "compute capability (above)";
	case GT_F_CUDA_MAJOR_MISMATCH:
		return "which CUDA major to keep is a choice every framework in the process "
		       "must follow";
	case GT_F_ALREADY_LOADED:
		return "which package loads first is the program's import order";
	case GT_F_DUPLICATE_LIBRARY:
		return "remove a copy only once nothing needs it (gputrace scan --for PROGRAM "
		       "says who takes which)";
	case GT_F_SHADOWED_LIBRARY:
	case GT_F_MIXED_VERSIONS:
		return "the stale copies came from no Debian package and no change of "
		       "the recorded environment: remove them by hand, as the fix says";
	case GT_F_LIBRARY_NOT_FOUND:
		return "which build to install, or which folder to add, is the fix's "
		       "choice of the copies above";
	case GT_F_CPU_ONLY_BUILD:
	case GT_F_FRAMEWORK_MISMATCH:
	case GT_F_MISSING_SYMBOL:
		return "the build to install depends on the CUDA the program uses (see the "
		       "fix)";
	case GT_F_BROKEN_SYMLINK:
	case GT_F_WRONG_ARCHITECTURE:
		return "remove or repair the file by hand, once nothing needs it";
	default:
		return "see the fix";
	}
}

bool gt_fix_paste(enum gt_finding_id id, json_t *evidence, const struct gt_fix *fix,
		  const struct gt_proc_model *m, char *out, size_t cap)
{
	struct gt_host_facts *facts = m ? m->facts : NULL;
	bool said_why = false;

	if (!cap)
		return false;
	out[0] = 0;
	if (gt_fix_command(fix, 1, m ? m->proc : NULL, facts, out, cap))
		return true;
	if (fix->n && gt_fix_has_env(fix)) {
		snprintf(out, cap, "%s", m ? "the fix changes nothing of the environment the trace recorded" :
			 "the change is to the environment of the programs that load these files (see the fix)");
		return false;
	}
	if (id == GT_F_LIBRARY_NOT_FOUND && first_ev_str(evidence, "renamed")) {
		snprintf(out, cap, "the link goes into a folder an installer owns, beside its copy: make it by "
			 "hand, as the fix says, or install the release that ships the name");
		return false;
	}
	if ((id == GT_F_SHADOWED_LIBRARY && shadowed_apt(evidence, facts, out, cap)) ||
	    (id == GT_F_MIXED_VERSIONS && mixed_apt(evidence, facts, out, cap)) ||
	    (id == GT_F_LIBRARY_NOT_FOUND && other_major(evidence, m, out, cap, &said_why)))
		return true;
	if (said_why)
		return false;
	if (id == GT_F_DRIVER_MISSING || host_cause(evidence)[0])
		driver_missing_why(evidence, out, cap);
	else if (!m && id != GT_F_BROKEN_SYMLINK && id != GT_F_WRONG_ARCHITECTURE)
		/* a scan's: no run, no recorded environment, no package records asked */
		snprintf(out, cap, "a scan judges files, not a run: the change is to these files or to the "
			 "environment of the programs that load them (see the fix)");
	else
		snprintf(out, cap, "%s", why_none(id));
	return false;
}
