/* gputrace doctor's environment block (see doctor_env.h). */
#define _GNU_SOURCE
#include "cmd/doctor_env.h"

#include <errno.h>
#include <fcntl.h>
#include <gnu/libc-version.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/nvidia_driver.h"

extern char **environ;

/* PRETTY_NAME of /etc/os-release, unquoted. */
static void read_os(char *out, size_t cap)
{
	FILE *f = fopen("/etc/os-release", "re");
	char line[512];

	*out = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "PRETTY_NAME=", 12) == 0) {
			char *v = line + 12, *end;

			v += *v == '"';
			end = v + strcspn(v, "\"\n");
			*end = 0;
			snprintf(out, cap, "%s", v);
			break;
		}
	fclose(f);
}

/* The toolkit of CUDA_HOME, else /usr/local/cuda: its version.json's
 * "cuda" version, else the folder's name (cuda-13.0). */
static void read_toolkit(char *out, size_t cap)
{
	const char *home = getenv("CUDA_HOME");
	char real[PATH_MAX], json[PATH_MAX + 16], buf[4096], version[64] = "";
	const char *base, *p;
	FILE *f;
	size_t n;

	*out = 0;
	if (!home || !*home)
		home = "/usr/local/cuda";
	if (!realpath(home, real))
		return;
	snprintf(json, sizeof(json), "%s/version.json", real);
	f = fopen(json, "re");
	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		buf[n] = 0;
		fclose(f);
		p = strstr(buf, "\"cuda\"");
		p = p ? strstr(p, "\"version\"") : NULL;
		p = p ? strchr(p + 9, '"') : NULL;
		if (p)
			snprintf(version, sizeof(version), "%.*s", (int)strcspn(p + 1, "\""), p + 1);
	}
	base = strrchr(real, '/');
	base = base ? base + 1 : real;
	if (!*version && strncmp(base, "cuda-", 5) == 0)
		snprintf(version, sizeof(version), "%s", base + 5);
	snprintf(out, cap, "%s (%s)", *version ? version : "version unknown", real);
}

/* What the interpreter says about itself and torch: lines "python\tVER",
 * then "torch\tVER\tCUDA\t" or "error\tWHY". torch is found and its
 * version.py read, never imported: the framework checks import it once,
 * traced (torch_doctor.py), and say its cuDNN (issue 29: importing it here
 * too took about 1.3 s of 2.3). A torch that is there but does not import
 * says so in the checks' import step. */
static const char ask_python[] =
	"import sys\n"
	"print('python\\t' + sys.version.split()[0], flush=True)\n"
	"try:\n"
	"    import ast, importlib.util, os\n"
	"    spec = importlib.util.find_spec('torch')\n"
	"    if spec is None or not spec.origin:\n"
	"        raise ModuleNotFoundError(\"No module named 'torch'\")\n"
	"    got = {}\n"
	"    with open(os.path.join(os.path.dirname(spec.origin), 'version.py')) as f:\n"
	"        for node in ast.parse(f.read()).body:\n"
	"            target = node.targets[0] if isinstance(node, ast.Assign) else getattr(node, 'target', None)\n"
	"            if isinstance(target, ast.Name) and isinstance(getattr(node, 'value', None), ast.Constant):\n"
	"                got[target.id] = node.value.value\n"
	"except BaseException as e:\n"
	"    print('error\\t' + (type(e).__name__ + ': ' + str(e)).splitlines()[0][:200])\n"
	"    sys.exit(0)\n"
	"print('torch\\t%s\\t%s\\t' % (got.get('__version__') or '?', got.get('cuda') or ''))\n";

/* Runs python -c ask_python, stdout into buf, stderr to /dev/null. */
static bool run_python(const char *python, char *buf, size_t cap)
{
	char *argv[] = { (char *)python, "-c", (char *)ask_python, NULL };
	posix_spawn_file_actions_t fa;
	int pipefd[2], status = 0, err;
	size_t len = 0;
	ssize_t n;
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC) != 0)
		return false;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDOUT_FILENO);
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
	err = posix_spawn(&pid, python, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[1]);
	while (err == 0 && len + 1 < cap && ((n = read(pipefd[0], buf + len, cap - len - 1)) > 0 || (n < 0 && errno == EINTR)))
		len += n > 0 ? (size_t)n : 0;
	buf[len] = 0;
	close(pipefd[0]);
	if (err != 0)
		return false;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* The tab-separated field k of line (fields end at \t or \n), into out. */
static void field(const char *line, int k, char *out, size_t cap)
{
	while (k-- > 0 && line && (line = strchr(line, '\t')))
		line++;
	if (!line) {
		*out = 0;
		return;
	}
	snprintf(out, cap, "%.*s", (int)strcspn(line, "\t\n"), line);
}

static void read_python(struct doctor_env *env, const char *python)
{
	char buf[4096], version[64];
	const char *l;

	snprintf(env->python_path, sizeof(env->python_path), "%s", python);
	if (!run_python(python, buf, sizeof(buf)) || strncmp(buf, "python\t", 7) != 0) {
		snprintf(env->python, sizeof(env->python), "%s (did not run)", python);
		snprintf(env->torch_error, sizeof(env->torch_error), "the interpreter did not run");
		return;
	}
	field(buf, 1, version, sizeof(version));
	snprintf(env->python, sizeof(env->python), "%s %s", python, version);
	if ((l = strstr(buf, "\nerror\t")) != NULL) {
		field(l + 1, 1, env->torch_error, sizeof(env->torch_error));
	} else if ((l = strstr(buf, "\ntorch\t")) != NULL) {
		struct doctor_framework *fw = &env->frameworks[env->nframeworks++];

		env->imports_torch = true;
		snprintf(fw->name, sizeof(fw->name), "torch");
		field(l + 1, 1, fw->version, sizeof(fw->version));
		field(l + 1, 2, fw->cuda, sizeof(fw->cuda));
		field(l + 1, 3, fw->cudnn, sizeof(fw->cudnn));
	}
}

void cmd_doctor_env_take_framework(struct doctor_env *env, const char *out)
{
	const char *l = out && strncmp(out, "framework\t", 10) == 0 ? out : out ? strstr(out, "\nframework\t") : NULL;
	struct doctor_framework *fw = env->nframeworks ? &env->frameworks[0] : NULL;

	if (!l || !fw)
		return;
	if (*l == '\n')
		l++;
	field(l, 2, fw->version, sizeof(fw->version));
	field(l, 3, fw->cuda, sizeof(fw->cuda));
	field(l, 4, fw->cudnn, sizeof(fw->cudnn));
	fw->cudnn_known = true;
}

void cmd_doctor_env_read(struct doctor_env *env, const char *python)
{
	struct utsname u;

	memset(env, 0, sizeof(*env));
	read_os(env->os, sizeof(env->os));
	if (uname(&u) == 0)
		snprintf(env->kernel, sizeof(env->kernel), "%s %s", u.release, u.machine);
	snprintf(env->glibc, sizeof(env->glibc), "%s", gnu_get_libc_version());
	if (!gt_read_kmod_version(env->driver, sizeof(env->driver)))
		env->driver[0] = 0;
	read_toolkit(env->cuda_toolkit, sizeof(env->cuda_toolkit));
	if (python)
		read_python(env, python);
}
