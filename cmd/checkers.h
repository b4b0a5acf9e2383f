/* Programs that run under a checker (a sanitizer built into them, or
 * valgrind), and what each needs of the tracer to run as it runs without
 * gputrace. The measurements behind each choice are in doc/design-notes.md,
 * "Sanitizers and valgrind". */
#ifndef GPUTRACE_CHECKERS_H
#define GPUTRACE_CHECKERS_H

#include <stdbool.h>
#include <stddef.h>

/* In order of precedence: a program built with several (ASan and UBSan) is
 * handled for the one that needs most. */
enum cmd_checker {
	CMD_CHECKER_NONE,
	CMD_CHECKER_UBSAN,
	CMD_CHECKER_MSAN,
	CMD_CHECKER_HWASAN,
	CMD_CHECKER_LSAN,      /* LeakSanitizer alone (gcc -fsanitize=leak) */
	CMD_CHECKER_TSAN,
	CMD_CHECKER_ASAN,
	CMD_CHECKER_VALGRIND,
};

struct cmd_checker_found {
	enum cmd_checker kind;
	bool linked_in;        /* the runtime is inside the program (clang's default) */
	char runtime[256];     /* the runtime's file name (libtsan.so.2), or the
				* symbol that showed a linked-in one (__asan_init) */
};

/* Which checker the program at path (as resolved for exec) runs under:
 * valgrind by its name; a sanitizer by the runtime the program needs
 * (DT_NEEDED, or named in LD_PRELOAD) or carries (defined in .dynsym). */
void cmd_checker_find(const char *path, struct cmd_checker_found *out);

/* Called once LD_AUDIT and LD_PRELOAD name lib, before exec: changes the
 * environment as the command's checker needs, and says so in one line on
 * stderr (unless quiet) and in GPUTRACE_MODE, which each trace header
 * records. path is the command as execvp finds it (cmd_resolve_command),
 * NULL when it is found nowhere. */
void cmd_checkers_adapt(const char *path, const char *lib, bool quiet);

#endif
